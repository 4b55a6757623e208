import ReceptionCore
import ReceptionREPL
import Testing

/// What a person reads after each message and in `/intent`, for labels set by hand: every
/// head says whose it is.
@Suite("Classification text")
struct ClassificationTextTests {
    /// "hello" as the built-in model reads it, with the labels of `/intent set` applied the
    /// way the intent middleware applies them.
    static func hello(intent: IntentType? = nil, urgency: UrgencyLevel? = nil) -> IntentClassification {
        var c = IntentClassification(
            intent: .curiosity, urgency: .exploratory, intentConfidence: 0.39, urgencyConfidence: 0.83,
            intentExplanation: HeadExplanation(chosen: LabelScore(label: "curiosity", probability: 0.39, contributions: [FeatureContribution(feature: "bias", weight: 0.64)]),
                                               runnerUp: LabelScore(label: "action", probability: 0.35, contributions: [])),
            urgencyExplanation: HeadExplanation(chosen: LabelScore(label: "exploratory", probability: 0.83, contributions: [FeatureContribution(feature: "time:none", weight: 0.88)]),
                                                runnerUp: nil))
        c.model = "built-in"
        if let intent { c.intent = intent; c.intentConfidence = 1; c.intentByHand = true }
        if let urgency { c.urgency = urgency; c.urgencyConfidence = 1; c.urgencyByHand = true }
        return c
    }

    @Test func theModelsOwnReadingSaysNothingOfHands() {
        let c = Self.hello()
        #expect(ClassificationText.line(c) == "curiosity / exploratory · confidence 39% / 83%")
        let text = ClassificationText.explanation(c)
        #expect(!text.contains("set by you") && !text.contains("The model's reading"), "\(text)")
        #expect(text.contains("model: built-in"))
    }

    /// Both heads by hand: unchanged, one "set by you" and one sentence over both readings.
    @Test func bothHeadsByHandAreSaidOnce() {
        let c = Self.hello(intent: .research, urgency: .soon)
        #expect(ClassificationText.line(c) == "research / soon · confidence 100% / 100% · set by you")
        let text = ClassificationText.explanation(c)
        #expect(text.contains("\n\nThe model's reading, which your labels replace:\n\n**intent: curiosity** 39%"), "\(text)")
        #expect(text.contains("\n\n**urgency: exploratory** 83%") && !text.contains("which is sent"), "\(text)")
    }

    /// `/intent set decision`: the line said nothing, so the label the person chose read as the
    /// model's, at 100%; `/intent` showed the model's reading of the intent as if it were the
    /// label that went out.
    @Test func anIntentSetByHandIsSaidToBeYoursAndTheUrgencyTheModels() {
        let c = Self.hello(intent: .decision)
        #expect(ClassificationText.line(c) == "decision / exploratory · confidence 100% / 83% · intent set by you")
        let text = ClassificationText.explanation(c)
        #expect(text.hasPrefix("**intent** decision / exploratory · confidence 100% / 83% · intent set by you"), "\(text)")
        #expect(text.contains("\n\nThe model's reading of the intent, which your label replaces:\n\n**intent: curiosity** 39%"), "\(text)")
        #expect(text.contains("\n\nThe model's reading of the urgency, which is sent:\n\n**urgency: exploratory** 83%"), "\(text)")
        #expect(!text.contains("which your labels replace"), "one label, not both: \(text)")
        #expect(text.contains("model: built-in"))
    }

    @Test func anUrgencySetByHandIsSaidToBeYoursAndTheIntentTheModels() {
        let c = Self.hello(urgency: .soon)
        #expect(ClassificationText.line(c) == "curiosity / soon · confidence 39% / 100% · urgency set by you")
        let text = ClassificationText.explanation(c)
        #expect(text.contains("\n\nThe model's reading of the intent, which is sent:\n\n**intent: curiosity** 39%"), "\(text)")
        #expect(text.contains("\n\nThe model's reading of the urgency, which your label replaces:\n\n**urgency: exploratory** 83%"), "\(text)")
    }
}
