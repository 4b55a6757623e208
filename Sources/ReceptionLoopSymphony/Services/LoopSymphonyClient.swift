import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ReceptionCore
import ReceptionTransport

/// Typed calls for every endpoint group of the Loop Symphony API (seed 000 §13, as the server
/// at 1917bde implements it). One value per group, as the guide's §15 lays out.
public struct LoopSymphonyClient: Sendable {
    public let configuration: LoopSymphonyConfiguration
    public let transport: HTTPTransport
    public var tasks: TaskService { TaskService(transport: transport) }
    public var arrangements: ArrangementService { ArrangementService(transport: transport) }
    public var trust: TrustService { TrustService(transport: transport) }
    public var knowledge: KnowledgeService { KnowledgeService(transport: transport) }
    public var rooms: RoomService { RoomService(transport: transport) }
    public var heartbeats: HeartbeatService { HeartbeatService(transport: transport) }
    public var interventions: InterventionService { InterventionService(transport: transport) }
    public var health: HealthService { HealthService(transport: transport) }

    public init(configuration: LoopSymphonyConfiguration, httpClient: HTTPClient? = nil) {
        self.configuration = configuration
        transport = HTTPTransport(configuration: configuration.transport, httpClient: httpClient)
    }

    public func shutdown() async { await transport.shutdown() }
}

func pathComponent(_ raw: String) -> String {
    raw.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? raw
}

// MARK: - Tasks

public struct TaskService: Sendable {
    let transport: HTTPTransport

    /// `POST /task` (optional auth). Trust level 0 answers `awaiting_approval` with a plan.
    public func submit(_ request: TaskRequest) async throws -> TaskSubmitResponse {
        try await transport.json(TaskSubmitResponse.self, .POST, "/task", sending: request, auth: .optional)
    }

    /// `POST /task/{id}/approve` (no body, no auth).
    public func approve(_ taskID: String) async throws -> TaskSubmitResponse {
        try await transport.json(TaskSubmitResponse.self, .POST, "/task/\(pathComponent(taskID))/approve", auth: .none)
    }

    /// `GET /task/{id}`: the result when complete, otherwise where it is. A failed task is
    /// HTTP 500 `{"detail":"Task failed: …"}` on the real server: that throws `BackendError.http(500, …)`.
    public func get(_ taskID: String) async throws -> TaskState {
        let response = try await transport.send(.GET, "/task/\(pathComponent(taskID))", auth: .none)
        try HTTPTransport.check(response)
        // A finished task is a TaskResponse (it has `request_id`); anything else is pending.
        if response.body.range(of: Data("\"request_id\"".utf8)) != nil {
            return .finished(try HTTPTransport.decode(TaskResponse.self, from: response.body, what: "GET /task/\(taskID)"))
        }
        return .inProgress(try HTTPTransport.decode(TaskPendingResponse.self, from: response.body, what: "GET /task/\(taskID)"))
    }

    /// `POST /task/{id}/cancel`: only while the task is running on the server.
    public func cancel(_ taskID: String) async throws -> CancelResponse {
        try await transport.json(CancelResponse.self, .POST, "/task/\(pathComponent(taskID))/cancel", auth: .none)
    }

    /// `GET /task/{id}/checkpoints`.
    public func checkpoints(_ taskID: String) async throws -> [Checkpoint] {
        try await transport.json([Checkpoint].self, .GET, "/task/\(pathComponent(taskID))/checkpoints", auth: .none)
    }

    /// `GET /tasks/active` (optional auth: filtered by app when a key is set).
    public func active() async throws -> [ManagedTask] {
        try await transport.json([ManagedTask].self, .GET, "/tasks/active", auth: .optional)
    }

    /// `GET /tasks/recent?limit=`.
    public func recent(limit: Int = 20) async throws -> [ManagedTask] {
        try await transport.json([ManagedTask].self, .GET, "/tasks/recent", query: [("limit", String(limit))], auth: .optional)
    }

    /// `GET /tasks/stats`.
    public func stats() async throws -> TaskStats {
        try await transport.json(TaskStats.self, .GET, "/tasks/stats", auth: .none)
    }

