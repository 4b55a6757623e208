import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ReceptionCore

/// What the OpenAI-compatible reference server does, and how fast.
public struct OpenAIReferenceOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port. 8080 is where llama.cpp's `llama-server` listens by default.
    public var port = 8080
    /// Models `GET /v1/models` lists; any other name is answered too, as llama.cpp does.
    public var models = ["reference-model"]
    /// Keys accepted as `Authorization: Bearer`; empty: no authentication.
    public var apiKeys: [String] = []
    /// Pause between chunks ("slow" in the message makes it `slowChunkDelay`).
    public var chunkDelay: Duration = .milliseconds(15)
    public var slowChunkDelay: Duration = .milliseconds(400)

    public init(port: Int = 8080, models: [String] = ["reference-model"], apiKeys: [String] = [],
                chunkDelay: Duration = .milliseconds(15), slowChunkDelay: Duration = .milliseconds(400)) {
        self.port = port
        self.models = models
        self.apiKeys = apiKeys
        self.chunkDelay = chunkDelay
        self.slowChunkDelay = slowChunkDelay
    }
}

/// A deterministic OpenAI-compatible chat server for tests and for trying Reception:
/// `reception serve openai`.
///
/// It speaks what the real llama.cpp-based server sends (see `../shared/upstream-servers/
/// openai-local`): `data:` events with LF endings, a first chunk with only the role, one
/// small chunk at a time, a finish chunk with an empty delta, `data: [DONE]`; errors as
/// `{"error": {...}}` for request problems, `{"detail": ...}` for 401/404, plain text for a
/// body that is not JSON. Words in the last user message script the rest (`OpenAIScript`).
public struct OpenAIReferenceServer: Sendable {
    public let options: OpenAIReferenceOptions
    let state = OpenAIReferenceState()

    public init(options: OpenAIReferenceOptions = OpenAIReferenceOptions()) {
        self.options = options
    }

    /// Serves until the surrounding task is cancelled; `onReady` gets the bound port.
    public func run(onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let server = self
        let app = loopbackApplication(host: options.host, port: options.port, label: "openai-reference", onReady: onReady) { await server.respond($0) }
        try await app.run()
    }

    /// Chat-completion bodies received so far, oldest first (tests read what the client sent).
    public func receivedBodies() async -> [JSONValue] { await state.bodies }

    /// Streams whose client went away before the end (the client closed the request).
    public func abandonedStreams() async -> Int { await state.abandoned }

    /// `data:` events written so far, on all streams.
    public func eventsWritten() async -> Int { await state.written }

    func respond(_ request: Request) async -> Response {
        var request = request
        let path = request.uri.path
        if !options.apiKeys.isEmpty {
            let given = request.headers[.authorization]
            guard let given, given.hasPrefix("Bearer "), options.apiKeys.contains(String(given.dropFirst(7))) else {
                return Self.json(401, .object(["detail": .string("Invalid API key")]))
            }
        }
        switch (request.method, path) {
        case (.get, "/v1/models"):
            let data = options.models.map { JSONValue.object(["id": .string($0), "object": .string("model"), "owned_by": .string("reception"), "permissions": .array([])]) }
            return Self.json(200, .object(["object": .string("list"), "data": .array(data)]))
        case (.post, "/v1/chat/completions"):
            let body = (try? await request.collectBody(upTo: 8 << 20)).map { Data(buffer: $0) } ?? Data()
            guard let value = try? Wire.decode(JSONValue.self, from: body), case .object = value else {
                return Response(status: .internalServerError, headers: [.contentType: "text/plain; charset=utf-8"],
                                body: ResponseBody(byteBuffer: ByteBuffer(string: "Internal Server Error")))
            }
            await state.record(value)
            return await chat(value)
        case (_, "/v1/models"), (_, "/v1/chat/completions"):
            return Self.json(405, .object(["detail": .string("Method Not Allowed")]))
        default:
            return Self.json(404, .object(["detail": .string("Not Found")]))
        }
    }

