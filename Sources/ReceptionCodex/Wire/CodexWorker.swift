import Foundation
import ReceptionCore

/// A worker's lifecycle status, as the runtime reports it (open to values added later).
public enum CodexWorkerStatus: OpenEnum {
    case starting, running, stopping, stopped, failed
    case unknown(String)

    public static let knownCases: [CodexWorkerStatus] = [.starting, .running, .stopping, .stopped, .failed]

    public var rawValue: String {
        switch self {
        case .starting: "starting"
        case .running: "running"
        case .stopping: "stopping"
        case .stopped: "stopped"
        case .failed: "failed"
        case .unknown(let raw): raw
        }
    }
}

/// A worker as `GET /workers` lists it and `GET /workers/{id}` snapshots it (snake_case,
/// inside `data`). The list adds `convex_projection`; a snapshot has none.
///
/// Laravel re-encodes the runtime's JSON, so an empty `metadata` object arrives as `[]`:
/// it decodes as an empty object. Everything but `worker_id` is optional, so a runtime that
/// adds or drops a field does not make the whole answer unreadable.
public struct CodexWorker: Sendable, Hashable, Codable {
    public var workerID: String
    public var status: CodexWorkerStatus
    public var latestSeq: Int
    public var workspaceRef: String?
    public var codexHomeRef: String?
    public var adapter: String?
    public var metadata: [String: JSONValue]
    public var startedAt: String?
    public var stoppedAt: String?
    public var updatedAt: String?
    public var lastHeartbeatAt: String?
    public var heartbeatAgeMS: Int?
    public var heartbeatStaleAfterMS: Int?
    /// fresh, stale, missing, stopped or failed.
    public var heartbeatState: String?
    public var convexProjection: CodexProjection?

    public init(workerID: String, status: CodexWorkerStatus, latestSeq: Int, workspaceRef: String? = nil, codexHomeRef: String? = nil,
                adapter: String? = nil, metadata: [String: JSONValue] = [:], startedAt: String? = nil, stoppedAt: String? = nil,
                updatedAt: String? = nil, lastHeartbeatAt: String? = nil, heartbeatAgeMS: Int? = nil,
                heartbeatStaleAfterMS: Int? = nil, heartbeatState: String? = nil, convexProjection: CodexProjection? = nil) {
        self.workerID = workerID
        self.status = status
        self.latestSeq = latestSeq
        self.workspaceRef = workspaceRef
        self.codexHomeRef = codexHomeRef
        self.adapter = adapter
        self.metadata = metadata
        self.startedAt = startedAt
        self.stoppedAt = stoppedAt
        self.updatedAt = updatedAt
        self.lastHeartbeatAt = lastHeartbeatAt
        self.heartbeatAgeMS = heartbeatAgeMS
        self.heartbeatStaleAfterMS = heartbeatStaleAfterMS
        self.heartbeatState = heartbeatState
        self.convexProjection = convexProjection
    }

    enum CodingKeys: String, CodingKey {
        case workerID = "worker_id", status, latestSeq = "latest_seq", workspaceRef = "workspace_ref"
        case codexHomeRef = "codex_home_ref", adapter, metadata, startedAt = "started_at", stoppedAt = "stopped_at"
        case updatedAt = "updated_at", lastHeartbeatAt = "last_heartbeat_at", heartbeatAgeMS = "heartbeat_age_ms"
        case heartbeatStaleAfterMS = "heartbeat_stale_after_ms", heartbeatState = "heartbeat_state"
        case convexProjection = "convex_projection"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        workerID = try c.decode(String.self, forKey: .workerID)
        status = try c.decodeIfPresent(CodexWorkerStatus.self, forKey: .status) ?? .unknown("unknown")
        latestSeq = try c.decodeIfPresent(Int.self, forKey: .latestSeq) ?? 0
        workspaceRef = try c.decodeIfPresent(String.self, forKey: .workspaceRef)
        codexHomeRef = try c.decodeIfPresent(String.self, forKey: .codexHomeRef)
        adapter = try c.decodeIfPresent(String.self, forKey: .adapter)
        metadata = (try c.decodeIfPresent(JSONValue.self, forKey: .metadata)).map(CodexJSON.object) ?? [:]
        startedAt = try c.decodeIfPresent(String.self, forKey: .startedAt)
        stoppedAt = try c.decodeIfPresent(String.self, forKey: .stoppedAt)
        updatedAt = try c.decodeIfPresent(String.self, forKey: .updatedAt)
        lastHeartbeatAt = try c.decodeIfPresent(String.self, forKey: .lastHeartbeatAt)
        heartbeatAgeMS = try c.decodeIfPresent(Int.self, forKey: .heartbeatAgeMS)
        heartbeatStaleAfterMS = try c.decodeIfPresent(Int.self, forKey: .heartbeatStaleAfterMS)
        heartbeatState = try c.decodeIfPresent(String.self, forKey: .heartbeatState)
        convexProjection = try c.decodeIfPresent(CodexProjection.self, forKey: .convexProjection)
    }
}

/// The read model's view of a worker (list only): how far the projection lags the runtime.
public struct CodexProjection: Sendable, Hashable, Codable {
    public var lastRuntimeSeq: Int?
    public var lagEvents: Int?
    /// in_sync or lagging.
    public var status: String?

    enum CodingKeys: String, CodingKey {
        case lastRuntimeSeq = "last_runtime_seq", lagEvents = "lag_events", status
    }
}

/// Helpers for the free-form JSON the Laravel proxy re-encodes.
enum CodexJSON {
    /// An object, or empty: PHP writes an empty object as `[]`.
    static func object(_ value: JSONValue) -> [String: JSONValue] {
        if case .object(let object) = value { return object }
        return [:]
    }
}
