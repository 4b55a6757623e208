import Foundation
import ReceptionCore

/// `POST /task` and `POST /task/{id}/approve` answer. `plan` is present only at trust level 0.
public struct TaskSubmitResponse: Codable, Sendable, Hashable {
    public var taskID: String
    public var status: TaskStatus
    public var message: String
    public var plan: TaskPlan?

    enum CodingKeys: String, CodingKey { case taskID = "task_id", status, message, plan }

    public init(taskID: String, status: TaskStatus, message: String, plan: TaskPlan? = nil) {
        self.taskID = taskID
        self.status = status
        self.message = message
        self.plan = plan
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        taskID = try c.decode(String.self, forKey: .taskID)
        status = try c.decode(TaskStatus.self, forKey: .status)
        message = try c.decodeIfPresent(String.self, forKey: .message) ?? ""
        plan = try c.decodeIfPresent(TaskPlan.self, forKey: .plan)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(taskID, forKey: .taskID)
        try c.encode(status, forKey: .status)
        try c.encode(message, forKey: .message)
        try c.encode(plan, forKey: .plan)  // the server always sends the key, null when absent
    }
}

/// What the engine intends to do, shown to the person before a trust-level-0 task runs.
public struct TaskPlan: Codable, Sendable, Hashable {
    public var taskID: String
    public var query: String
    public var instrument: String
    public var processType: ProcessType
    public var estimatedIterations: Int
    public var description: String
    public var requiresApproval: Bool

    enum CodingKeys: String, CodingKey {
        case taskID = "task_id", query, instrument, processType = "process_type"
        case estimatedIterations = "estimated_iterations", description, requiresApproval = "requires_approval"
    }

    public init(taskID: String, query: String, instrument: String, processType: ProcessType,
                estimatedIterations: Int, description: String, requiresApproval: Bool = true) {
        self.taskID = taskID
        self.query = query
        self.instrument = instrument
        self.processType = processType
        self.estimatedIterations = estimatedIterations
        self.description = description
        self.requiresApproval = requiresApproval
    }
}

/// `GET /task/{id}` while the task is not finished.
public struct TaskPendingResponse: Codable, Sendable, Hashable {
    public var taskID: String
    public var status: TaskStatus
    public var progress: String?
    public var startedAt: String?

    enum CodingKeys: String, CodingKey { case taskID = "task_id", status, progress, startedAt = "started_at" }

    public init(taskID: String, status: TaskStatus, progress: String? = nil, startedAt: String? = nil) {
        self.taskID = taskID
        self.status = status
        self.progress = progress
        self.startedAt = startedAt
    }
}

/// The final result of a task: personality-agnostic, to be wrapped by the soul before display.
public struct TaskResponse: Codable, Sendable, Hashable {
    public var requestID: String
    public var outcome: Outcome
    public var findings: [TaskFinding]
    public var summary: String
    public var confidence: Double
    public var metadata: ExecutionMetadata
    public var discrepancy: String?
    public var suggestedFollowups: [String]

    enum CodingKeys: String, CodingKey {
        case requestID = "request_id", outcome, findings, summary, confidence, metadata, discrepancy
        case suggestedFollowups = "suggested_followups"
    }

    public init(requestID: String, outcome: Outcome, findings: [TaskFinding], summary: String, confidence: Double,
                metadata: ExecutionMetadata, discrepancy: String? = nil, suggestedFollowups: [String] = []) {
        self.requestID = requestID
        self.outcome = outcome
        self.findings = findings
        self.summary = summary
        self.confidence = confidence
        self.metadata = metadata
        self.discrepancy = discrepancy
        self.suggestedFollowups = suggestedFollowups
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requestID = try c.decode(String.self, forKey: .requestID)
        outcome = try c.decode(Outcome.self, forKey: .outcome)
        findings = try c.decodeIfPresent([TaskFinding].self, forKey: .findings) ?? []
        summary = try c.decodeIfPresent(String.self, forKey: .summary) ?? ""
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence) ?? 0
        metadata = try c.decodeIfPresent(ExecutionMetadata.self, forKey: .metadata) ?? ExecutionMetadata()
        discrepancy = try c.decodeIfPresent(String.self, forKey: .discrepancy)
        suggestedFollowups = try c.decodeIfPresent([String].self, forKey: .suggestedFollowups) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(requestID, forKey: .requestID)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(findings, forKey: .findings)
        try c.encode(summary, forKey: .summary)
        try c.encode(confidence, forKey: .confidence)
        try c.encode(metadata, forKey: .metadata)
        try c.encode(discrepancy, forKey: .discrepancy)
        try c.encode(suggestedFollowups, forKey: .suggestedFollowups)
    }

    /// `suggested_followups` split into plain follow-ups and typed interventions.
    public var followups: [SuggestedFollowup] { suggestedFollowups.map(SuggestedFollowup.init(parsing:)) }
}

