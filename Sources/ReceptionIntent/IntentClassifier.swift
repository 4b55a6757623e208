import Foundation
import ReceptionCore

/// Local, fast intent and urgency classifier: lexicon cues, structural and time features,
/// two multinomial logistic-regression heads with calibrated (temperature-scaled)
/// probabilities, and the contributing features for `/intent` and `classify --explain`.
public struct IntentClassifier: Sendable {
    /// nil: the shipped model, loaded once per process on first use (and warmed up in the
    /// background by `init()`, so creating a classifier never delays a program's start).
    private let custom: CompiledIntentModel?
    @inline(__always) private var model: CompiledIntentModel { custom ?? Self.shippedModel }

    public var lexicon: Lexicon { model.lexicon }
    public var weights: IntentWeights { model.fullWeights }
    public var extractor: FeatureExtractor { model.extractor }
    private var matrix: [Double] { model.matrix }
    private var bias: [Double] { model.bias }
    private var names: [String] { model.names }

    private static let intents = IntentType.knownCases
    private static let intentLabels = IntentWeights.intentLabels
    private static let urgencyLabels = IntentWeights.urgencyLabels
    private static let urgencies = UrgencyLevel.knownCases
    // Literal so the hot path needs no lazy-global checks (checked against IntentWeights in init).
    static let intentCount = 5
    static let width = 9
    /// Contributions listed per label; the rest are summed into one `other features (N)` entry, listed last.
    public static let explanationLimit = 10
    private static let otherNames = (0...64).map { "other features (\($0))" }
    private static func otherName(_ count: Int) -> String { count < otherNames.count ? otherNames[count] : "other features (\(count))" }

    /// The shipped lexicon and weights.
    public init() {
        custom = nil
        Self.warmUp
    }

    private static let shippedModel = CompiledIntentModel(lexicon: .shipped, weights: .shipped)
    private static let warmUp: Void = {
        DispatchQueue.global(qos: .userInitiated).async { _ = IntentClassifier.shippedModel }
    }()

