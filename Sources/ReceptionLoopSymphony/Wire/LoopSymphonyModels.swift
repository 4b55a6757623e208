import Foundation
import ReceptionCore

// Loop Symphony shapes beyond the core task contract, as the server at 1917bde sends them
// (upstream-contracts §1.4–1.6). Every key is spelled in explicit CodingKeys; no key strategy
// applies, so free-form JSON (`JSONValue`) keeps its keys exactly as sent. Optional fields
// decode as optional so the guide's variant and the server's both read.

// MARK: - Tasks

/// `POST /task/{id}/cancel` answer: `{"task_id","status":"cancelling","message"}` (the guide omits `message`).
public struct CancelResponse: Codable, Sendable, Hashable {
    public var taskID: String
    public var status: String
    public var message: String?
    enum CodingKeys: String, CodingKey { case taskID = "task_id", status, message }
    public init(taskID: String, status: String = "cancelling", message: String? = nil) {
        self.taskID = taskID; self.status = status; self.message = message
    }
}

/// One row of `GET /task/{id}/checkpoints` (raw `task_iterations` rows).
public struct Checkpoint: Codable, Sendable, Hashable {
    public var id: String?
    public var taskID: String
    public var iterationNum: Int
    public var phase: String
    public var input: JSONValue?
    public var output: JSONValue?
    public var durationMS: Int?
    public var createdAt: String?
    enum CodingKeys: String, CodingKey {
        case id, taskID = "task_id", iterationNum = "iteration_num", phase, input, output
        case durationMS = "duration_ms", createdAt = "created_at"
    }
    public init(id: String? = nil, taskID: String, iterationNum: Int, phase: String, input: JSONValue? = nil,
                output: JSONValue? = nil, durationMS: Int? = nil, createdAt: String? = nil) {
        self.id = id; self.taskID = taskID; self.iterationNum = iterationNum; self.phase = phase
        self.input = input; self.output = output; self.durationMS = durationMS; self.createdAt = createdAt
    }
}

/// An item of `GET /tasks/active` and `GET /tasks/recent` (the server's in-memory TaskManager).
public struct ManagedTask: Codable, Sendable, Hashable {
    public var taskID: String
    public var query: String
    public var instrument: String?
    /// `queued|running|cancelling|cancelled|completed|failed` (TaskManager states, not TaskStatus).
    public var state: String
    public var startedAt: String?
    public var progress: String?
    public var currentIteration: Int?
    public var maxIterations: Int?
    public var appID: String?
    public var userID: String?
    public var createdAt: String?
    public var runningSeconds: Double?
    enum CodingKeys: String, CodingKey {
        case taskID = "task_id", query, instrument, state, startedAt = "started_at", progress
        case currentIteration = "current_iteration", maxIterations = "max_iterations", appID = "app_id"
        case userID = "user_id", createdAt = "created_at", runningSeconds = "running_seconds"
    }
    public init(taskID: String, query: String, instrument: String?, state: String, startedAt: String?, progress: String?,
                currentIteration: Int?, maxIterations: Int?, appID: String?, userID: String?, createdAt: String?, runningSeconds: Double?) {
        self.taskID = taskID; self.query = query; self.instrument = instrument; self.state = state
        self.startedAt = startedAt; self.progress = progress; self.currentIteration = currentIteration
        self.maxIterations = maxIterations; self.appID = appID; self.userID = userID; self.createdAt = createdAt
        self.runningSeconds = runningSeconds
    }
}

/// `GET /tasks/stats`.
public struct TaskStats: Codable, Sendable, Hashable {
    public var activeCount: Int
    public var totalCount: Int
    enum CodingKeys: String, CodingKey { case activeCount = "active_count", totalCount = "total_count" }
    public init(activeCount: Int, totalCount: Int) { self.activeCount = activeCount; self.totalCount = totalCount }
}

/// What `GET /task/{id}` answers: the result, or where the task is.
public enum TaskState: Sendable, Hashable {
    case finished(TaskResponse)
    case inProgress(TaskPendingResponse)
}

// MARK: - Arrangements and loop proposals (models/arrangement.py, loop_proposal.py, saved_arrangement.py)

public struct ArrangementStep: Codable, Sendable, Hashable {
    public var instrument: String
    public var config: JSONValue?
    public init(instrument: String, config: JSONValue? = nil) { self.instrument = instrument; self.config = config }
}

/// `POST /task/plan` answer and `POST /task/plan/validate` body.
public struct ArrangementProposal: Codable, Sendable, Hashable {
    /// `single | sequential | parallel`
    public var type: String
    public var rationale: String
    public var terminationCriteria: String
    public var steps: [ArrangementStep]?
    public var branches: [String]?
    public var mergeInstrument: String?
    public var timeoutSeconds: Double?
    public var instrument: String?
    enum CodingKeys: String, CodingKey {
        case type, rationale, terminationCriteria = "termination_criteria", steps, branches
        case mergeInstrument = "merge_instrument", timeoutSeconds = "timeout_seconds", instrument
    }
    public init(type: String, rationale: String, terminationCriteria: String, steps: [ArrangementStep]? = nil,
                branches: [String]? = nil, mergeInstrument: String? = "synthesis", timeoutSeconds: Double? = nil, instrument: String? = nil) {
        self.type = type; self.rationale = rationale; self.terminationCriteria = terminationCriteria; self.steps = steps
        self.branches = branches; self.mergeInstrument = mergeInstrument; self.timeoutSeconds = timeoutSeconds; self.instrument = instrument
    }
}