    /// `POST /task/novel`: the engine composes its own arrangement. (Broken server-side at 1917bde:
    /// the task is accepted but later fails; see README.)
    public func submitNovel(_ request: TaskRequest) async throws -> TaskSubmitResponse {
        try await transport.json(TaskSubmitResponse.self, .POST, "/task/novel", sending: request, auth: .optional)
    }

    /// `POST /task/loop`: the engine designs and runs a new loop type.
    public func submitLoop(_ request: TaskRequest) async throws -> TaskSubmitResponse {
        try await transport.json(TaskSubmitResponse.self, .POST, "/task/loop", sending: request, auth: .optional)
    }

    /// `GET /task/{id}/stream`: Server-Sent Events. Late joiners get the history first; the
    /// sequence ends after `complete` or `error`, or when the server closes the stream. Comments
    /// come through as `.keepalive` so callers can notice a silent task. A non-200 answer throws
    /// `BackendError.http` before any event (callers fall back to polling).
    public func events(_ taskID: String) -> AsyncThrowingStream<LoopSymphonyStreamEvent, any Error> {
        let transport = transport
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await Self.stream(taskID, transport: transport) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    static func stream(_ taskID: String, transport: HTTPTransport,
                       onEvent: (LoopSymphonyStreamEvent) -> Void) async throws {
        for try await frame in transport.eventStream("/task/\(pathComponent(taskID))/stream") {
            switch frame {
            case .comment:
                onEvent(.keepalive)
            case .event(let data, _, _):
                let event = try LoopSymphonyStreamEvent(data: data, fallbackTaskID: taskID)
                onEvent(event)
                if event.isTerminal { return }
            }
        }
    }
}

// MARK: - Plans, loop proposals and saved arrangements

public struct ArrangementService: Sendable {
    let transport: HTTPTransport

    /// `POST /task/plan`: what arrangement the engine would use, without running it.
    public func plan(_ request: TaskRequest) async throws -> ArrangementProposal {
        try await transport.json(ArrangementProposal.self, .POST, "/task/plan", sending: request, auth: .optional)
    }

    /// `POST /task/plan/validate`.
    public func validate(_ proposal: ArrangementProposal) async throws -> ArrangementValidation {
        try await transport.json(ArrangementValidation.self, .POST, "/task/plan/validate", sending: proposal, auth: .none)
    }

    /// `POST /task/loop/propose`.
    public func proposeLoop(_ request: TaskRequest) async throws -> LoopProposal {
        try await transport.json(LoopProposal.self, .POST, "/task/loop/propose", sending: request, auth: .none)
    }

    /// `POST /task/loop/validate`.
    public func validateLoop(_ proposal: LoopProposal) async throws -> LoopProposalValidation {
        try await transport.json(LoopProposalValidation.self, .POST, "/task/loop/validate", sending: proposal, auth: .none)
    }

    /// `POST /task/loop/plan`.
    public func loopPlan(_ proposal: LoopProposal) async throws -> LoopExecutionPlan {
        try await transport.json(LoopExecutionPlan.self, .POST, "/task/loop/plan", sending: proposal, auth: .none)
    }

    /// `GET /arrangements`.
    public func list() async throws -> [SavedArrangement] {
        try await transport.json([SavedArrangement].self, .GET, "/arrangements", auth: .optional)
    }

    /// `POST /arrangements`.
    public func save(_ request: SaveArrangementRequest) async throws -> SavedArrangement {
        try await transport.json(SavedArrangement.self, .POST, "/arrangements", sending: request, auth: .optional)
    }

    /// `GET /arrangements/{id}`.
    public func get(_ id: String) async throws -> SavedArrangement {
        try await transport.json(SavedArrangement.self, .GET, "/arrangements/\(pathComponent(id))", auth: .none)
    }

    /// `DELETE /arrangements/{id}`.
    public func delete(_ id: String) async throws -> DeletedArrangement {
        try await transport.json(DeletedArrangement.self, .DELETE, "/arrangements/\(pathComponent(id))", auth: .none)
    }

