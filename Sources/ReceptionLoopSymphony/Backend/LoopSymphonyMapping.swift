import Foundation
import ReceptionCore

// Between Reception's vocabulary and Loop Symphony's wire format. One place, so the core
// never learns about instruments, process types or rooms.

extension TaskRequest {
    /// The `POST /task` body for a message. The conversation travels as Loop Symphony's
    /// `conversation_summary`; engine-specific fields come from `request.extensions`
    /// (`loop-symphony.thoroughness`, `loop-symphony.max_spawn_depth`; `location` is shared by every engine that takes one).
    public init(_ request: ReceptionRequest, userID: String? = nil) {
        let thoroughness = request.extensions["loop-symphony.thoroughness"]?.stringValue.map(Thoroughness.init(wire:)) ?? .balanced
        let context = TaskContext(userID: userID, conversationSummary: Self.conversationSummary(request.conversation),
                                  attachments: request.attachments,
                                  location: request.extensions["location"]?.stringValue,
                                  goal: request.goal, intent: request.intent)
        self.init(id: request.id, query: request.text, context: context,
                  preferences: TaskPreferences(thoroughness: thoroughness, trustLevel: request.trustLevel,
                                               maxSpawnDepth: request.extensions["loop-symphony.max_spawn_depth"]?.intValue))
    }
}

extension TaskRequest {
    /// Loop Symphony takes the conversation as one line: the last three turns, each with
    /// its outcome.
    static func conversationSummary(_ conversation: [ConversationTurn]) -> String? {
        let recent = conversation.suffix(3)
        guard !recent.isEmpty else { return nil }
        return recent.map { turn in
            var line = "Asked: \(turn.query)"
            if let outcome = turn.outcome { line += " (\(outcome.rawValue))" }
            return line
        }.joined(separator: "; ")
    }
}

extension BackendResult {
    /// A finished task in Reception's terms. The whole response stays in `raw`.
    public init(_ response: TaskResponse) {
        let findings = response.findings.map { Finding(content: $0.content, source: $0.source, confidence: $0.confidence) }
        var other: [String: Double] = ["iterations": Double(response.metadata.iterations)]
        if response.metadata.durationMS > 0 { other["milliseconds"] = Double(response.metadata.durationMS) }
        let raw = (try? Wire.decode(JSONValue.self, from: Wire.encode(response))) ?? nil
        self.init(taskID: response.requestID, outcome: response.outcome, findings: findings, text: response.summary,
                  confidence: response.confidence, discrepancy: response.discrepancy,
                  followups: response.suggestedFollowups.map(SuggestedFollowup.init(parsing:)),
                  usage: Usage(other: other), raw: raw)
    }
}

extension Plan {
    /// A trust-level-0 plan as steps people can read.
    public init(_ plan: TaskPlan) {
        self.init(taskID: plan.taskID, summary: plan.description,
                  steps: [PlanStep("instrument", detail: plan.instrument),
                          PlanStep("process", detail: plan.processType.rawValue.replacingOccurrences(of: "_", with: "-"))],
                  estimatedIterations: plan.estimatedIterations)
    }
}
