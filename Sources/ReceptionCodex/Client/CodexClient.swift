import Foundation
import ReceptionCore
import ReceptionTransport

/// The calls Reception makes to the Codex workers API (Laravel's `/api/runtime/codex/workers`,
/// which forwards to the OpenAgents runtime): list, snapshot, request, stop, event ingest and
/// one long poll of the stream. Every call carries a fresh `x-request-id`, and every failure
/// is a `CodexError` that names it.
public final class CodexClient: Sendable {
    public let configuration: CodexConfiguration
    let transport: HTTPTransport
    static let root = "/api/runtime/codex/workers"
    /// The largest event read (256 KB): with the watcher's 200-event timeline, what watching
    /// can hold stays in the tens of megabytes whatever the server sends.
    public static let maxEventBytes = 256 << 10

    public init(configuration: CodexConfiguration) {
        self.configuration = configuration
        transport = HTTPTransport(configuration: configuration.transportConfiguration)
    }

    public func shutdown() async { await transport.shutdown() }

    /// A new id for one call, sent as `x-request-id`.
    public static func newRequestID() -> String { UUID().uuidString.lowercased() }

    // MARK: calls

    /// `GET /workers?status=&limit=`: the workers this token's user can see.
    public func list(status: CodexWorkerStatus? = nil, limit: Int? = nil) async throws -> [CodexWorker] {
        var query: [(String, String)] = []
        if let status { query.append(("status", status.rawValue)) }
        if let limit { query.append(("limit", String(limit))) }
        return try await call([CodexWorker].self, .get, "", query: query).value
    }

    /// `GET /workers/{id}`: the worker's state and its latest event's `seq`.
    public func snapshot(_ workerID: String) async throws -> CodexWorker {
        try await call(CodexWorker.self, .get, "/" + Self.segment(workerID)).value
    }

    /// `POST /workers/{id}/requests`: a JSON-RPC-like request (`method`, `params`) for the worker.
    public func request(_ workerID: String, _ request: CodexWorkerRequest) async throws -> CodexRequestResult {
        let body = try Wire.encode(["request": request])
        return try await call(CodexRequestResult.self, .post, "/\(Self.segment(workerID))/requests", body: body).value
    }

    /// `POST /workers/{id}/stop` with an optional reason (at most 255 characters).
    public func stop(_ workerID: String, reason: String?) async throws -> CodexStopResult {
        var body: [String: JSONValue] = [:]
        if let reason, !reason.isEmpty { body["reason"] = .string(String(reason.prefix(255))) }
        return try await call(CodexStopResult.self, .post, "/\(Self.segment(workerID))/stop", body: try Wire.encode(body)).value
    }

    /// `POST /workers/{id}/events`: appends a `worker.*` event to the worker's ledger; the
    /// answer is the stored event with its `seq`.
    public func postEvent(_ workerID: String, eventType: String = "worker.event", payload: JSONValue) async throws -> CodexEvent {
        try await postEventNamingCall(workerID, eventType: eventType, payload: payload).value
    }

    func postEventNamingCall(_ workerID: String, eventType: String, payload: JSONValue) async throws -> (value: CodexEvent, requestID: String) {
        let body = try Wire.encode(["event": JSONValue.object(["event_type": .string(eventType), "payload": payload])])
        return try await call(CodexEvent.self, .post, "/\(Self.segment(workerID))/events", body: body)
    }

    /// What one long poll of the stream brings.
    public enum StreamItem: Sendable, Hashable {
        case event(CodexEvent)
        /// A frame that could not be read as an event; its `id` (if any) still moves the cursor,
        /// so one bad frame is reported once instead of breaking every reconnect.
        case unreadable(id: Int?, reason: String)
    }

    /// How the stream's frames are read. The runtime at 562314f4e8 writes `id:`, `event:`,
    /// `data:` and one newline, no blank line, and its `data:` line is always the frame's last
    /// and holds one JSON document: the frame is delivered when that line ends. Waiting for the
    /// next `id:` (or the end of the long poll) held each event back until the worker did
    /// something else, and the last one until the poll closed, up to `tail_ms` later. A frame
    /// whose `data:` line a broken connection cut is never delivered; the next poll brings it.
    static let framing: SSEParser.Leniency = SSEParser.Leniency.unterminatedFrames.union(.dataLineEndsFrame)

