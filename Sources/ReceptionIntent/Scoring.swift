import Foundation
import ReceptionCore

/// The labels a previous turn carries over to a short follow-up, as indices into the logits
/// (intent labels, then urgency labels; -1: none), and the logit they add.
struct Carried: Sendable {
    var intent = -1
    var urgency = -1
    var weight = 0.0

    init() {}

    init(_ previous: ConversationTurn?, weight: Double) {
        guard let previous, weight != 0 else { return }
        if let intent = previous.intent, let k = IntentType.knownCases.firstIndex(of: intent) { self.intent = k }
        if let urgency = previous.urgency, let k = UrgencyLevel.knownCases.firstIndex(of: urgency) {
            self.urgency = IntentClassifier.intentCount + k
        }
        self.weight = weight
    }
}

/// What one classification computes: label indices (into the full width), the runners-up, and
/// the confidences of the chosen labels.
struct Scores: Sendable {
    var intent = 0, intentRunnerUp = -1, urgency = 0, urgencyRunnerUp = -1
    var intentConfidence = 0.0, urgencyConfidence = 0.0
}

/// The two logistic-regression heads over a message's active features: the weight rows and
/// bias as raw pointers (a plain value: copying it into the hot path's closures costs no
/// reference counting). Valid while its `CompiledIntentModel` lives.
///
/// The rows are folded to eight lanes: a softmax does not change when one number is taken
/// from all of a head's logits, so the last urgency label's weight is taken from each urgency
/// weight of the row, and that label's logit is its carry-over alone. A row is then 32 bytes,
/// aligned, in one cache line, where nine floats straddled two lines one row in two.
struct Scorer: @unchecked Sendable {
    let rows: UnsafePointer<SIMD8<Float>>
    let bias: UnsafePointer<Double>
    static let width = IntentClassifier.width
    static let intentCount = IntentClassifier.intentCount

    init(_ model: CompiledIntentModel) {
        rows = model.scoringRows
        bias = model.scoringBias
    }

    /// A feature's `width` weights folded as the scorer reads them: eight lanes, and the last
    /// urgency label's weight (kept beside them for explanations). Each weight is rounded to
    /// single precision first; the differences are taken in double precision, then rounded.
    static func fold<Row: Collection<Double>>(_ row: Row) -> (SIMD8<Float>, Float) where Row.Index == Int {
        let last = Double(Float(row[width - 1]))
        var lanes = SIMD8<Float>()
        for k in 0..<8 {
            let weight = Double(Float(row[k]))
            lanes[k] = Float(k < intentCount ? weight : weight - last)
        }
        return (lanes, Float(last))
    }

    /// The bias folded likewise: its last urgency entry is 0.
    static func fold(bias: [Double]) -> [Double] {
        let last = width - 1
        return (0..<width).map { k in k < intentCount ? bias[k] : bias[k] - bias[last] }
    }

    /// Scores a message. `buffer` holds at least `2 × width` doubles: the logits, then the
    /// probabilities of both heads (each head's softmax over its own labels).
    @inline(__always)
    func scores(_ active: UnsafeBufferPointer<Int32>, carried: Carried, into buffer: UnsafeMutableBufferPointer<Double>) -> Scores {
        let logits = UnsafeMutableBufferPointer(rebasing: buffer[0..<Self.width])
        let probabilities = UnsafeMutableBufferPointer(rebasing: buffer[Self.width..<(2 * Self.width)])
        self.logits(active, carried: carried, into: logits)
        var scores = Scores()
        (scores.intent, scores.intentRunnerUp) = Self.softmax(logits, range: 0..<Self.intentCount, into: probabilities)
        (scores.urgency, scores.urgencyRunnerUp) = Self.softmax(logits, range: Self.intentCount..<Self.width, into: probabilities)
        scores.intentConfidence = probabilities[scores.intent]
        scores.urgencyConfidence = probabilities[scores.urgency]
        return scores
    }

    /// The chosen label of each head and its confidence, without the runners-up and the other
    /// labels' probabilities (all plain `classify` needs). The same arithmetic as `scores`, so the
    /// same labels and confidences, with one division per head instead of one per label.
    @inline(__always)
    func best(_ active: UnsafeBufferPointer<Int32>, carried: Carried, into logits: UnsafeMutableBufferPointer<Double>) -> Scores {
        self.logits(active, carried: carried, into: logits)
        var scores = Scores()
        (scores.intent, scores.intentConfidence) = Self.best(logits, range: 0..<Self.intentCount)
        (scores.urgency, scores.urgencyConfidence) = Self.best(logits, range: Self.intentCount..<Self.width)
        return scores
    }

    /// The first label with the highest logit and its softmax probability: 1 / Σ exp(logit − best),
    /// summed in label order as `softmax` sums it.
    @inline(__always)
    private static func best(_ logits: UnsafeMutableBufferPointer<Double>, range: Range<Int>) -> (Int, Double) {
        var best = range.lowerBound
        for k in range where logits[k] > logits[best] { best = k }
        let maximum = logits[best]
        var sum = 0.0
        for k in range { sum += exp(logits[k] - maximum) }
        return (best, 1 / sum)
    }

    /// The logits of both heads, with the previous turn's labels carried over.
    @inline(__always)
    private func logits(_ active: UnsafeBufferPointer<Int32>, carried: Carried, into logits: UnsafeMutableBufferPointer<Double>) {
        self.logits(active, into: logits)
        if carried.intent >= 0 { logits[carried.intent] += carried.weight }
        if carried.urgency >= 0 { logits[carried.urgency] += carried.weight }
    }

    /// Bias plus the folded weight rows of the active features, summed in registers and
    /// widened once at the end.
    @inline(__always)
    private func logits(_ active: UnsafeBufferPointer<Int32>, into logits: UnsafeMutableBufferPointer<Double>) {
        var lanes = SIMD8<Float>(repeating: 0)
        for id in active { lanes += rows[Int(id)] }
        for k in 0..<8 { logits[k] = bias[k] + Double(lanes[k]) }
        logits[8] = bias[8]
    }

    /// Softmax over one head's slice of `logits`, written to the same slice of `output`;
    /// returns the indices (into the full width) of the best and second-best labels.
    @inline(__always)
    private static func softmax(_ logits: UnsafeMutableBufferPointer<Double>, range: Range<Int>,
                                into output: UnsafeMutableBufferPointer<Double>) -> (best: Int, second: Int) {
        var maximum = -Double.infinity
        for k in range where logits[k] > maximum { maximum = logits[k] }
        var sum = 0.0
        for k in range {
            let e = exp(logits[k] - maximum)
            output[k] = e
            sum += e
        }
        var best = range.lowerBound, second = -1
        for k in range {
            output[k] /= sum
            if k == range.lowerBound { continue }
            if output[k] > output[best] { second = best; best = k }
            else if second < 0 || output[k] > output[second] { second = k }
        }
        return (best, second)
    }
}