    func chat(_ body: JSONValue) async -> Response {
        guard case .array(let messages)? = body["messages"] else {
            return Self.openAIError(400, "'messages' is a required property", type: "invalid_request_error", param: "messages")
        }
        let script = OpenAIScript(messages: messages, model: body["model"]?.stringValue ?? options.models.first ?? "reference-model",
                                  maxTokens: body["max_tokens"]?.intValue)
        if script.has("errorbody") {
            return Self.openAIError(400, "This model's maximum context length is 2048 tokens. However, you requested 9000 tokens. Please reduce the length of the messages or completion.",
                                    type: "invalid_request_error", param: "messages", code: "context_length_exceeded")
        }
        if script.has("escapeerror") {
            return Self.openAIError(400, HostileText.around("Errorbodywords"), type: "invalid_request_error")
        }
        if script.has("garbagehtml") {
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "<!DOCTYPE html><html><head><title>Sign in to the network</title></head><body><h1>Welcome</h1></body></html>")))
        }
        if script.has("busy"), await state.firstTime(script.lastUser) {
            var response = Self.openAIError(429, "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded")
            response.headers[.retryAfter] = "1"
            return response
        }
        if script.has("loading"), await state.times(script.lastUser) <= 2 {
            // llama.cpp's server while it loads its model: 503 with its own error type, and no
            // Retry-After; twice, then it answers.
            return Self.json(503, .object(["error": .object(["message": .string("Loading model"), "type": .string("unavailable_error"),
                                                             "code": .number(503)])]))
        }
        guard body["stream"]?.boolValue == true else {
            return Self.json(200, script.completion())
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        if script.has("overflow") {
            // The real server's answer to a streamed prompt longer than its context: 200 and nothing.
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer()))
        }
        if script.has("garbagejson") || script.has("garbageutf8") {
            // A broken server or proxy: the role chunk, then a `data:` line that is not a
            // chunk (an HTML error page, or bytes that are not UTF-8), then the stream ends.
            var body = ByteBuffer(string: "data: \(script.chunk(delta: ["role": .string("assistant")]))\n\n")
            if script.has("garbageutf8") {
                body.writeString("data: {\"choices\":[{\"delta\":{\"content\":\"caf")
                body.writeBytes([0xC3, 0x28, 0xFF, 0xFE])
                body.writeString("\"}}]}\n\n")
            } else {
                body.writeString("data: <html><body>502 Bad Gateway</body></html>\n\n")
            }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
        }
        let delay = script.has("slow") ? options.slowChunkDelay : options.chunkDelay
        let includeUsage = body["stream_options"]?["include_usage"]?.boolValue == true
        let state = state
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            do {
                for event in script.events(includeUsage: includeUsage) {
                    switch event {
                    case .pause: try await Task.sleep(for: delay)
                    case .data(let text):
                        try await writer.write(ByteBuffer(string: "data: \(text)\n\n"))
                        await state.wroteEvent()
                    case .comment(let text): try await writer.write(ByteBuffer(string: ": \(text)\n\n"))
                    case .stall: try await Task.sleep(for: .seconds(3600))
                    }
                }
                try await writer.finish(nil)
            } catch {
                await state.abandon()
                throw error
            }
        })
    }

    static func json(_ status: Int, _ value: JSONValue) -> Response {
        Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: Wire.jsonString(value))))
    }

    static func openAIError(_ status: Int, _ message: String, type: String, param: String? = nil, code: String? = nil) -> Response {
        json(status, .object(["error": .object([
            "message": .string(message), "type": .string(type),
            "param": param.map(JSONValue.string) ?? .null, "code": code.map(JSONValue.string) ?? .null,
        ])]))
    }
}

actor OpenAIReferenceState {
    private(set) var bodies: [JSONValue] = []
    private(set) var abandoned = 0
    private(set) var written = 0
    private var seen: Set<String> = []
    private var counts: [String: Int] = [:]

    func record(_ body: JSONValue) {
        bodies.append(body)
        if bodies.count > 200 { bodies.removeFirst(bodies.count - 200) }
    }

    func abandon() { abandoned += 1 }
    func wroteEvent() { written += 1 }

    /// True the first time this text is seen (a 429 once, then a normal answer).
    func firstTime(_ text: String) -> Bool { seen.insert(text).inserted }

    /// How many times this text has been seen, this one included.
    func times(_ text: String) -> Int {
        counts[text, default: 0] += 1
        return counts[text]!
    }
}

/// An OpenAI-compatible reference server running in the background (tests).
public typealias RunningOpenAIServer = RunningReferenceServer<OpenAIReferenceServer>

extension OpenAIReferenceServer: ReferenceServer {}

extension RunningReferenceServer where Server == OpenAIReferenceServer {
    /// The API's base URL, `/v1` included, as clients take it.
    public var baseURL: String { "http://127.0.0.1:\(port)/v1" }

    /// Starts a server on 127.0.0.1 (ephemeral port) and returns once it accepts connections.
    public static func start(_ options: OpenAIReferenceOptions = OpenAIReferenceOptions(port: 0)) async throws -> RunningOpenAIServer {
        var options = options
        options.port = 0
        return try await launch(options)
    }
}