/// `POST /task/plan/validate` answer.
public struct ArrangementValidation: Codable, Sendable, Hashable {
    public var valid: Bool
    public var errors: [String]
    public var warnings: [String]
    public init(valid: Bool, errors: [String] = [], warnings: [String] = []) { self.valid = valid; self.errors = errors; self.warnings = warnings }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        valid = try c.decode(Bool.self, forKey: .valid)
        errors = try c.decodeIfPresent([String].self, forKey: .errors) ?? []
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
    }
    enum CodingKeys: String, CodingKey { case valid, errors, warnings }
}

public struct LoopPhase: Codable, Sendable, Hashable {
    public var name: String
    public var description: String
    /// `instrument | prompt | spawn`
    public var action: String?
    public var instrument: String?
    public var promptTemplate: String?
    public var maxIterations: Int?
    enum CodingKeys: String, CodingKey {
        case name, description, action, instrument, promptTemplate = "prompt_template", maxIterations = "max_iterations"
    }
    public init(name: String, description: String, action: String? = "prompt", instrument: String? = nil,
                promptTemplate: String? = nil, maxIterations: Int? = 1) {
        self.name = name; self.description = description; self.action = action; self.instrument = instrument
        self.promptTemplate = promptTemplate; self.maxIterations = maxIterations
    }
}

/// `POST /task/loop/propose` answer; body of `/task/loop/validate` and `/task/loop/plan`.
public struct LoopProposal: Codable, Sendable, Hashable {
    public var name: String
    public var description: String
    public var phases: [LoopPhase]
    public var terminationCriteria: String
    public var maxTotalIterations: Int?
    public var requiredCapabilities: [String]?
    public var scientificMethodPhases: [String]?
    enum CodingKeys: String, CodingKey {
        case name, description, phases, terminationCriteria = "termination_criteria"
        case maxTotalIterations = "max_total_iterations", requiredCapabilities = "required_capabilities"
        case scientificMethodPhases = "scientific_method_phases"
    }
    public init(name: String, description: String, phases: [LoopPhase], terminationCriteria: String,
                maxTotalIterations: Int? = 10, requiredCapabilities: [String]? = ["reasoning"],
                scientificMethodPhases: [String]? = ["hypothesize", "gather", "analyze", "synthesize"]) {
        self.name = name; self.description = description; self.phases = phases; self.terminationCriteria = terminationCriteria
        self.maxTotalIterations = maxTotalIterations; self.requiredCapabilities = requiredCapabilities
        self.scientificMethodPhases = scientificMethodPhases
    }
}

public struct LoopProposalValidation: Codable, Sendable, Hashable {
    public var valid: Bool
    public var errors: [String]
    public var warnings: [String]
    public var scientificMethodCoverage: [String: Bool]
    enum CodingKeys: String, CodingKey { case valid, errors, warnings, scientificMethodCoverage = "scientific_method_coverage" }
    public init(valid: Bool, errors: [String] = [], warnings: [String] = [], scientificMethodCoverage: [String: Bool] = [:]) {
        self.valid = valid; self.errors = errors; self.warnings = warnings; self.scientificMethodCoverage = scientificMethodCoverage
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        valid = try c.decode(Bool.self, forKey: .valid)
        errors = try c.decodeIfPresent([String].self, forKey: .errors) ?? []
        warnings = try c.decodeIfPresent([String].self, forKey: .warnings) ?? []
        scientificMethodCoverage = try c.decodeIfPresent([String: Bool].self, forKey: .scientificMethodCoverage) ?? [:]
    }
}

/// `POST /task/loop/plan` answer (the trust-level-0 view of a loop proposal).
public struct LoopExecutionPlan: Codable, Sendable, Hashable {
    public var proposal: LoopProposal
    public var validation: LoopProposalValidation
    public var estimatedIterations: Int
    public var estimatedDurationSeconds: Int
    public var requiresApproval: Bool
    enum CodingKeys: String, CodingKey {
        case proposal, validation, estimatedIterations = "estimated_iterations"
        case estimatedDurationSeconds = "estimated_duration_seconds", requiresApproval = "requires_approval"
    }
    public init(proposal: LoopProposal, validation: LoopProposalValidation, estimatedIterations: Int,
                estimatedDurationSeconds: Int, requiresApproval: Bool = true) {
        self.proposal = proposal; self.validation = validation; self.estimatedIterations = estimatedIterations
        self.estimatedDurationSeconds = estimatedDurationSeconds; self.requiresApproval = requiresApproval
    }
}

public struct ArrangementStats: Codable, Sendable, Hashable {
    public var totalExecutions: Int
    public var successfulExecutions: Int
    public var averageConfidence: Double
    public var averageDurationMS: Double
    public var lastExecutedAt: String?
    enum CodingKeys: String, CodingKey {
        case totalExecutions = "total_executions", successfulExecutions = "successful_executions"
        case averageConfidence = "average_confidence", averageDurationMS = "average_duration_ms", lastExecutedAt = "last_executed_at"
    }
    public init(totalExecutions: Int = 0, successfulExecutions: Int = 0, averageConfidence: Double = 0,
                averageDurationMS: Double = 0, lastExecutedAt: String? = nil) {
        self.totalExecutions = totalExecutions; self.successfulExecutions = successfulExecutions
        self.averageConfidence = averageConfidence; self.averageDurationMS = averageDurationMS; self.lastExecutedAt = lastExecutedAt
    }
}