    /// `GET /arrangements/suggestion?arrangement_type=composition|loop`. The real server answers
    /// `null` or, at 1917bde, 404 `Arrangement suggestion not found` (the route is shadowed by
    /// `/arrangements/{id}`); both read as nil here.
    public func suggestion(arrangementType: String = "composition") async throws -> ArrangementSuggestion? {
        let response = try await transport.send(.GET, "/arrangements/suggestion", query: [("arrangement_type", arrangementType)], auth: .optional)
        if response.status == 404 { return nil }
        try HTTPTransport.check(response)
        return try HTTPTransport.decode(ArrangementSuggestion?.self, from: response.body, what: "GET /arrangements/suggestion")
    }

    /// `POST /arrangements/from-task/{id}?name=&description=`: saves the arrangement a completed
    /// novel/loop task used. (At 1917bde: 404 unknown task, 400 for a task that was not novel/loop,
    /// otherwise 501 "future enhancement"; the errors are passed on as the server gave them.)
    public func saveFromTask(_ taskID: String, name: String, description: String) async throws -> SavedArrangement {
        try await transport.json(SavedArrangement.self, .POST, "/arrangements/from-task/\(pathComponent(taskID))",
                                 query: [("name", name), ("description", description)], auth: .optional)
    }
}

// MARK: - Trust

public struct TrustService: Sendable {
    let transport: HTTPTransport

    /// `GET /trust/metrics` (API key required).
    public func metrics() async throws -> TrustMetrics {
        try await transport.json(TrustMetrics.self, .GET, "/trust/metrics", auth: .required)
    }

    /// `GET /trust/suggestion`: nil when the server has nothing to suggest (`null`).
    public func suggestion() async throws -> TrustSuggestion? {
        try await transport.json(TrustSuggestion?.self, .GET, "/trust/suggestion", auth: .required)
    }

    /// `PUT /trust/level {"trust_level": n}` → the updated metrics. Levels only change when the
    /// person asks: nothing in this package calls it on its own.
    public func setLevel(_ level: Int) async throws -> TrustMetrics {
        struct Body: Encodable { let trust_level: Int }
        return try await transport.json(TrustMetrics.self, .PUT, "/trust/level", sending: Body(trust_level: level), auth: .required)
    }
}

// MARK: - Knowledge

public struct KnowledgeService: Sendable {
    let transport: HTTPTransport

    /// `GET /knowledge/{capabilities|boundaries|patterns|changelog}`.
    public func file(_ category: KnowledgeCategory) async throws -> KnowledgeFile {
        try await transport.json(KnowledgeFile.self, .GET, "/knowledge/\(pathComponent(category.rawValue))", auth: .none)
    }

    /// `GET /knowledge/user/{user_id}`.
    public func user(_ userID: String) async throws -> UserKnowledge {
        try await transport.json(UserKnowledge.self, .GET, "/knowledge/user/\(pathComponent(userID))", auth: .none)
    }

    /// `POST /knowledge/entries` (source `manual`).
    public func createEntry(_ entry: KnowledgeEntryCreate) async throws -> KnowledgeEntry {
        try await transport.json(KnowledgeEntry.self, .POST, "/knowledge/entries", sending: entry, auth: .none)
    }

    /// `GET /knowledge/entries?category=&source=`.
    public func entries(category: String? = nil, source: String? = nil) async throws -> [KnowledgeEntry] {
        var query: [(String, String)] = []
        if let category { query.append(("category", category)) }
        if let source { query.append(("source", source)) }
        return try await transport.json([KnowledgeEntry].self, .GET, "/knowledge/entries", query: query, auth: .none)
    }

    /// `POST /knowledge/refresh`.
    public func refresh() async throws -> KnowledgeRefreshResult {
        try await transport.json(KnowledgeRefreshResult.self, .POST, "/knowledge/refresh", auth: .none)
    }

    /// `POST /knowledge/learnings`.
    public func reportLearnings(_ report: LearningsReport) async throws -> LearningsAccepted {
        try await transport.json(LearningsAccepted.self, .POST, "/knowledge/learnings", sending: report, auth: .none)
    }

    /// `POST /knowledge/aggregate`.
    public func aggregate() async throws -> AggregationResult {
        try await transport.json(AggregationResult.self, .POST, "/knowledge/aggregate", auth: .none)
    }

