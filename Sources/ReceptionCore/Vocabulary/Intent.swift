/// Intent and urgency as they travel to an engine (seed 000 §6): Reception's own vocabulary,
/// which Loop Symphony happens to share. Engines without an intent field carry it in their
/// metadata or system prompt.
public struct Intent: Codable, Sendable, Hashable {
    public var type: IntentType
    public var urgency: UrgencyLevel
    public var successCriteria: String?
    public var parentGoalID: String?
    /// 0...1. How sure the sender is of `type` and `urgency`.
    public var confidence: Double
    /// True when the intent was guessed from the text rather than stated by the person.
    public var inferred: Bool

    enum CodingKeys: String, CodingKey {
        case type, urgency, successCriteria = "success_criteria", parentGoalID = "parent_goal_id", confidence, inferred
    }

    public init(type: IntentType = .curiosity, urgency: UrgencyLevel = .exploratory, successCriteria: String? = nil,
                parentGoalID: String? = nil, confidence: Double = 1.0, inferred: Bool = false) {
        self.type = type
        self.urgency = urgency
        self.successCriteria = successCriteria
        self.parentGoalID = parentGoalID
        self.confidence = confidence
        self.inferred = inferred
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decodeIfPresent(IntentType.self, forKey: .type) ?? .curiosity
        urgency = try c.decodeIfPresent(UrgencyLevel.self, forKey: .urgency) ?? .exploratory
        successCriteria = try c.decodeIfPresent(String.self, forKey: .successCriteria)
        parentGoalID = try c.decodeIfPresent(String.self, forKey: .parentGoalID)
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence) ?? 1.0
        inferred = try c.decodeIfPresent(Bool.self, forKey: .inferred) ?? false
    }
}