/// A saved arrangement (`GET /arrangements`, `GET /arrangements/{id}`).
public struct SavedArrangement: Codable, Sendable, Hashable {
    public var id: String
    public var appID: String?
    public var name: String
    public var description: String
    /// `composition | loop`
    public var arrangementType: String
    public var compositionSpec: ArrangementProposal?
    public var loopSpec: LoopProposal?
    public var queryPatterns: [String]
    public var tags: [String]
    public var stats: ArrangementStats?
    public var createdAt: String?
    public var updatedAt: String?
    public var isActive: Bool?
    enum CodingKeys: String, CodingKey {
        case id, appID = "app_id", name, description, arrangementType = "arrangement_type"
        case compositionSpec = "composition_spec", loopSpec = "loop_spec", queryPatterns = "query_patterns", tags, stats
        case createdAt = "created_at", updatedAt = "updated_at", isActive = "is_active"
    }
    public init(id: String, appID: String? = nil, name: String, description: String, arrangementType: String,
                compositionSpec: ArrangementProposal? = nil, loopSpec: LoopProposal? = nil, queryPatterns: [String] = [],
                tags: [String] = [], stats: ArrangementStats? = ArrangementStats(), createdAt: String? = nil,
                updatedAt: String? = nil, isActive: Bool? = true) {
        self.id = id; self.appID = appID; self.name = name; self.description = description; self.arrangementType = arrangementType
        self.compositionSpec = compositionSpec; self.loopSpec = loopSpec; self.queryPatterns = queryPatterns; self.tags = tags
        self.stats = stats; self.createdAt = createdAt; self.updatedAt = updatedAt; self.isActive = isActive
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        appID = try c.decodeIfPresent(String.self, forKey: .appID)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        arrangementType = try c.decodeIfPresent(String.self, forKey: .arrangementType) ?? "composition"
        compositionSpec = try c.decodeIfPresent(ArrangementProposal.self, forKey: .compositionSpec)
        loopSpec = try c.decodeIfPresent(LoopProposal.self, forKey: .loopSpec)
        queryPatterns = try c.decodeIfPresent([String].self, forKey: .queryPatterns) ?? []
        tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
        stats = try c.decodeIfPresent(ArrangementStats.self, forKey: .stats)
        createdAt = try c.decodeIfPresent(String.self, forKey: .createdAt)
        updatedAt = try c.decodeIfPresent(String.self, forKey: .updatedAt)
        isActive = try c.decodeIfPresent(Bool.self, forKey: .isActive)
    }
}

/// `POST /arrangements` body.
public struct SaveArrangementRequest: Codable, Sendable, Hashable {
    public var name: String
    public var description: String
    public var queryPatterns: [String]
    public var tags: [String]
    public var compositionSpec: ArrangementProposal?
    public var loopSpec: LoopProposal?
    enum CodingKeys: String, CodingKey {
        case name, description, queryPatterns = "query_patterns", tags, compositionSpec = "composition_spec", loopSpec = "loop_spec"
    }
    public init(name: String, description: String, queryPatterns: [String] = [], tags: [String] = [],
                compositionSpec: ArrangementProposal? = nil, loopSpec: LoopProposal? = nil) {
        self.name = name; self.description = description; self.queryPatterns = queryPatterns; self.tags = tags
        self.compositionSpec = compositionSpec; self.loopSpec = loopSpec
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decode(String.self, forKey: .description)
        queryPatterns = try c.decodeIfPresent([String].self, forKey: .queryPatterns) ?? []
        tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
        compositionSpec = try c.decodeIfPresent(ArrangementProposal.self, forKey: .compositionSpec)
        loopSpec = try c.decodeIfPresent(LoopProposal.self, forKey: .loopSpec)
    }
}

/// `GET /arrangements/suggestion` answer (at 1917bde the path is shadowed by `/arrangements/{id}` and
/// answers 404; the client reports that as "no suggestion").
public struct ArrangementSuggestion: Codable, Sendable, Hashable {
    public var arrangementType: String
    public var compositionSpec: ArrangementProposal?
    public var loopSpec: LoopProposal?
    public var reason: String
    public var confidence: Double
    public var successRate: Double
    public var executionCount: Int
    public var suggestedName: String
    public var suggestedDescription: String
    public var suggestedPatterns: [String]?
    enum CodingKeys: String, CodingKey {
        case arrangementType = "arrangement_type", compositionSpec = "composition_spec", loopSpec = "loop_spec", reason, confidence
        case successRate = "success_rate", executionCount = "execution_count", suggestedName = "suggested_name"
        case suggestedDescription = "suggested_description", suggestedPatterns = "suggested_patterns"
    }
}

/// `DELETE /arrangements/{id}` answer.
public struct DeletedArrangement: Codable, Sendable, Hashable {
    public var status: String
    public var id: String
}

// MARK: - Trust (models/trust.py)