/// One piece of evidence behind a result, as the server sends it.
public struct TaskFinding: Codable, Sendable, Hashable {
    public var content: String
    public var source: String?
    public var confidence: Double
    public var timestamp: String

    public init(content: String, source: String? = nil, confidence: Double = 1.0, timestamp: String = Wire.timestamp()) {
        self.content = content
        self.source = source
        self.confidence = confidence
        self.timestamp = timestamp
    }

    enum CodingKeys: String, CodingKey { case content, source, confidence, timestamp }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        content = try c.decode(String.self, forKey: .content)
        source = try c.decodeIfPresent(String.self, forKey: .source)
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence) ?? 1.0
        // The guide says string; accept a number of Unix seconds too.
        if let text = try? c.decodeIfPresent(String.self, forKey: .timestamp) {
            timestamp = text
        } else if let seconds = try? c.decodeIfPresent(Double.self, forKey: .timestamp) {
            timestamp = Wire.timestamp(Date(timeIntervalSince1970: seconds))
        } else {
            timestamp = ""
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(content, forKey: .content)
        try c.encode(source, forKey: .source)
        try c.encode(confidence, forKey: .confidence)
        try c.encode(timestamp, forKey: .timestamp)
    }
}

/// How the engine produced a result.
public struct ExecutionMetadata: Codable, Sendable, Hashable {
    public var instrumentUsed: String
    public var iterations: Int
    public var durationMS: Int
    public var sourcesConsulted: [String]
    public var processType: ProcessType
    public var roomID: String?
    /// Free-form: the shape is server-internal and changes; kept as arbitrary JSON.
    public var failoverEvents: [JSONValue]

    enum CodingKeys: String, CodingKey {
        case instrumentUsed = "instrument_used", iterations, durationMS = "duration_ms"
        case sourcesConsulted = "sources_consulted", processType = "process_type", roomID = "room_id"
        case failoverEvents = "failover_events"
    }

    public init(instrumentUsed: String = "", iterations: Int = 0, durationMS: Int = 0, sourcesConsulted: [String] = [],
                processType: ProcessType = .autonomic, roomID: String? = nil, failoverEvents: [JSONValue] = []) {
        self.instrumentUsed = instrumentUsed
        self.iterations = iterations
        self.durationMS = durationMS
        self.sourcesConsulted = sourcesConsulted
        self.processType = processType
        self.roomID = roomID
        self.failoverEvents = failoverEvents
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        instrumentUsed = try c.decodeIfPresent(String.self, forKey: .instrumentUsed) ?? ""
        iterations = try c.decodeIfPresent(Int.self, forKey: .iterations) ?? 0
        durationMS = try c.decodeIfPresent(Int.self, forKey: .durationMS) ?? 0
        sourcesConsulted = try c.decodeIfPresent([String].self, forKey: .sourcesConsulted) ?? []
        processType = try c.decodeIfPresent(ProcessType.self, forKey: .processType) ?? .autonomic
        roomID = try c.decodeIfPresent(String.self, forKey: .roomID)
        failoverEvents = try c.decodeIfPresent([JSONValue].self, forKey: .failoverEvents) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(instrumentUsed, forKey: .instrumentUsed)
        try c.encode(iterations, forKey: .iterations)
        try c.encode(durationMS, forKey: .durationMS)
        try c.encode(sourcesConsulted, forKey: .sourcesConsulted)
        try c.encode(processType, forKey: .processType)
        try c.encode(roomID, forKey: .roomID)
        try c.encode(failoverEvents, forKey: .failoverEvents)
    }
}
