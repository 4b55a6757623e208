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
    /// Whether the person chose the intent label by hand (`/intent set INTENT`): a person may
    /// set one head and leave the other to the classifier, so what is shown, sent and logged
    /// reads each head's own flag, and these two are the only place that says so.
    public var intentByHand: Bool
    /// Whether the person chose the urgency label by hand (`/intent set - URGENCY`).
    public var urgencyByHand: Bool
    /// `.manual` when both labels were chosen by hand, else `.classifier` (one head set by
    /// hand is still the classifier's classification; `intentByHand` and `urgencyByHand` say
    /// which). Derived from the two flags, never stored beside them, so the two cannot
    /// disagree; setting it sets both heads.
    public var source: Source {
        get { intentByHand && urgencyByHand ? .manual : .classifier }
        set { intentByHand = newValue == .manual; urgencyByHand = newValue == .manual }
    }
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
        self.intentByHand = source == .manual
        self.urgencyByHand = source == .manual
        self.intentExplanation = intentExplanation
        self.urgencyExplanation = urgencyExplanation
    }

    enum CodingKeys: String, CodingKey {
        case intent, urgency, intentConfidence, urgencyConfidence, source, intentByHand, urgencyByHand
        case intentExplanation, urgencyExplanation, model
    }

    /// `source` is still written (programs reading `--json` know it), beside the per-head flags.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(intent, forKey: .intent)
        try c.encode(urgency, forKey: .urgency)
        try c.encode(intentConfidence, forKey: .intentConfidence)
        try c.encode(urgencyConfidence, forKey: .urgencyConfidence)
        try c.encode(source, forKey: .source)
        try c.encode(intentByHand, forKey: .intentByHand)
        try c.encode(urgencyByHand, forKey: .urgencyByHand)
        try c.encodeIfPresent(intentExplanation, forKey: .intentExplanation)
        try c.encodeIfPresent(urgencyExplanation, forKey: .urgencyExplanation)
        try c.encodeIfPresent(model, forKey: .model)
    }

    /// A classification written before the per-head flags (a message in the offline queue
    /// since an older version) has only `source`: `manual` meant both heads by hand.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        intent = try c.decode(IntentType.self, forKey: .intent)
        urgency = try c.decode(UrgencyLevel.self, forKey: .urgency)
        intentConfidence = try c.decode(Double.self, forKey: .intentConfidence)
        urgencyConfidence = try c.decode(Double.self, forKey: .urgencyConfidence)
        let whole = try c.decodeIfPresent(Source.self, forKey: .source) ?? .classifier
        intentByHand = try c.decodeIfPresent(Bool.self, forKey: .intentByHand) ?? (whole == .manual)
        urgencyByHand = try c.decodeIfPresent(Bool.self, forKey: .urgencyByHand) ?? (whole == .manual)
        intentExplanation = try c.decodeIfPresent(HeadExplanation.self, forKey: .intentExplanation)
        urgencyExplanation = try c.decodeIfPresent(HeadExplanation.self, forKey: .urgencyExplanation)
        model = try c.decodeIfPresent(String.self, forKey: .model)
    }

    /// The wire `Intent`. Seed 000 §6 and §15.5 ask the client to provide intent itself and
    /// reserve lower-confidence inference for the server, so a client classification is
    /// sent with `inferred: false`; `confidence` carries how sure we are: the weaker of
    /// the two heads for a classification, where a head the person set by hand counts as
    /// certain: 1.0 when they set both, the classifier's head when they set one.
    public var wireIntent: Intent {
        let intentSure = intentByHand ? 1.0 : intentConfidence, urgencySure = urgencyByHand ? 1.0 : urgencyConfidence
        return Intent(type: intent, urgency: urgency, confidence: (min(intentSure, urgencySure) * 1000).rounded() / 1000, inferred: false)
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
