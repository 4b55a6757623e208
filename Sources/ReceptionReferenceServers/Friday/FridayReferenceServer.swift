import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ReceptionCore

/// A deterministic Friday server for tests and for trying Reception without the real one:
/// `reception serve friday`. It speaks what `friday serve` (tryfridayai/friday_cli at adc5427)
/// really sends, not what its guide says: the WebSocket is at `/ws`, tool frames carry
/// `tool_name`, permission ids are numbers counted per connection, session ids are issued by
/// the server, `ready`/`info`/`session`/`thinking_complete`/`permission_cancelled` arrive and
/// must be tolerated, a failed run sends `error` (twice) and no `complete`, and some runs end
/// with no frame at all. What it answers is scripted by words in the question
/// (`FridayReferenceScript`).
///
/// HTTP: `GET /health` → `{"ok":true,"workspace":…}`, anything else 404 `{"error":"Not found"}`.
public struct FridayReferenceServer: Sendable {
    public let options: FridayReferenceOptions
    let state = FridayReferenceState()

    public init(options: FridayReferenceOptions = FridayReferenceOptions()) {
        self.options = options
    }

    /// Every message received over WebSocket so far, oldest first (for tests).
    public func received() async -> [JSONValue] { await state.received }

    /// Serves until the surrounding task is cancelled; `onReady` gets the bound port.
    public func run(onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        precondition(["127.0.0.1", "localhost", "::1"].contains(options.host), "the reference server only binds loopback")
        let server = self
        let sockets = Router(context: BasicWebSocketRequestContext.self)
        sockets.ws("/ws") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, _ in
            try await server.converse(inbound: inbound, outbound: outbound)
        }
        let http = Router()
        http.get("/health") { _, _ in
            Self.json(#"{"ok":true,"workspace":"\#(FridayReferenceScript.workspace)"}"#, status: .ok)
        }
        http.addMiddleware { NotFoundMiddleware<BasicRequestContext>() }
        let app = Application(
            router: http, server: .http1WebSocketUpgrade(webSocketRouter: sockets),
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil),
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? 0) },
            logger: { var l = Logger(label: "friday-reference"); l.logLevel = .critical; return l }())
        try await app.run()
    }

    static func json(_ body: String, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// One connection: `ready`, then each message in turn. Queries run beside the reading, so
    /// a permission answer can arrive while one waits (and, as on the real server, a second
    /// query is not queued behind the first).
    func converse(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let connection = FridayReferenceConnection(outbound: outbound)
        try await connection.send(["type": .string("ready")])
        await withTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            do {
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message else { continue }
                    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), case .object = value else {
                        try await connection.send(["type": .string("error"), "message": .string("Unexpected token in JSON at position 0")])
                        continue
                    }
                    await state.record(value)
                    switch value["type"]?.stringValue ?? "" {
                    case "query":
                        let question = value["message"]?.stringValue ?? ""
                        let resume = value["session_id"]?.stringValue
                        // A script's failure (the socket went away under it) ends only that script.
                        group.addTask { try? await answer(question, resume: resume, connection: connection) }
                    case "permission_response":
                        try await connection.answer(value)
                    case "new_session":
                        try await connection.send(["type": .string("info"), "message": .string("Started new conversation")])
                    case let other:
                        try await connection.send(["type": .string("error"), "message": .string("Unknown message type: \(other)")])
                    }
                }
            } catch {
                // The client went away; the scripts below find out on their next write.
            }
            // Questions still open would hold their scripts (and this group) forever.
            await connection.abandon()
        }
    }

    func answer(_ question: String, resume: String?, connection: FridayReferenceConnection) async throws {
        let delay = question.lowercased().contains("slow") ? options.slowDelay : options.stepDelay
        let script = FridayReferenceScript(question: question, connection: connection, delay: delay)
        try await script.send(["type": .string("info"), "message": .string("Friday is processing your request...")])
        var earlier: [String]?
        let session: String
        if let resume {
            try await script.send(["type": .string("info"), "message": .string("Resuming session: \(resume)")])
            guard let known = await state.resume(resume, with: question) else {
                // An id this server never issued: a new session is announced, then nothing.
                try await script.send(["type": .string("session"), "session_id": .string(await state.newSession(first: question))])
                return
            }
            earlier = known
            session = resume
        } else {
            session = await state.newSession(first: question)
        }
        try await script.send(["type": .string("session"), "session_id": .string(session)])
        try await script.run(session: session, earlier: earlier)
    }
}

/// Every path without a route answers like `friday serve`: 404 `{"error":"Not found"}`.
struct NotFoundMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return FridayReferenceServer.json(#"{"error":"Not found"}"#, status: .notFound)
        }
    }
}