    /// `GET /workers/{id}/stream?cursor=&tail_ms=` with `Last-Event-ID`: the events after
    /// `cursor`, until the server ends the long poll (after `tail_ms`). Each event is yielded
    /// as soon as its frame's `data:` line has arrived (see `framing`).
    /// An `event: error` frame (Laravel's way of reporting a runtime failure on a stream it
    /// already answered with 200, e.g. a stale cursor) ends the stream with a `CodexError`.
    public func stream(_ workerID: String, cursor: Int, tailMS: Int? = nil) -> AsyncThrowingStream<StreamItem, any Error> {
        let requestID = Self.newRequestID()
        let path = "\(Self.root)/\(Self.segment(workerID))/stream"
        let operation = "GET /workers/\(workerID)/stream?cursor=\(cursor)"
        let tail = min(max(tailMS ?? configuration.tailMS, 1), 120_000)
        let frames = transport.eventStream(path, query: [("cursor", String(cursor)), ("tail_ms", String(tail))], auth: .required,
                                           lastEventID: String(cursor), requestID: requestID,
                                           parser: SSEParser(maxLineBytes: Self.maxEventBytes, maxEventBytes: Self.maxEventBytes, leniency: Self.framing))
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await frame in frames {
                        guard case .event(let data, let name, let id) = frame else { continue }
                        if name == "error" {
                            throw Self.streamFailure(data, operation: operation, requestID: requestID)
                        }
                        do {
                            let event = try Wire.decode(CodexEvent.self, from: Data(data.utf8))
                            continuation.yield(.event(event))
                        } catch {
                            let excerpt = TerminalSafe.excerpt(data)
                            continuation.yield(.unreadable(id: id.flatMap { Int($0) }, reason: "not a worker event (\(excerpt))"))
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Self.mapped(error, operation: operation, requestID: requestID))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: plumbing

    enum Method { case get, post }

    private func call<T: Decodable & Sendable>(_ type: T.Type, _ method: Method, _ path: String, query: [(String, String)] = [],
                                               body: Data? = nil) async throws -> (value: T, requestID: String) {
        let requestID = Self.newRequestID()
        let operation = "\(method == .get ? "GET" : "POST") /workers\(path)"
        let response: HTTPTransport.RawResponse
        do {
            switch method {
            case .get: response = try await transport.send(.GET, Self.root + path, query: query, auth: .required, requestID: requestID)
            case .post: response = try await transport.send(.POST, Self.root + path, query: query, body: body ?? Data("{}".utf8),
                                                            auth: .required, requestID: requestID)
            }
        } catch {
            throw Self.mapped(error, operation: operation, requestID: requestID)
        }
        guard (200..<300).contains(response.status) else {
            let body = CodexErrorBody(response.body)
            let message = body.message ?? HTTPTransport.errorDetail(status: response.status, body: response.body,
                                                                     contentType: response.header("content-type"))
            throw CodexError(state: CodexError.state(status: response.status, code: body.code), status: response.status,
                             code: body.code, message: TerminalSafe.excerpt(message), operation: operation, requestID: requestID)
        }
        do {
            return (try Wire.decode(CodexEnvelope<T>.self, from: response.body).data, requestID)
        } catch {
            throw CodexError(state: .protocolViolation, status: response.status,
                             message: "the answer is not {\"data\": \(T.self)} (\(TerminalSafe.excerpt(String(decoding: response.body.prefix(200), as: UTF8.self))))",
                             operation: operation, requestID: requestID)
        }
    }

    /// A transport error as a `CodexError` naming the call; cancellation stays cancellation.
    static func mapped(_ error: any Error, operation: String, requestID: String) -> any Error {
        if error is CodexError || error is CancellationError { return error }
        switch error as? BackendError {
        case .http(let status, let detail)?:
            return CodexError(state: CodexError.state(status: status, code: nil), status: status, message: TerminalSafe.excerpt(detail),
                              operation: operation, requestID: requestID)
        case .unreachable(_, let reason)?:
            return CodexError(state: .unreachable, message: reason, operation: operation, requestID: requestID)
        case .connectionLost?:
            return CodexError(state: .unreachable, message: "the connection was lost mid-answer", operation: operation, requestID: requestID)
        case .timedOut(_, let reason)?:
            return CodexError(state: .timedOut, message: reason, operation: operation, requestID: requestID)
        case .protocolViolation(let what)?:
            return CodexError(state: .protocolViolation, message: TerminalSafe.excerpt(what), operation: operation, requestID: requestID)
        default:
            return CodexError(state: .unreachable, message: String(describing: error), operation: operation, requestID: requestID)
        }
    }

    /// Laravel's `event: error` frame: `{"error":{"code":"runtime_codex_stream_failed",
    /// "message":"runtime codex stream returned HTTP 410"}}`. The runtime's status, when the
    /// message names one, decides the state (410 is a stale cursor).
    static func streamFailure(_ data: String, operation: String, requestID: String) -> CodexError {
        let body = CodexErrorBody(Data(data.utf8))
        let message = body.message ?? "the stream reported a failure"
        var status: Int?
        if let range = message.range(of: #"HTTP (\d{3})"#, options: .regularExpression) {
            status = Int(message[range].dropFirst(5))
        }
        let state: CodexError.State = status.map { CodexError.state(status: $0, code: body.code) }
            ?? (body.code == "stale_cursor" ? .staleCursor : .serverError)
        return CodexError(state: state, status: status, code: body.code, message: TerminalSafe.excerpt(message),
                          operation: operation + " (event: error)", requestID: requestID)
    }

    /// A worker id as one path segment.
    static func segment(_ workerID: String) -> String {
        workerID.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? workerID
    }
}

/// Server text in messages: one line, bounded. Whole escape sequences go, not only their
/// control characters: a clear-screen or clipboard write whose ESC became a space left
/// "[2J ]52;c;…" in the message.
enum TerminalSafe {
    static func excerpt(_ text: String, limit: Int = 300) -> String {
        TerminalText.line(text, limit: limit)
    }
}
