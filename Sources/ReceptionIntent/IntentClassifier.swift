import Foundation
import ReceptionCore

/// Local, fast intent and urgency classifier: lexicon cues, structural and time features,
/// two multinomial logistic-regression heads with calibrated (temperature-scaled)
/// probabilities, and the contributing features for `/intent` and `classify --explain`.
public struct IntentClassifier: Sendable {
    public let lexicon: Lexicon
    public let weights: IntentWeights
    public let extractor: FeatureExtractor
    /// Feature id × label (intent labels then urgency labels).
    private let matrix: [Double]
    private let bias: [Double]

    private static let intents = IntentType.knownCases
    private static let urgencies = UrgencyLevel.knownCases
    private static let intentCount = IntentWeights.intentLabels.count
    private static let width = IntentWeights.width

    /// The shipped lexicon and weights.
    public init() {
        self = Self.shippedClassifier
    }

    private static let shippedClassifier = IntentClassifier(lexicon: .shipped, weights: .shipped)

    public init(lexicon: Lexicon, weights: IntentWeights) {
        self.lexicon = lexicon
        self.weights = weights
        let extractor = FeatureExtractor(lexicon: lexicon, vocabulary: weights.vocabulary)
        self.extractor = extractor
        var matrix = [Double](repeating: 0, count: extractor.count * Self.width)
        for (name, row) in weights.features {
            guard let id = extractor.index[name] else { continue }
            for k in 0..<Self.width { matrix[id * Self.width + k] = row[k] }
        }
        self.matrix = matrix
        self.bias = weights.bias
    }

    /// A user lexicon and/or weights file; either defaults to the shipped one.
    /// Errors name the file (and line, for the lexicon).
    public init(lexiconURL: URL?, weightsURL: URL?) throws {
        let lexicon = try lexiconURL.map { try Lexicon(contentsOf: $0) } ?? .shipped
        let weights = try weightsURL.map { try IntentWeights(contentsOf: $0) } ?? .shipped
        self.init(lexicon: lexicon, weights: weights)
    }

    /// Classifies one message. `goal` is the conversation goal (`TaskContext.goal`);
    /// `previous` the turn before, whose labels carry over to a short follow-up.
    public func classify(_ text: String, goal: String? = nil, previous: ConversationTurn? = nil) -> IntentClassification {
        var tokens: [Token] = []
        tokens.reserveCapacity(64)
        var active: [Int32] = []
        active.reserveCapacity(64)
        extractor.features(text, goal: goal, tokens: &tokens, into: &active)
        var logits = bias
        matrix.withUnsafeBufferPointer { m in
            for id in active {
                let row = Int(id) * Self.width
                for k in 0..<Self.width { logits[k] += m[row + k] }
            }
        }
        // A short follow-up ("and tomorrow?") inherits the previous turn's labels.
        var carried = [Double](repeating: 0, count: Self.width)
        if let previous, tokens.count <= 8, weights.previousTurnWeight != 0 {
            if let intent = previous.intent, let k = Self.intents.firstIndex(of: intent) { carried[k] = weights.previousTurnWeight }
            if let urgency = previous.urgency, let k = Self.urgencies.firstIndex(of: urgency) { carried[Self.intentCount + k] = weights.previousTurnWeight }
            for k in 0..<Self.width { logits[k] += carried[k] }
        }
        let intent = explain(logits: logits, range: 0..<Self.intentCount, labels: IntentWeights.intentLabels, active: active, carried: carried)
        let urgency = explain(logits: logits, range: Self.intentCount..<Self.width, labels: IntentWeights.urgencyLabels, active: active, carried: carried)
        return IntentClassification(
            intent: Self.intents[intent.index], urgency: Self.urgencies[urgency.index],
            intentConfidence: intent.explanation.chosen.probability, urgencyConfidence: urgency.explanation.chosen.probability,
            intentExplanation: intent.explanation, urgencyExplanation: urgency.explanation)
    }

    /// The probabilities of both heads without explanations (for evaluation at scale).
    public func probabilities(_ text: String, goal: String? = nil) -> (intent: [Double], urgency: [Double]) {
        let active = extractor.features(text, goal: goal)
        return probabilities(active: active)
    }

    func probabilities(active: [Int32]) -> (intent: [Double], urgency: [Double]) {
        var logits = bias
        matrix.withUnsafeBufferPointer { m in
            for id in active {
                let row = Int(id) * Self.width
                for k in 0..<Self.width { logits[k] += m[row + k] }
            }
        }
        return (softmax(Array(logits[0..<Self.intentCount])), softmax(Array(logits[Self.intentCount...])))
    }

    private func explain(logits: [Double], range: Range<Int>, labels: [String], active: [Int32], carried: [Double])
        -> (index: Int, explanation: HeadExplanation) {
        var maximum = -Double.infinity
        for k in range where logits[k] > maximum { maximum = logits[k] }
        var sum = 0.0
        var probabilities = [Double](repeating: 0, count: range.count)
        for k in range {
            let e = exp(logits[k] - maximum)
            probabilities[k - range.lowerBound] = e
            sum += e
        }
        var best = 0, second = -1
        for i in 0..<probabilities.count {
            probabilities[i] /= sum
            if i == 0 { continue }
            if probabilities[i] > probabilities[best] { second = best; best = i }
            else if second < 0 || probabilities[i] > probabilities[second] { second = i }
        }
        func score(_ i: Int) -> LabelScore {
            let k = range.lowerBound + i
            var contributions: [FeatureContribution] = []
            contributions.reserveCapacity(active.count + 2)
            contributions.append(FeatureContribution(feature: "bias", weight: bias[k]))
            if carried[k] != 0 { contributions.append(FeatureContribution(feature: "context:previous-turn", weight: carried[k])) }
            matrix.withUnsafeBufferPointer { m in
                for id in active {
                    let weight = m[Int(id) * Self.width + k]
                    if weight != 0 { contributions.append(FeatureContribution(feature: extractor.names[Int(id)], weight: weight)) }
                }
            }
            contributions.sort { abs($0.weight) > abs($1.weight) || (abs($0.weight) == abs($1.weight) && $0.feature < $1.feature) }
            return LabelScore(label: labels[i], probability: probabilities[i], contributions: contributions)
        }
        return (best, HeadExplanation(chosen: score(best), runnerUp: second >= 0 ? score(second) : nil))
    }
}

func softmax(_ logits: [Double]) -> [Double] {
    let maximum = logits.max() ?? 0
    let exps = logits.map { exp($0 - maximum) }
    let sum = exps.reduce(0, +)
    return exps.map { $0 / sum }
}
