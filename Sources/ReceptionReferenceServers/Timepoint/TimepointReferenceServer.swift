import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ReceptionCore

/// A deterministic TIMEPOINT Flash server for tests and for trying Reception:
/// `reception serve timepoint`.
///
/// It speaks what the real server at 74d8e06 sends (`../shared/upstream-contracts.md` §3):
/// errors as `{"error": ..., "detail": null}`, FastAPI's `{"detail": [...]}` for 422, every
/// `TimepointResponse` key present, the rich parts only with `?full=true`, and the SSE
/// generation stream as `data:`-only `{event, step, data, progress, error}` frames. Where the
/// real server has a bug the guide does not describe, it follows the guide: refresh rotates
/// (and a reused refresh token revokes every token of its user), the stream charges and
/// records the owner. `refreshAnswers500` plays the real server's broken refresh instead.
///
/// Scripting: words in a query (`slow`, `stubfail`), `expireAccessTokens()`, `inject(_:)` a
/// fault (429 with `Retry-After`, 500, 422...) for the next calls of a path; over HTTP the
/// same with `X-Admin-Key` at `POST /reference/faults` and `POST /reference/expire-access-tokens`.
public struct TimepointReferenceServer: Sendable {
    public let options: TimepointReferenceOptions
    let state: TimepointReferenceState

    public init(options: TimepointReferenceOptions = TimepointReferenceOptions()) {
        self.options = options
        state = TimepointReferenceState(options: options)
    }

    /// Serves until the surrounding task is cancelled; `onReady` gets the bound port.
    public func run(onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let server = self
        let app = loopbackApplication(host: options.host, port: options.port, label: "timepoint-reference", onReady: onReady) { await server.respond($0) }
        try await app.run()
    }

    // MARK: scripting, for tests

    /// Plays `fault` instead of the next `fault.times` calls of its path.
    public func inject(_ fault: TimepointFault) async { await state.addFault(fault) }
    /// Every access token issued so far has expired.
    public func expireAccessTokens() async { await state.expireAccessTokens() }
    /// Sets a user's balance (for 402).
    public func setBalance(email: String, _ balance: Int) async { await state.setBalance(email: email, balance) }
    /// The calls received so far, oldest first.
    public func receivedCalls() async -> [TimepointReceivedCall] { await state.calls }
    /// Refresh tokens of this user that still work.
    public func liveRefreshTokens(of email: String) async -> Int { await state.liveRefreshTokens(of: email) }
    /// A user's balance.
    public func balance(of email: String) async -> Int? {
        guard let id = await state.usersByEmail[email.lowercased()] else { return nil }
        return await state.currentUser(id)?.balance
    }

    // MARK: responses

    static func json(_ status: Int, _ value: JSONValue, headers extra: [(String, String)] = []) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        for (name, value) in extra { if let field = HTTPField.Name(name) { headers[field] = value } }
        return Response(status: HTTPResponse.Status(code: status), headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: Wire.jsonString(value))))
    }

    /// The real server's error body.
    static func error(_ status: Int, _ message: String, headers: [(String, String)] = []) -> Response {
        json(status, .object(["error": .string(message), "detail": .null]), headers: headers)
    }

    /// FastAPI's 422 body, one item per field.
    static func invalid(_ problems: [(field: [String], type: String, message: String)]) -> Response {
        json(422, .object(["detail": .array(problems.map { problem in
            .object(["type": .string(problem.type), "loc": .array((["body"] + problem.field).map(JSONValue.string)),
                     "msg": .string(problem.message), "input": .null])
        })]))
    }

    /// What a broken server or proxy sends instead of a frame (`garbagejson`, `garbageutf8`).
    enum StreamGarbage: Sendable { case notJSON, notUTF8 }

    /// 200 with an HTML page where JSON or an event stream was expected (`garbagehtml`): a
    /// captive portal or a proxy's page.
    static func htmlPage() -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: "<!DOCTYPE html><html><head><title>Sign in to the network</title></head><body><h1>Welcome</h1></body></html>")))
    }

    /// SSE frames, `data:` only, each after a pause; `cutAfter` closes the connection in the
    /// middle of the frame after that many (a dropped connection); `stallAfter` goes silent
    /// after that many, the connection left open (a pipeline step that hangs); `oversizedAfter`
    /// sends one event of 8 MB as short `data:` lines after that many (`OversizedEvent`).
    /// `garbageAfter`: at that frame, the garbage instead, and the stream ends.
    static func stream(_ frames: [JSONValue], pause: Duration, cutAfter: Int? = nil, stallAfter: Int? = nil,
                       oversizedAfter: Int? = nil, garbageAfter: (StreamGarbage, Int)? = nil) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[HTTPField.Name("x-accel-buffering")!] = "no"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            for (index, frame) in frames.enumerated() {
                try await Task.sleep(for: pause)
                if let stallAfter, index == stallAfter {
                    try await Task.sleep(for: .seconds(3600))
                }
                if let oversizedAfter, index == oversizedAfter {
                    try await OversizedEvent.write(to: &writer)
                }
                if let cutAfter, index == cutAfter {
                    try await writer.write(ByteBuffer(string: "data: {\"event\": \"step_comp"))
                    throw CancellationError()  // ends the response without its last chunk
                }
                if let (garbage, at) = garbageAfter, index == at {
                    var bytes = ByteBuffer()
                    switch garbage {
                    case .notJSON: bytes.writeString("data: <html><body>502 Bad Gateway</body></html>\n\n")
                    case .notUTF8:
                        bytes.writeString("data: {\"event\": \"step_complete\", \"step\": \"caf")
                        bytes.writeBytes([0xC3, 0x28, 0xFF, 0xFE])
                        bytes.writeString("\"}\n\n")
                    }
                    try await writer.write(bytes)
                    try await writer.finish(nil)
                    return
                }
                try await writer.write(ByteBuffer(string: "data: \(Wire.jsonString(frame))\n\n"))
            }
            try await writer.finish(nil)
        })
    }
}

/// A TIMEPOINT reference server running in the background (tests).
public typealias RunningTimepointServer = RunningReferenceServer<TimepointReferenceServer>

extension TimepointReferenceServer: ReferenceServer {}

extension RunningReferenceServer where Server == TimepointReferenceServer {
    /// The server's root, as clients take it (`/api/v1` is theirs to add).
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on 127.0.0.1 (ephemeral port) and returns once it accepts connections.
    public static func start(_ options: TimepointReferenceOptions = TimepointReferenceOptions(port: 0)) async throws -> RunningTimepointServer {
        var options = options
        options.port = 0
        return try await launch(options)
    }
}