public struct TrustMetrics: Codable, Sendable, Hashable {
    public var appID: String
    public var userID: String?
    public var totalTasks: Int
    public var successfulTasks: Int
    public var failedTasks: Int
    public var consecutiveSuccesses: Int
    public var currentTrustLevel: Int
    public var lastTaskAt: String?
    public var createdAt: String?
    public var updatedAt: String?
    enum CodingKeys: String, CodingKey {
        case appID = "app_id", userID = "user_id", totalTasks = "total_tasks", successfulTasks = "successful_tasks"
        case failedTasks = "failed_tasks", consecutiveSuccesses = "consecutive_successes"
        case currentTrustLevel = "current_trust_level", lastTaskAt = "last_task_at", createdAt = "created_at", updatedAt = "updated_at"
    }
    public init(appID: String, userID: String? = nil, totalTasks: Int = 0, successfulTasks: Int = 0, failedTasks: Int = 0,
                consecutiveSuccesses: Int = 0, currentTrustLevel: Int = 0, lastTaskAt: String? = nil,
                createdAt: String? = nil, updatedAt: String? = nil) {
        self.appID = appID; self.userID = userID; self.totalTasks = totalTasks; self.successfulTasks = successfulTasks
        self.failedTasks = failedTasks; self.consecutiveSuccesses = consecutiveSuccesses; self.currentTrustLevel = currentTrustLevel
        self.lastTaskAt = lastTaskAt; self.createdAt = createdAt; self.updatedAt = updatedAt
    }
    public var successRate: Double { totalTasks == 0 ? 0 : Double(successfulTasks) / Double(totalTasks) }
}

public struct TrustSuggestion: Codable, Sendable, Hashable {
    public var currentLevel: Int
    public var suggestedLevel: Int
    public var reason: String
    public var metrics: TrustMetrics?
    enum CodingKeys: String, CodingKey { case currentLevel = "current_level", suggestedLevel = "suggested_level", reason, metrics }
    public init(currentLevel: Int, suggestedLevel: Int, reason: String, metrics: TrustMetrics?) {
        self.currentLevel = currentLevel; self.suggestedLevel = suggestedLevel; self.reason = reason; self.metrics = metrics
    }
}

// MARK: - Knowledge (models/knowledge.py, knowledge_sync.py)

public struct KnowledgeEntry: Codable, Sendable, Hashable {
    public var id: String
    public var category: String
    public var title: String
    public var content: String
    public var source: String?
    public var confidence: Double?
    public var version: Int?
    public var userID: String?
    public var tags: [String]
    public var isActive: Bool?
    public var createdAt: String?
    public var updatedAt: String?
    enum CodingKeys: String, CodingKey {
        case id, category, title, content, source, confidence, version, userID = "user_id", tags
        case isActive = "is_active", createdAt = "created_at", updatedAt = "updated_at"
    }
    public init(id: String, category: String, title: String, content: String, source: String? = nil, confidence: Double? = 1.0,
                version: Int? = nil, userID: String? = nil, tags: [String] = [], isActive: Bool? = true,
                createdAt: String? = nil, updatedAt: String? = nil) {
        self.id = id; self.category = category; self.title = title; self.content = content; self.source = source
        self.confidence = confidence; self.version = version; self.userID = userID; self.tags = tags; self.isActive = isActive
        self.createdAt = createdAt; self.updatedAt = updatedAt
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        category = try c.decode(String.self, forKey: .category)
        title = try c.decodeIfPresent(String.self, forKey: .title) ?? ""
        content = try c.decodeIfPresent(String.self, forKey: .content) ?? ""
        source = try c.decodeIfPresent(String.self, forKey: .source)
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence)
        version = try c.decodeIfPresent(Int.self, forKey: .version)
        userID = try c.decodeIfPresent(String.self, forKey: .userID)
        tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
        isActive = try c.decodeIfPresent(Bool.self, forKey: .isActive)
        createdAt = try c.decodeIfPresent(String.self, forKey: .createdAt)
        updatedAt = try c.decodeIfPresent(String.self, forKey: .updatedAt)
    }
}

/// `GET /knowledge/{capabilities|boundaries|patterns|changelog}`.
public struct KnowledgeFile: Codable, Sendable, Hashable {
    public var category: String
    public var title: String
    public var markdown: String
    public var entries: [KnowledgeEntry]
    public var lastUpdated: String?
    enum CodingKeys: String, CodingKey { case category, title, markdown, entries, lastUpdated = "last_updated" }
    public init(category: String, title: String, markdown: String, entries: [KnowledgeEntry], lastUpdated: String?) {
        self.category = category; self.title = title; self.markdown = markdown; self.entries = entries; self.lastUpdated = lastUpdated
    }
}

/// `GET /knowledge/user/{user_id}`.
public struct UserKnowledge: Codable, Sendable, Hashable {
    public var userID: String
    public var trustLevel: Int?
    public var totalTasks: Int?
    public var successRate: Double?
    public var preferredPatterns: [String]?
    public var entries: [KnowledgeEntry]
    public var markdown: String?
    enum CodingKeys: String, CodingKey {
        case userID = "user_id", trustLevel = "trust_level", totalTasks = "total_tasks", successRate = "success_rate"
        case preferredPatterns = "preferred_patterns", entries, markdown
    }
    public init(userID: String, trustLevel: Int?, totalTasks: Int?, successRate: Double?, preferredPatterns: [String]?,
                entries: [KnowledgeEntry], markdown: String?) {
        self.userID = userID; self.trustLevel = trustLevel; self.totalTasks = totalTasks; self.successRate = successRate
        self.preferredPatterns = preferredPatterns; self.entries = entries; self.markdown = markdown
    }
}

/// `POST /knowledge/entries` body.
public struct KnowledgeEntryCreate: Codable, Sendable, Hashable {
    public var category: String
    public var title: String
    public var content: String
    public var confidence: Double?
    public var userID: String?
    public var tags: [String]?
    enum CodingKeys: String, CodingKey { case category, title, content, confidence, userID = "user_id", tags }
    public init(category: String, title: String, content: String, confidence: Double? = nil, userID: String? = nil, tags: [String]? = nil) {
        self.category = category; self.title = title; self.content = content; self.confidence = confidence
        self.userID = userID; self.tags = tags
    }
}

