/// The local classifier's judgement of a message, with its reasons.
///
/// Lives in the core so the REPL, the renderer and any middleware can read it without
/// depending on the classifier module.
public struct IntentClassification: Sendable, Hashable, Codable {
    public var intent: IntentType
    public var urgency: UrgencyLevel
    /// Calibrated probability (0...1) that `intent` is right.
    public var intentConfidence: Double
    /// Calibrated probability (0...1) that `urgency` is right.
    public var urgencyConfidence: Double
    public var source: Source
    /// Why: the features behind the chosen label and the runner-up, for each head.
    public var intentExplanation: HeadExplanation?
    public var urgencyExplanation: HeadExplanation?
    /// Which model classified: "built-in", or the weights file a person trained; nil where
    /// whoever classified did not say.
    public var model: String?

    public enum Source: String, Sendable, Hashable, Codable {
        /// Scored from the text by the local classifier.
        case classifier
        /// Set by the person (`/intent`), or by code that knows better.
        case manual
    }

    public init(intent: IntentType, urgency: UrgencyLevel, intentConfidence: Double, urgencyConfidence: Double,
                source: Source = .classifier, intentExplanation: HeadExplanation? = nil, urgencyExplanation: HeadExplanation? = nil) {
        self.intent = intent
        self.urgency = urgency
        self.intentConfidence = intentConfidence
        self.urgencyConfidence = urgencyConfidence
        self.source = source
        self.intentExplanation = intentExplanation
        self.urgencyExplanation = urgencyExplanation
    }

    /// The wire `Intent`. Seed 000 §6 and §15.5 ask the client to provide intent itself and
    /// reserve lower-confidence inference for the server, so a client classification is
    /// sent with `inferred: false`; `confidence` carries how sure we are: the weaker of
    /// the two heads for a classification, 1.0 when the person set it by hand.
    public var wireIntent: Intent {
        Intent(type: intent, urgency: urgency,
               confidence: source == .manual ? 1.0 : (min(intentConfidence, urgencyConfidence) * 1000).rounded() / 1000,
               inferred: false)
    }
}

/// The evidence for one head (intent or urgency): the winning label, the runner-up, and
/// the weighted features that pushed each.
public struct HeadExplanation: Sendable, Hashable, Codable {
    public var chosen: LabelScore
    public var runnerUp: LabelScore?

    public init(chosen: LabelScore, runnerUp: LabelScore?) {
        self.chosen = chosen
        self.runnerUp = runnerUp
    }
}

public struct LabelScore: Sendable, Hashable, Codable {
    public var label: String
    public var probability: Double
    /// Largest contributions first.
    public var contributions: [FeatureContribution]

    public init(label: String, probability: Double, contributions: [FeatureContribution]) {
        self.label = label
        self.probability = probability
        self.contributions = contributions
    }
}

public struct FeatureContribution: Sendable, Hashable, Codable {
    /// A readable feature name, e.g. `phrase:"should i"` or `struct:either-or`.
    public var feature: String
    public var weight: Double

    public init(feature: String, weight: Double) {
        self.feature = feature
        self.weight = weight
    }
}
