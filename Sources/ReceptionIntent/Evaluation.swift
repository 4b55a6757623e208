import Foundation
import ReceptionCore

/// Metrics of one head (intent or urgency) over a labelled corpus.
public struct HeadMetrics: Sendable, Hashable, Codable {
    public struct PerLabel: Sendable, Hashable, Codable {
        public var label: String
        public var precision: Double
        public var recall: Double
        public var f1: Double
        public var support: Int
    }
    /// One bin of the reliability table: predictions whose confidence fell in [lower, upper).
    public struct Bin: Sendable, Hashable, Codable {
        public var lower: Double
        public var upper: Double
        public var count: Int
        public var meanConfidence: Double
        public var accuracy: Double
    }

    public var labels: [String]
    public var count: Int
    public var accuracy: Double
    public var macroF1: Double
    public var perLabel: [PerLabel]

    /// A label's figures as shown in tables: "—" where a figure has no meaning (precision of a
    /// label nothing was predicted as; recall and F1 of a label no message has), which a
    /// 0.000 made look like a failure beside a perfect accuracy.
    public func shownFigures(_ index: Int, _ format: (Double) -> String) -> (precision: String, recall: String, f1: String) {
        let label = perLabel[index]
        let predicted = confusion.reduce(0) { $0 + $1[index] }
        return (predicted == 0 ? "—" : format(label.precision), label.support == 0 ? "—" : format(label.recall),
                label.support == 0 ? "—" : format(label.f1))
    }
    /// confusion[truth][predicted], in `labels` order.
    public var confusion: [[Int]]
    public var reliability: [Bin]
    /// Expected calibration error over `reliability` (weighted mean |accuracy − confidence|).
    public var ece: Double
    /// Counts of predictions by confidence decile (for the histogram).
    public var confidenceHistogram: [Int]

    /// Builds the metrics from (truth, predicted, confidence) triples, labels as indices.
    public init(labels: [String], truth: [Int], predicted: [Int], confidence: [Double], bins: Int = 10) {
        self.labels = labels
        let k = labels.count
        count = truth.count
        var confusion = [[Int]](repeating: [Int](repeating: 0, count: k), count: k)
        for (t, p) in zip(truth, predicted) { confusion[t][p] += 1 }
        self.confusion = confusion
        let correct = (0..<k).reduce(0) { $0 + confusion[$1][$1] }
        accuracy = count == 0 ? 0 : Double(correct) / Double(count)
        perLabel = (0..<k).map { label in
            let tp = Double(confusion[label][label])
            let predictedCount = Double((0..<k).reduce(0) { $0 + confusion[$1][label] })
            let support = confusion[label].reduce(0, +)
            let precision = predictedCount == 0 ? 0 : tp / predictedCount
            let recall = support == 0 ? 0 : tp / Double(support)
            let f1 = precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall)
            return PerLabel(label: labels[label], precision: precision, recall: recall, f1: f1, support: support)
        }
        let present = perLabel.filter { $0.support > 0 }
        macroF1 = present.isEmpty ? 0 : present.map(\.f1).reduce(0, +) / Double(present.count)
        var binCount = [Int](repeating: 0, count: bins), binConfidence = [Double](repeating: 0, count: bins)
        var binCorrect = [Int](repeating: 0, count: bins)
        for i in 0..<truth.count {
            let b = min(bins - 1, max(0, Int(confidence[i] * Double(bins))))
            binCount[b] += 1
            binConfidence[b] += confidence[i]
            if truth[i] == predicted[i] { binCorrect[b] += 1 }
        }
        reliability = (0..<bins).map { b in
            Bin(lower: Double(b) / Double(bins), upper: Double(b + 1) / Double(bins), count: binCount[b],
                meanConfidence: binCount[b] == 0 ? 0 : binConfidence[b] / Double(binCount[b]),
                accuracy: binCount[b] == 0 ? 0 : Double(binCorrect[b]) / Double(binCount[b]))
        }
        let total = Double(count)
        ece = total == 0 ? 0 : reliability.reduce(0) { $0 + Double($1.count) / total * abs($1.accuracy - $1.meanConfidence) }
        confidenceHistogram = binCount
    }
}

/// A message the classifier got wrong on at least one head, with its explanation.
public struct EvaluationError: Sendable, Hashable, Codable {
    public var location: String
    public var id: String?
    public var text: String
    public var expectedIntent: String
    public var expectedUrgency: String
    public var classification: IntentClassification
    /// The higher confidence of the wrong heads: how sure the classifier was while wrong.
    public var wrongConfidence: Double
    /// Other lines with the same message and the same labels, got wrong the same way: listed
    /// here, not as errors of their own (nil when there are none); the first
    /// `repeatsListed` of them, and how many there are in all.
    public var repeatedAt: [String]?
    public var repeatedLines: Int?

    /// A message a corpus holds ten thousand times names the first few places, not all.
    public static let repeatsListed = 20
}

/// The result of `reception eval`.
public struct EvaluationReport: Sendable, Hashable, Codable {
    public var files: [String]
    public var count: Int
    public var skipped: Int
    public var issues: [CorpusIssue]
    public var intent: HeadMetrics
    public var urgency: HeadMetrics
    /// Most confident mistakes first.
    public var worstErrors: [EvaluationError]
    public var seconds: Double
    /// The model evaluated (`IntentClassifier.modelName`).
    public var model: String?