/// `POST /knowledge/refresh` answer.
public struct KnowledgeRefreshResult: Codable, Sendable, Hashable {
    public var entriesCreated: Int
    public var entriesUpdated: Int
    public var entriesRemoved: Int
    public var sourcesRefreshed: [String]
    enum CodingKeys: String, CodingKey {
        case entriesCreated = "entries_created", entriesUpdated = "entries_updated"
        case entriesRemoved = "entries_removed", sourcesRefreshed = "sources_refreshed"
    }
    public init(entriesCreated: Int, entriesUpdated: Int, entriesRemoved: Int, sourcesRefreshed: [String]) {
        self.entriesCreated = entriesCreated; self.entriesUpdated = entriesUpdated
        self.entriesRemoved = entriesRemoved; self.sourcesRefreshed = sourcesRefreshed
    }
}

/// One observation a room reports (`POST /knowledge/learnings`).
public struct RoomLearning: Codable, Sendable, Hashable {
    public var category: String
    public var title: String
    public var content: String
    public var confidence: Double
    public var tags: [String]
    public var roomID: String
    public var observedAt: String?
    enum CodingKeys: String, CodingKey { case category, title, content, confidence, tags, roomID = "room_id", observedAt = "observed_at" }
    public init(category: String, title: String, content: String, confidence: Double = 0.5, tags: [String] = [],
                roomID: String, observedAt: String? = nil) {
        self.category = category; self.title = title; self.content = content; self.confidence = confidence
        self.tags = tags; self.roomID = roomID; self.observedAt = observedAt
    }
}

public struct LearningsReport: Codable, Sendable, Hashable {
    public var roomID: String
    public var learnings: [RoomLearning]
    enum CodingKeys: String, CodingKey { case roomID = "room_id", learnings }
    public init(roomID: String, learnings: [RoomLearning]) { self.roomID = roomID; self.learnings = learnings }
}

public struct LearningsAccepted: Codable, Sendable, Hashable {
    public var accepted: Int
    public var roomID: String
    enum CodingKeys: String, CodingKey { case accepted, roomID = "room_id" }
    public init(accepted: Int, roomID: String) { self.accepted = accepted; self.roomID = roomID }
}

public struct AggregationResult: Codable, Sendable, Hashable {
    public var entriesCreated: Int
    public var entriesUpdated: Int
    public var learningsProcessed: Int
    enum CodingKeys: String, CodingKey {
        case entriesCreated = "entries_created", entriesUpdated = "entries_updated", learningsProcessed = "learnings_processed"
    }
    public init(entriesCreated: Int, entriesUpdated: Int, learningsProcessed: Int) {
        self.entriesCreated = entriesCreated; self.entriesUpdated = entriesUpdated; self.learningsProcessed = learningsProcessed
    }
}

public struct KnowledgeSyncStatus: Codable, Sendable, Hashable {
    public struct Room: Codable, Sendable, Hashable {
        public var roomID: String
        public var lastSyncedVersion: Int
        public var lastSyncAt: String?
        enum CodingKeys: String, CodingKey { case roomID = "room_id", lastSyncedVersion = "last_synced_version", lastSyncAt = "last_sync_at" }
        public init(roomID: String, lastSyncedVersion: Int, lastSyncAt: String?) {
            self.roomID = roomID; self.lastSyncedVersion = lastSyncedVersion; self.lastSyncAt = lastSyncAt
        }
    }
    public var serverVersion: Int
    public var rooms: [Room]
    enum CodingKeys: String, CodingKey { case serverVersion = "server_version", rooms }
    public init(serverVersion: Int, rooms: [Room]) { self.serverVersion = serverVersion; self.rooms = rooms }
}

// MARK: - Rooms (manager/room_registry.py)

public struct RoomRegistration: Codable, Sendable, Hashable {
    public var roomID: String
    public var roomName: String
    public var roomType: String
    public var url: String
    public var capabilities: [String]
    public var instruments: [String]
    enum CodingKeys: String, CodingKey {
        case roomID = "room_id", roomName = "room_name", roomType = "room_type", url, capabilities, instruments
    }
    public init(roomID: String, roomName: String, roomType: String = "local", url: String, capabilities: [String] = [], instruments: [String] = []) {
        self.roomID = roomID; self.roomName = roomName; self.roomType = roomType; self.url = url
        self.capabilities = capabilities; self.instruments = instruments
    }
}

public struct RoomRegistered: Codable, Sendable, Hashable {
    public var status: String
    public var roomID: String
    public var roomType: String?
    enum CodingKeys: String, CodingKey { case status, roomID = "room_id", roomType = "room_type" }
    public init(status: String, roomID: String, roomType: String?) { self.status = status; self.roomID = roomID; self.roomType = roomType }
}

public struct RoomHeartbeat: Codable, Sendable, Hashable {
    public var roomID: String
    public var status: String
    public var capabilities: [String]?
    public var lastKnowledgeVersion: Int?
    enum CodingKeys: String, CodingKey {
        case roomID = "room_id", status, capabilities, lastKnowledgeVersion = "last_knowledge_version"
    }
    public init(roomID: String, status: String = "online", capabilities: [String]? = nil, lastKnowledgeVersion: Int? = nil) {
        self.roomID = roomID; self.status = status; self.capabilities = capabilities; self.lastKnowledgeVersion = lastKnowledgeVersion
    }
}

