import Foundation
import ReceptionCore

/// The local backend's state: plans awaiting approval, running tasks, and what this
/// session has already been told (for saturation, recurring topics and education tips).
actor LocalEngine {
    let knowledge: KnowledgeBase
    let usesBuiltInKnowledge: Bool
    private var plans: [String: TaskRequest] = [:]
    private var running: Set<String> = []
    private var cancelled: Set<String> = []
    private var memory = SessionMemory()

    init(knowledge: KnowledgeBase, usesBuiltInKnowledge: Bool) {
        self.knowledge = knowledge
        self.usesBuiltInKnowledge = usesBuiltInKnowledge
    }

    var passageCount: Int { knowledge.passages.count }

    func plan(for request: TaskRequest) -> TaskPlan {
        plans[request.id] = request
        memory.sawPlan = true
        let intent = request.context?.intent?.type ?? .curiosity
        let iterations = 2
        let description = "Search \(usesBuiltInKnowledge ? "Reception's built-in knowledge" : "the knowledge folder") " +
            "(\(knowledge.passages.count) passages) with BM25, rank the matches and answer as \(Self.answerShape(intent))."
        return TaskPlan(taskID: request.id, query: request.query, instrument: "knowledge_search",
                        processType: .semiAutonomic, estimatedIterations: iterations, description: description)
    }

    func takePlan(_ taskID: String) throws -> TaskRequest {
        guard let request = plans.removeValue(forKey: taskID) else {
            throw BackendError.invalidTaskState(taskID: taskID, reason: "no plan is awaiting approval with this id")
        }
        return request
    }

    func started(_ taskID: String) { running.insert(taskID) }
    func finished(_ taskID: String) { running.remove(taskID); cancelled.remove(taskID) }
    func isCancelled(_ taskID: String) -> Bool { cancelled.contains(taskID) }

    func requestCancel(_ taskID: String) throws {
        guard running.contains(taskID) else {
            throw BackendError.invalidTaskState(taskID: taskID, reason: "is not running")
        }
        cancelled.insert(taskID)
    }

    func search(_ query: String) -> [KnowledgeBase.Match] { knowledge.search(query, limit: 5) }

    func answer(_ request: TaskRequest, matches: [KnowledgeBase.Match], durationMS: Int) -> TaskResponse {
        let knowledge = knowledge
        var composed = Answerer.compose(query: request.query, matches: matches, alreadySaid: memory.saidPassages) { file in
            knowledge.passages.filter { $0.file == file && $0.isSection }.map(\.heading)
        }
        let interventions = InterventionRules.evaluate(
            query: request.query, matches: matches, outcome: composed.outcome, memory: &memory,
            usesBuiltInKnowledge: usesBuiltInKnowledge
        ).filter { $0.isVisible(atTrustLevel: request.trustLevel) }
        if memory.offeredFollowups.contains(request.query.lowercased()) { memory.usedFollowup = true }
        memory.offeredFollowups.formUnion(composed.followups.map { $0.lowercased() })
        memory.saidPassages.formUnion(composed.usedPassages)
        memory.record(query: request.query, answered: composed.outcome == .complete || composed.outcome == .saturated)
        composed.followups += interventions.prefix(3).map { SuggestedFollowup.intervention($0).wireText }
        return TaskResponse(
            requestID: request.id, outcome: composed.outcome, findings: composed.findings, summary: composed.summary,
            confidence: composed.confidence,
            metadata: ExecutionMetadata(instrumentUsed: "knowledge_search", iterations: 2, durationMS: durationMS,
                                        sourcesConsulted: Array(Set(matches.map(\.passage.file))).sorted(),
                                        processType: .semiAutonomic, roomID: "local"),
            discrepancy: composed.discrepancy, suggestedFollowups: composed.followups)
    }

    private static func answerShape(_ intent: IntentType) -> String {
        switch intent {
        case .decision: "options and trade-offs"
        case .research: "a thorough explanation from several passages"
        case .action: "steps you can follow"
        case .validation: "evidence for and against"
        default: "a short direct answer"
        }
    }
}

/// What one REPL session has seen, so answers and interventions can take it into account.
struct SessionMemory {
    var saidPassages: Set<String> = []
    var unansweredTopics: [Set<String>] = []
    var offeredFollowups: Set<String> = []
    var usedFollowup = false
    var sawPlan = false
    var tipsGiven: Set<String> = []
    var proactiveTopics: [Set<String>] = []

    mutating func record(query: String, answered: Bool) {
        if !answered { unansweredTopics.append(Set(KnowledgeBase.terms(query))) }
    }
}