    public static func evaluate(_ messages: [LabelledMessage], classifier: IntentClassifier, files: [String] = [],
                                issues: [CorpusIssue] = [], worst: Int = 10,
                                progress: (@Sendable (Int, Int) -> Void)? = nil) -> EvaluationReport {
        evaluateWithOutcomes(messages, classifier: classifier, files: files, issues: issues, worst: worst, progress: progress).report
    }

    /// Whether the classifier got each message right, head by head, in the order given: what a
    /// paired comparison of two models on the same messages needs (`PairedComparison`).
    public struct Outcomes: Sendable, Hashable {
        public var intentRight: [Bool]
        public var urgencyRight: [Bool]
    }

    /// `evaluate`, with each message's outcome.
    public static func evaluateWithOutcomes(_ messages: [LabelledMessage], classifier: IntentClassifier, files: [String] = [],
                                            issues: [CorpusIssue] = [], worst: Int = 10,
                                            progress: (@Sendable (Int, Int) -> Void)? = nil) -> (report: EvaluationReport, outcomes: Outcomes) {
        let start = Date()
        let n = messages.count
        // Classify in parallel chunks; each chunk writes only its own slots.
        let results = UnsafeMutableBufferPointer<(Int, Double, Int, Double)>.allocate(capacity: max(n, 1))
        defer { results.deallocate() }
        let chunk = 2048
        let chunks = (n + chunk - 1) / chunk
        let done = Counter()
        let intents = IntentType.knownCases, urgencies = UrgencyLevel.knownCases
        nonisolated(unsafe) let slots = results
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            for i in (c * chunk)..<min(n, (c + 1) * chunk) {
                let p = classifier.probabilities(messages[i].text, goal: messages[i].goal)
                var bi = 0, bu = 0
                for k in 1..<p.intent.count where p.intent[k] > p.intent[bi] { bi = k }
                for k in 1..<p.urgency.count where p.urgency[k] > p.urgency[bu] { bu = k }
                slots[i] = (bi, p.intent[bi], bu, p.urgency[bu])
            }
            let finished = done.add(min(n, (c + 1) * chunk) - c * chunk)
            progress?(finished, n)
        }
        var truthI: [Int] = [], truthU: [Int] = [], predI: [Int] = [], predU: [Int] = [], confI: [Double] = [], confU: [Double] = []
        truthI.reserveCapacity(n); truthU.reserveCapacity(n)
        var wrong: [(Int, Double)] = []
        for (i, message) in messages.enumerated() {
            let r = results[i]
            let ti = intents.firstIndex(of: message.intent)!, tu = urgencies.firstIndex(of: message.urgency)!
            truthI.append(ti); truthU.append(tu)
            predI.append(r.0); confI.append(r.1); predU.append(r.2); confU.append(r.3)
            if r.0 != ti || r.2 != tu {
                wrong.append((i, max(r.0 != ti ? r.1 : 0, r.2 != tu ? r.3 : 0)))
            }
        }
        wrong.sort { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        // A message a corpus holds several times is one error, with where it repeats: listed
        // once per line, it filled the list with one mistake. (Each line still counts in the
        // figures above: it is a line of the corpus.)
        struct Repeat: Hashable { var text: String, goal: String?, intent: IntentType, urgency: UrgencyLevel }
        var firstOf: [Repeat: Int] = [:]
        var distinct: [(index: Int, confidence: Double, repeats: [String], count: Int)] = []
        for (i, confidence) in wrong {
            let message = messages[i]
            let key = Repeat(text: message.text, goal: message.goal, intent: message.intent, urgency: message.urgency)
            if let first = firstOf[key] {
                distinct[first].count += 1
                if distinct[first].repeats.count < EvaluationError.repeatsListed { distinct[first].repeats.append(message.location) }
                continue
            }
            firstOf[key] = distinct.count
            distinct.append((i, confidence, [], 0))
        }
        let worstErrors = distinct.prefix(worst).map { i, confidence, repeats, count in
            let message = messages[i]
            return EvaluationError(location: message.location, id: message.id, text: message.text,
                                   expectedIntent: message.intent.rawValue, expectedUrgency: message.urgency.rawValue,
                                   classification: classifier.classify(message.text, goal: message.goal, explain: true), wrongConfidence: confidence,
                                   repeatedAt: repeats.isEmpty ? nil : repeats, repeatedLines: count == 0 ? nil : count)
        }
        let report = EvaluationReport(
            files: files, count: n, skipped: issues.count, issues: issues,
            intent: HeadMetrics(labels: IntentWeights.intentLabels, truth: truthI, predicted: predI, confidence: confI),
            urgency: HeadMetrics(labels: IntentWeights.urgencyLabels, truth: truthU, predicted: predU, confidence: confU),
            worstErrors: Array(worstErrors), seconds: Date().timeIntervalSince(start), model: classifier.modelName)
        let outcomes = Outcomes(intentRight: zip(truthI, predI).map { $0 == $1 }, urgencyRight: zip(truthU, predU).map { $0 == $1 })
        return (report, outcomes)
    }
}

/// A thread-safe running total for progress reports.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add(_ amount: Int) -> Int {
        lock.lock(); defer { lock.unlock() }
        value += amount
        return value
    }
}