/// An entry in a knowledge delta; `version` is the server version it changed in.
public struct KnowledgeDeltaEntry: Codable, Sendable, Hashable {
    public var id: String
    public var category: String
    public var title: String
    public var content: String
    public var source: String?
    public var confidence: Double?
    public var tags: [String]
    public var version: Int
    public var updatedAt: String?
    enum CodingKeys: String, CodingKey { case id, category, title, content, source, confidence, tags, version, updatedAt = "updated_at" }
    public init(id: String, category: String, title: String, content: String, source: String? = nil, confidence: Double? = nil,
                tags: [String] = [], version: Int, updatedAt: String? = nil) {
        self.id = id; self.category = category; self.title = title; self.content = content; self.source = source
        self.confidence = confidence; self.tags = tags; self.version = version; self.updatedAt = updatedAt
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        category = try c.decode(String.self, forKey: .category)
        title = try c.decodeIfPresent(String.self, forKey: .title) ?? ""
        content = try c.decodeIfPresent(String.self, forKey: .content) ?? ""
        source = try c.decodeIfPresent(String.self, forKey: .source)
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence)
        tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
        version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 0
        updatedAt = try c.decodeIfPresent(String.self, forKey: .updatedAt)
    }
}

public struct KnowledgeUpdates: Codable, Sendable, Hashable {
    public var serverVersion: Int
    public var entries: [KnowledgeDeltaEntry]
    public var removedIDs: [String]
    enum CodingKeys: String, CodingKey { case serverVersion = "server_version", entries, removedIDs = "removed_ids" }
    public init(serverVersion: Int, entries: [KnowledgeDeltaEntry], removedIDs: [String]) {
        self.serverVersion = serverVersion; self.entries = entries; self.removedIDs = removedIDs
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        serverVersion = try c.decode(Int.self, forKey: .serverVersion)
        entries = try c.decodeIfPresent([KnowledgeDeltaEntry].self, forKey: .entries) ?? []
        removedIDs = try c.decodeIfPresent([String].self, forKey: .removedIDs) ?? []
    }
}

/// `POST /rooms/heartbeat` answer. `knowledgeUpdates` is nil both when the key is absent (no
/// `last_knowledge_version` sent) and when it is `null` (nothing new).
public struct RoomHeartbeatResponse: Codable, Sendable, Hashable {
    public var status: String
    public var roomID: String
    public var knowledgeUpdates: KnowledgeUpdates?
    enum CodingKeys: String, CodingKey { case status, roomID = "room_id", knowledgeUpdates = "knowledge_updates" }
    public init(status: String = "ok", roomID: String, knowledgeUpdates: KnowledgeUpdates? = nil) {
        self.status = status; self.roomID = roomID; self.knowledgeUpdates = knowledgeUpdates
    }
}

public struct RoomDeregistered: Codable, Sendable, Hashable {
    /// `deregistered | not_found`
    public var status: String
    public var roomID: String
    enum CodingKeys: String, CodingKey { case status, roomID = "room_id" }
    public init(status: String, roomID: String) { self.status = status; self.roomID = roomID }
}

public struct RoomInfo: Codable, Sendable, Hashable {
    public var roomID: String
    public var roomName: String
    public var roomType: String
    public var url: String?
    public var status: String
    public var capabilities: [String]
    public var instruments: [String]
    public var lastHeartbeat: String?
    public var registeredAt: String?
    enum CodingKeys: String, CodingKey {
        case roomID = "room_id", roomName = "room_name", roomType = "room_type", url, status, capabilities, instruments
        case lastHeartbeat = "last_heartbeat", registeredAt = "registered_at"
    }
    public init(roomID: String, roomName: String, roomType: String, url: String?, status: String, capabilities: [String],
                instruments: [String], lastHeartbeat: String?, registeredAt: String? = nil) {
        self.roomID = roomID; self.roomName = roomName; self.roomType = roomType; self.url = url; self.status = status
        self.capabilities = capabilities; self.instruments = instruments; self.lastHeartbeat = lastHeartbeat; self.registeredAt = registeredAt
    }
}

public struct RoomList: Codable, Sendable, Hashable {
    public struct Stats: Codable, Sendable, Hashable {
        public var totalRooms: Int
        public var onlineRooms: Int
        public var offlineRooms: Int
        public var roomsByType: [String: Int]
        enum CodingKeys: String, CodingKey {
            case totalRooms = "total_rooms", onlineRooms = "online_rooms", offlineRooms = "offline_rooms", roomsByType = "rooms_by_type"
        }
        public init(totalRooms: Int, onlineRooms: Int, offlineRooms: Int, roomsByType: [String: Int]) {
            self.totalRooms = totalRooms; self.onlineRooms = onlineRooms; self.offlineRooms = offlineRooms; self.roomsByType = roomsByType
        }
    }
    public var rooms: [RoomInfo]
    public var stats: Stats?
    public init(rooms: [RoomInfo], stats: Stats?) { self.rooms = rooms; self.stats = stats }
}

// MARK: - Heartbeats (scheduled tasks, models/heartbeat.py)