    /// `GET /knowledge/sync/status`.
    public func syncStatus() async throws -> KnowledgeSyncStatus {
        try await transport.json(KnowledgeSyncStatus.self, .GET, "/knowledge/sync/status", auth: .none)
    }
}

// MARK: - Rooms

public struct RoomService: Sendable {
    let transport: HTTPTransport

    public func register(_ registration: RoomRegistration) async throws -> RoomRegistered {
        try await transport.json(RoomRegistered.self, .POST, "/rooms/register", sending: registration, auth: .none)
    }

    public func heartbeat(_ heartbeat: RoomHeartbeat) async throws -> RoomHeartbeatResponse {
        try await transport.json(RoomHeartbeatResponse.self, .POST, "/rooms/heartbeat", sending: heartbeat, auth: .none)
    }

    public func deregister(_ roomID: String) async throws -> RoomDeregistered {
        struct Body: Encodable { let room_id: String }
        return try await transport.json(RoomDeregistered.self, .POST, "/rooms/deregister", sending: Body(room_id: roomID), auth: .none)
    }

    public func list() async throws -> RoomList {
        try await transport.json(RoomList.self, .GET, "/rooms", auth: .none)
    }

    public func get(_ roomID: String) async throws -> RoomInfo {
        try await transport.json(RoomInfo.self, .GET, "/rooms/\(pathComponent(roomID))", auth: .none)
    }

    /// `GET /rooms/status`. At 1917bde this path is shadowed by `/rooms/{id}` and answers 404
    /// `Room not found: status`; the error is passed on as the server gave it.
    public func degradationStatus() async throws -> JSONValue {
        try await transport.json(JSONValue.self, .GET, "/rooms/status", auth: .none)
    }
}

// MARK: - Heartbeats (scheduled tasks)

public struct HeartbeatService: Sendable {
    let transport: HTTPTransport

    public func create(_ heartbeat: HeartbeatCreate) async throws -> Heartbeat {
        try await transport.json(Heartbeat.self, .POST, "/heartbeats", sending: heartbeat, auth: .required)
    }

    public func list() async throws -> [Heartbeat] {
        try await transport.json([Heartbeat].self, .GET, "/heartbeats", auth: .required)
    }

    public func get(_ id: String) async throws -> Heartbeat {
        try await transport.json(Heartbeat.self, .GET, "/heartbeats/\(pathComponent(id))", auth: .required)
    }

    public func update(_ id: String, _ update: HeartbeatUpdate) async throws -> Heartbeat {
        try await transport.json(Heartbeat.self, .PATCH, "/heartbeats/\(pathComponent(id))", sending: update, auth: .required)
    }

    /// `DELETE /heartbeats/{id}` → 204.
    public func delete(_ id: String) async throws {
        try await transport.empty(.DELETE, "/heartbeats/\(pathComponent(id))", auth: .required)
    }

    /// `POST /heartbeats/tick` (no auth on the real server; the key is sent anyway, harmlessly).
    public func tick() async throws -> HeartbeatTickResult {
        try await transport.json(HeartbeatTickResult.self, .POST, "/heartbeats/tick", auth: .optional)
    }

    /// `GET /heartbeats/status`.
    public func status() async throws -> HeartbeatStatusList {
        try await transport.json(HeartbeatStatusList.self, .GET, "/heartbeats/status", auth: .optional)
    }
}

// MARK: - Interventions

public struct InterventionService: Sendable {
    let transport: HTTPTransport

    public func status() async throws -> InterventionEngineStatus {
        try await transport.json(InterventionEngineStatus.self, .GET, "/interventions/status", auth: .none)
    }

    public func evaluate(_ request: InterventionEvaluateRequest) async throws -> InterventionEvaluation {
        try await transport.json(InterventionEvaluation.self, .POST, "/interventions/evaluate", sending: request, auth: .none)
    }
}

// MARK: - Health

public struct HealthService: Sendable {
    let transport: HTTPTransport

    public func check() async throws -> HealthStatus {
        try await transport.json(HealthStatus.self, .GET, "/health", auth: .none)
    }

    public func system() async throws -> SystemHealth {
        try await transport.json(SystemHealth.self, .GET, "/health/system", auth: .none)
    }

    public func database() async throws -> DatabaseHealth {
        try await transport.json(DatabaseHealth.self, .GET, "/health/database", auth: .none)
    }
}