    public init(lexicon: Lexicon, weights: IntentWeights) {
        custom = CompiledIntentModel(lexicon: lexicon, weights: weights)
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
        let model = self.model
        model.extractor.features(text, goal: goal, tokens: &tokens, into: &active)
        let matrix = model.matrix, bias = model.bias
        // Logits and the carried-over prior on the stack: no allocation.
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * Self.width) { buffer in
            let logits = UnsafeMutableBufferPointer(rebasing: buffer[0..<Self.width])
            let carried = UnsafeMutableBufferPointer(rebasing: buffer[Self.width..<(2 * Self.width)])
            for k in 0..<Self.width { logits[k] = bias[k]; carried[k] = 0 }
            matrix.withUnsafeBufferPointer { m in
                for id in active {
                    let row = Int(id) * Self.width
                    for k in 0..<Self.width { logits[k] += m[row + k] }
                }
            }
            // A short follow-up ("and tomorrow?") inherits the previous turn's labels.
            let carryWeight = model.weights.previousTurnWeight
            if let previous, tokens.count <= 8, carryWeight != 0 {
                if let intent = previous.intent, let k = Self.intents.firstIndex(of: intent) { carried[k] = carryWeight }
                if let urgency = previous.urgency, let k = Self.urgencies.firstIndex(of: urgency) { carried[Self.intentCount + k] = carryWeight }
                for k in 0..<Self.width { logits[k] += carried[k] }
            }
            let intent = explain(model, logits: logits, range: 0..<Self.intentCount, labels: Self.intentLabels, active: active, carried: carried)
            let urgency = explain(model, logits: logits, range: Self.intentCount..<Self.width, labels: Self.urgencyLabels, active: active, carried: carried)
            return IntentClassification(
                intent: Self.intents[intent.index], urgency: Self.urgencies[urgency.index],
                intentConfidence: intent.explanation.chosen.probability, urgencyConfidence: urgency.explanation.chosen.probability,
                intentExplanation: intent.explanation, urgencyExplanation: urgency.explanation)
        }
    }

    /// The probabilities of both heads without explanations (for evaluation at scale).
    public func probabilities(_ text: String, goal: String? = nil) -> (intent: [Double], urgency: [Double]) {
        let active = extractor.features(text, goal: goal)
        return probabilities(active: active)
    }

    func probabilities(active: [Int32]) -> (intent: [Double], urgency: [Double]) {
        let model = self.model
        let matrix = model.matrix
        var logits = model.bias
        matrix.withUnsafeBufferPointer { m in
            for id in active {
                let row = Int(id) * Self.width
                for k in 0..<Self.width { logits[k] += m[row + k] }
            }
        }
        return (softmax(Array(logits[0..<Self.intentCount])), softmax(Array(logits[Self.intentCount...])))
    }

    private func explain(_ model: CompiledIntentModel, logits: UnsafeMutableBufferPointer<Double>, range: Range<Int>, labels: [String],
                         active: [Int32], carried: UnsafeMutableBufferPointer<Double>) -> (index: Int, explanation: HeadExplanation) {
        let matrix = model.matrix, bias = model.bias, names = model.names
        var maximum = -Double.infinity
        for k in range where logits[k] > maximum { maximum = logits[k] }
        var sum = 0.0
        var probabilities: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)
        let count = range.count
        withUnsafeMutableBytes(of: &probabilities) { raw in
            let p = raw.bindMemory(to: Double.self)
            for k in range {
                let e = exp(logits[k] - maximum)
                p[k - range.lowerBound] = e
                sum += e
            }
            for i in 0..<count { p[i] /= sum }
        }
        func probability(_ i: Int) -> Double { withUnsafeBytes(of: probabilities) { $0.bindMemory(to: Double.self)[i] } }
        var best = 0, second = -1
        for i in 1..<count {
            if probability(i) > probability(best) { second = best; best = i }
            else if second < 0 || probability(i) > probability(second) { second = i }
        }
        func score(_ i: Int) -> LabelScore {
            let k = range.lowerBound + i
            let contributions = withUnsafeTemporaryAllocation(of: (Double, Int32).self, capacity: active.count + 2) { buffer in
                var m = 0
                buffer[m] = (bias[k], -1); m += 1
                if carried[k] != 0 { buffer[m] = (carried[k], -2); m += 1 }
                matrix.withUnsafeBufferPointer { weights in
                    for id in active {
                        let weight = weights[Int(id) * Self.width + k]
                        if weight != 0 { buffer[m] = (weight, id); m += 1 }
                    }
                }
                // The largest contributions by magnitude, kept sorted in place at the front (ties: extraction order).
                let limit = Self.explanationLimit
                var shown = 0
                for b in 0..<m {
                    let entry = buffer[b]
                    let size = abs(entry.0)
                    if shown == limit && size <= abs(buffer[shown - 1].0) { continue }
                    // while filling, the entry sits at b == shown; when full, the displaced smallest moves to b
                    var c = shown < limit ? shown : shown - 1
                    if shown < limit { shown += 1 } else { buffer[b] = buffer[shown - 1] }
                    while c > 0 && abs(buffer[c - 1].0) < size { buffer[c] = buffer[c - 1]; c -= 1 }
                    buffer[c] = entry
                }
                var list: [FeatureContribution] = []
                list.reserveCapacity(shown + 1)
                for a in 0..<shown {
                    let (weight, id) = buffer[a]
                    let name = id == -1 ? "bias" : id == -2 ? "context:previous-turn" : names[Int(id)]
                    list.append(FeatureContribution(feature: name, weight: weight))
                }
                if m > shown {
                    var rest = 0.0
                    for a in shown..<m { rest += buffer[a].0 }
                    list.append(FeatureContribution(feature: Self.otherName(m - shown), weight: rest))
                }
                return list
            }
            return LabelScore(label: labels[i], probability: probability(i), contributions: contributions)
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

/// A lexicon and weights compiled for classification: the feature extractor and the
/// weight matrix aligned with its feature ids.
final class CompiledIntentModel: Sendable {
    let lexicon: Lexicon
    /// The weights without their per-feature table: once folded into `matrix` it would only
    /// hold a few MB of strings and small arrays for the life of the process.
    let weights: IntentWeights
    let extractor: FeatureExtractor
    /// Feature id × label (intent labels then urgency labels).
    let matrix: [Double]
    let bias: [Double]
    let names: [String]

    init(lexicon: Lexicon, weights: IntentWeights) {
        let width = IntentClassifier.width
        precondition(IntentClassifier.intentCount == IntentWeights.intentLabels.count && width == IntentWeights.width)
        self.lexicon = lexicon
        var header = weights
        header.features = [:]
        self.weights = header
        let extractor = FeatureExtractor(lexicon: lexicon, vocabulary: weights.vocabulary)
        self.extractor = extractor
        self.names = extractor.names
        var matrix = [Double](repeating: 0, count: extractor.count * width)
        for (name, row) in weights.features {
            guard let id = extractor.index[name] else { continue }
            for k in 0..<width { matrix[id * width + k] = row[k] }
        }
        self.matrix = matrix
        self.bias = weights.bias
    }

    /// The weights as loaded, rebuilt from the matrix (features the extractor does not know
    /// were never used and are not kept).
    var fullWeights: IntentWeights {
        let width = IntentClassifier.width
        var full = weights
        for (id, name) in names.enumerated() {
            let row = Array(matrix[(id * width)..<((id + 1) * width)])
            if row.contains(where: { $0 != 0 }) { full.features[name] = row }
        }
        return full
    }
}