public struct Heartbeat: Codable, Sendable, Hashable {
    public var id: String
    public var appID: String?
    public var userID: String?
    public var name: String
    public var queryTemplate: String
    public var cronExpression: String
    public var timezone: String
    public var isActive: Bool
    public var contextTemplate: JSONValue?
    public var webhookURL: String?
    public var createdAt: String?
    public var updatedAt: String?
    enum CodingKeys: String, CodingKey {
        case id, appID = "app_id", userID = "user_id", name, queryTemplate = "query_template", cronExpression = "cron_expression"
        case timezone, isActive = "is_active", contextTemplate = "context_template", webhookURL = "webhook_url"
        case createdAt = "created_at", updatedAt = "updated_at"
    }
    public init(id: String, appID: String?, userID: String?, name: String, queryTemplate: String, cronExpression: String,
                timezone: String = "UTC", isActive: Bool = true, contextTemplate: JSONValue? = .object([:]),
                webhookURL: String? = nil, createdAt: String? = nil, updatedAt: String? = nil) {
        self.id = id; self.appID = appID; self.userID = userID; self.name = name; self.queryTemplate = queryTemplate
        self.cronExpression = cronExpression; self.timezone = timezone; self.isActive = isActive; self.contextTemplate = contextTemplate
        self.webhookURL = webhookURL; self.createdAt = createdAt; self.updatedAt = updatedAt
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(appID, forKey: .appID); try c.encode(userID, forKey: .userID)
        try c.encode(name, forKey: .name); try c.encode(queryTemplate, forKey: .queryTemplate)
        try c.encode(cronExpression, forKey: .cronExpression); try c.encode(timezone, forKey: .timezone)
        try c.encode(isActive, forKey: .isActive); try c.encode(contextTemplate ?? .object([:]), forKey: .contextTemplate)
        try c.encode(webhookURL, forKey: .webhookURL); try c.encode(createdAt, forKey: .createdAt); try c.encode(updatedAt, forKey: .updatedAt)
    }
}

/// `POST /heartbeats` body.
public struct HeartbeatCreate: Codable, Sendable, Hashable {
    public var name: String
    public var queryTemplate: String
    public var cronExpression: String
    public var timezone: String
    public var contextTemplate: JSONValue
    public var webhookURL: String?
    enum CodingKeys: String, CodingKey {
        case name, queryTemplate = "query_template", cronExpression = "cron_expression", timezone
        case contextTemplate = "context_template", webhookURL = "webhook_url"
    }
    public init(name: String, queryTemplate: String, cronExpression: String, timezone: String = "UTC",
                contextTemplate: JSONValue = .object([:]), webhookURL: String? = nil) {
        self.name = name; self.queryTemplate = queryTemplate; self.cronExpression = cronExpression; self.timezone = timezone
        self.contextTemplate = contextTemplate; self.webhookURL = webhookURL
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        queryTemplate = try c.decode(String.self, forKey: .queryTemplate)
        cronExpression = try c.decode(String.self, forKey: .cronExpression)
        timezone = try c.decodeIfPresent(String.self, forKey: .timezone) ?? "UTC"
        contextTemplate = try c.decodeIfPresent(JSONValue.self, forKey: .contextTemplate) ?? .object([:])
        webhookURL = try c.decodeIfPresent(String.self, forKey: .webhookURL)
    }
}

/// `PATCH /heartbeats/{id}` body: only the fields that are set travel.
public struct HeartbeatUpdate: Codable, Sendable, Hashable {
    public var name: String?
    public var queryTemplate: String?
    public var cronExpression: String?
    public var timezone: String?
    public var isActive: Bool?
    public var contextTemplate: JSONValue?
    public var webhookURL: String?
    enum CodingKeys: String, CodingKey {
        case name, queryTemplate = "query_template", cronExpression = "cron_expression", timezone, isActive = "is_active"
        case contextTemplate = "context_template", webhookURL = "webhook_url"
    }
    public init(name: String? = nil, queryTemplate: String? = nil, cronExpression: String? = nil, timezone: String? = nil,
                isActive: Bool? = nil, contextTemplate: JSONValue? = nil, webhookURL: String? = nil) {
        self.name = name; self.queryTemplate = queryTemplate; self.cronExpression = cronExpression; self.timezone = timezone
        self.isActive = isActive; self.contextTemplate = contextTemplate; self.webhookURL = webhookURL
    }
}

public struct HeartbeatTickResult: Codable, Sendable, Hashable {
    public struct Skipped: Codable, Sendable, Hashable {
        public var heartbeatID: String
        public var heartbeatName: String
        public var reason: String
        enum CodingKeys: String, CodingKey { case heartbeatID = "heartbeat_id", heartbeatName = "heartbeat_name", reason }
        public init(heartbeatID: String, heartbeatName: String, reason: String) {
            self.heartbeatID = heartbeatID; self.heartbeatName = heartbeatName; self.reason = reason
        }
    }
    public var processed: [JSONValue]
    public var skipped: [Skipped]
    public var totalActive: Int
    enum CodingKeys: String, CodingKey { case processed, skipped, totalActive = "total_active" }
    public init(processed: [JSONValue], skipped: [Skipped], totalActive: Int) {
        self.processed = processed; self.skipped = skipped; self.totalActive = totalActive
    }
}

