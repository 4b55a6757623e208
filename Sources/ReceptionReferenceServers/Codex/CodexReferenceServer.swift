import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ReceptionCore

/// A deterministic OpenAgents Codex workers server for tests and for trying Reception:
/// `reception serve codex`. It answers as the public Laravel API over the runtime does at
/// 562314f4e8 (see `../shared/upstream-contracts.md` §4): Sanctum Bearer tokens, JSON in
/// `{"data": …}` with slashes escaped and empty objects as `[]`, snake_case REST and camelCase
/// stream payloads, a long-poll stream that closes after `tail_ms`, frames without their
/// blank line, `cursor`/`Last-Event-ID`, a stale cursor as `event: error` (or 410), 409 for a
/// stopped worker, 422 for Laravel's validation, 403 for another user's worker.
///
/// Faults on demand (`CodexReferenceOptions`): streams cut at seeded random points, events
/// replayed within a response (the proxy's retry), old cursors expired by a small retention.
/// The desktop of `wrk-desktop` answers `ios/handshake` with `desktop/handshake_ack`;
/// `wrk-hosted` has no desktop and never does.
public struct CodexReferenceServer: Sendable {
    public let options: CodexReferenceOptions
    let state: CodexReferenceState
    static let root = "/api/runtime/codex/workers"

    public init(options: CodexReferenceOptions = CodexReferenceOptions()) {
        self.options = options
        state = CodexReferenceState(options: options)
    }

    /// Serves until the surrounding task is cancelled; `onReady` gets the bound port.
    public func run(onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let server = self
        let app = loopbackApplication(host: options.host, port: options.port, label: "codex-reference", onReady: onReady) { await server.respond($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.run() }
            if let tick = options.tick {
                group.addTask {
                    while true {
                        try await Task.sleep(for: tick)
                        await server.state.tick()
                    }
                }
            }
            try await group.next()
            group.cancelAll()
        }
    }

    // MARK: what tests read back

    public func streamsCut() async -> Int { await state.streamsCut }
    public func gatewayErrorsSent() async -> Int { await state.gatewayErrorsSent }
    public func garbageSent() async -> Int { await state.garbageSent }
    public func streamsReplayed() async -> Int { await state.streamsReplayed }
    public func streamsOpened() async -> Int { await state.streamsOpened }
    /// Stream responses that ran to their end (`tail_ms`); one still open is not counted.
    public func streamsEnded() async -> Int { await state.streamsEnded }
    /// Whole event frames written on streams so far.
    public func framesWritten() async -> Int { await state.framesWritten }
    /// Every `X-Request-Id` received, oldest first.
    public func requestIDs() async -> [String] { await state.requestIDs }
    /// The bodies of `POST …/events` and `POST …/requests`, oldest first.
    public func postedEvents() async -> [JSONValue] { await state.postedEvents }
    /// Appends an event to a worker's ledger, as the runtime would (tests drive the timeline).
    @discardableResult
    public func append(_ workerID: String, eventType: String = "worker.event", payload: JSONValue) async -> Int? {
        await state.append(workerID, eventType, payload)?.seq
    }
    public func latestSeq(_ workerID: String) async -> Int { await state.latestSeq(workerID) }

    // MARK: routing

    func respond(_ request: Request) async -> Response {
        var request = request
        if let id = request.headers[HTTPField.Name("X-Request-Id")!] { await state.recordRequestID(id) }
        let path = request.uri.path
        guard path == Self.root || path.hasPrefix(Self.root + "/") else { return Self.laravel(404, "Not Found") }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
              options.tokens.contains(String(header.dropFirst(7))) else {
            // Laravel answers 401 in JSON only to a request that asks for JSON; any other is
            // sent to the login page.
            guard request.headers[.accept]?.contains("json") == true else {
                return Response(status: .found, headers: [.location: "/login"])
            }
            return Self.laravel(401, "Unauthenticated.")
        }
        let owner = "dev"
        let parts = path.dropFirst(Self.root.count).split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value).removingPercentEncoding ?? String(value) }
        guard !parts.isEmpty else {
            if request.method == .get { return await list(query, owner: owner) }
            return Self.laravel(405, "The \(request.method) method is not supported by the reference server for this route.")
        }
        let id = parts[0]
        guard let worker = await state.worker(id) else { return Self.runtimeError(404, "not_found", "worker not found") }
        guard worker.owner == owner else { return Self.runtimeError(403, "forbidden", "worker does not belong to principal") }
        let body = request.method == .post ? (try? await request.collectBody(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data() : Data()
        switch (request.method, parts.count > 1 ? parts[1] : nil) {
        case (.get, nil): return Self.data(200, await snapshot(worker))
        case (.get, "stream"?): return await stream(worker, query: query, lastEventID: request.headers[HTTPField.Name("Last-Event-ID")!])
        case (.post, "requests"?): return await workerRequest(worker, body)
        case (.post, "events"?): return await ingest(worker, body)
        case (.post, "stop"?): return await stop(worker, body)
        default: return Self.laravel(404, "Not Found")
        }
    }

    func list(_ query: [String: String], owner: String) async -> Response {
        let statuses = ["starting", "running", "stopping", "stopped", "failed"]
        if let status = query["status"], !statuses.contains(status) {
            return Self.validation(["status": "The selected status is invalid."])
        }
        var limit = 50
        if let text = query["limit"] {
            guard let value = Int(text), (1...200).contains(value) else { return Self.validation(["limit": "The limit field must be between 1 and 200."]) }
            limit = value
        }
        var summaries: [JSONValue] = []
        for worker in await state.list(owner: owner, status: query["status"], limit: limit) {
            guard case .object(var fields) = await snapshot(worker) else { continue }
            fields["convex_projection"] = .null
            summaries.append(.object(fields))
        }
        return Self.data(200, .array(summaries))
    }

    func snapshot(_ worker: CodexReferenceState.Worker) async -> JSONValue {
        let age = Int(Date().timeIntervalSince(worker.lastHeartbeat) * 1000)
        let heartbeat = worker.status == "stopped" ? "stopped" : age > 120_000 ? "stale" : "fresh"
        return .object([
            "worker_id": .string(worker.id), "status": .string(worker.status), "latest_seq": .number(Double(worker.nextSeq - 1)),
            "workspace_ref": worker.workspace.map(JSONValue.string) ?? .null, "codex_home_ref": .null, "adapter": .string(worker.adapter),
            // PHP re-encodes an empty object as an empty array.
            "metadata": .array([]),
            "started_at": .string(worker.startedAt), "stopped_at": worker.stoppedAt.map(JSONValue.string) ?? .null,
            "updated_at": .string(worker.updatedAt), "last_heartbeat_at": .string(Wire.timestamp(worker.lastHeartbeat)),
            "heartbeat_age_ms": .number(Double(age)), "heartbeat_stale_after_ms": .number(120_000), "heartbeat_state": .string(heartbeat),
        ])
    }
}