public struct HeartbeatStatusList: Codable, Sendable, Hashable {
    public struct Item: Codable, Sendable, Hashable {
        public var id: String
        public var name: String
        public var cronExpression: String
        public var isActive: Bool
        public var lastRunAt: String?
        public var nextScheduled: String?
        public var isDue: Bool
        enum CodingKeys: String, CodingKey {
            case id, name, cronExpression = "cron_expression", isActive = "is_active", lastRunAt = "last_run_at"
            case nextScheduled = "next_scheduled", isDue = "is_due"
        }
        public init(id: String, name: String, cronExpression: String, isActive: Bool, lastRunAt: String?, nextScheduled: String?, isDue: Bool) {
            self.id = id; self.name = name; self.cronExpression = cronExpression; self.isActive = isActive
            self.lastRunAt = lastRunAt; self.nextScheduled = nextScheduled; self.isDue = isDue
        }
    }
    public var heartbeats: [Item]
    public init(heartbeats: [Item]) { self.heartbeats = heartbeats }
}

// MARK: - Interventions (models/intervention.py)

public struct InterventionEvaluation: Codable, Sendable, Hashable {
    public struct Item: Codable, Sendable, Hashable {
        public var type: InterventionType
        public var message: String
        public var confidence: Double?
        public var source: String?
        public init(type: InterventionType, message: String, confidence: Double? = 0.5, source: String? = "") {
            self.type = type; self.message = message; self.confidence = confidence; self.source = source
        }
    }
    public var interventions: [Item]
    public var count: Int
    public init(interventions: [Item]) { self.interventions = interventions; self.count = interventions.count }
}

/// `POST /interventions/evaluate` body: a dry run for a query.
public struct InterventionEvaluateRequest: Codable, Sendable, Hashable {
    public var query: String
    public var trustLevel: Int?
    public var responseSummary: String?
    public var responseOutcome: String?
    public var responseConfidence: Double?
    public var instrumentUsed: String?
    enum CodingKeys: String, CodingKey {
        case query, trustLevel = "trust_level", responseSummary = "response_summary", responseOutcome = "response_outcome"
        case responseConfidence = "response_confidence", instrumentUsed = "instrument_used"
    }
    public init(query: String, trustLevel: Int? = nil, responseSummary: String? = nil, responseOutcome: String? = nil,
                responseConfidence: Double? = nil, instrumentUsed: String? = nil) {
        self.query = query; self.trustLevel = trustLevel; self.responseSummary = responseSummary
        self.responseOutcome = responseOutcome; self.responseConfidence = responseConfidence; self.instrumentUsed = instrumentUsed
    }
}

public struct InterventionEngineStatus: Codable, Sendable, Hashable {
    public var recentQueriesCount: Int
    public var availableInstruments: [String]
    public var maxInterventions: Int
    enum CodingKeys: String, CodingKey {
        case recentQueriesCount = "recent_queries_count", availableInstruments = "available_instruments", maxInterventions = "max_interventions"
    }
    public init(recentQueriesCount: Int, availableInstruments: [String], maxInterventions: Int) {
        self.recentQueriesCount = recentQueriesCount; self.availableInstruments = availableInstruments; self.maxInterventions = maxInterventions
    }
}

// MARK: - Health

public struct HealthStatus: Codable, Sendable, Hashable {
    public var status: String
    public var version: String?
    public var tools: [String]?
    public init(status: String, version: String?, tools: [String]? = nil) { self.status = status; self.version = version; self.tools = tools }
}

public struct SystemHealth: Codable, Sendable, Hashable {
    public var status: String
    public var components: JSONValue?
    public var lastCheck: String?
    public var uptimeSeconds: Double?
    public var healthChecksRun: Int?
    public var heartbeatsProcessed: Int?
    public var consecutiveFailures: Int?
    public var lastError: String?
    public var lastErrorAt: String?
    enum CodingKeys: String, CodingKey {
        case status, components, lastCheck = "last_check", uptimeSeconds = "uptime_seconds", healthChecksRun = "health_checks_run"
        case heartbeatsProcessed = "heartbeats_processed", consecutiveFailures = "consecutive_failures"
        case lastError = "last_error", lastErrorAt = "last_error_at"
    }
    public init(status: String, components: JSONValue?, lastCheck: String?, uptimeSeconds: Double?, healthChecksRun: Int?,
                heartbeatsProcessed: Int?, consecutiveFailures: Int?, lastError: String?, lastErrorAt: String?) {
        self.status = status; self.components = components; self.lastCheck = lastCheck; self.uptimeSeconds = uptimeSeconds
        self.healthChecksRun = healthChecksRun; self.heartbeatsProcessed = heartbeatsProcessed
        self.consecutiveFailures = consecutiveFailures; self.lastError = lastError; self.lastErrorAt = lastErrorAt
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status); try c.encode(components, forKey: .components)
        try c.encode(lastCheck, forKey: .lastCheck); try c.encode(uptimeSeconds, forKey: .uptimeSeconds)
        try c.encode(healthChecksRun, forKey: .healthChecksRun); try c.encode(heartbeatsProcessed, forKey: .heartbeatsProcessed)
        try c.encode(consecutiveFailures, forKey: .consecutiveFailures); try c.encode(lastError, forKey: .lastError)
        try c.encode(lastErrorAt, forKey: .lastErrorAt)
    }
}

public struct DatabaseHealth: Codable, Sendable, Hashable {
    public var healthy: Bool
    public var latencyMS: Double?
    public var error: String?
    enum CodingKeys: String, CodingKey { case healthy, latencyMS = "latency_ms", error }
    public init(healthy: Bool, latencyMS: Double?, error: String?) { self.healthy = healthy; self.latencyMS = latencyMS; self.error = error }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(healthy, forKey: .healthy); try c.encode(latencyMS, forKey: .latencyMS); try c.encode(error, forKey: .error)
    }
}
