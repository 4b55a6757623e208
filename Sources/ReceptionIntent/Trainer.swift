import Foundation
import ReceptionCore
import Synchronization

/// Options of `reception train`; the defaults produced the shipped weights. The L2 strengths,
/// the balancing and the source weight were chosen on the dev parts of the project's corpus and
/// of the human-written one (the test parts and the unseen batches are never used for tuning).
public struct TrainingOptions: Sendable, Hashable {
    /// L2 strength on lexicon, structural and time features.
    public var l2: Double = 0.00025
    /// L2 strength on vocabulary-word features.
    public var l2Words: Double = 0.0001
    /// A word becomes a feature when it occurs in at least this many training messages (0: no word features).
    /// 2 rather than 3: the words of the human-written corpora are many and rare.
    public var minWordCount: Int = 2
    /// Also learn word pairs ("word:\"how do\"") seen in `minWordCount` messages.
    public var bigrams: Bool = true
    /// Class weights are (N / (K · n_c))^balance: 0 plain, 1 fully balanced.
    public var balance: Double = 0.25
    /// Folds of the cross-validation that fits the calibration temperature.
    public var folds: Int = 5
    public var maxIterations: Int = 400
    public var previousTurnWeight: Double = 3
    /// Weight of a message people wrote (one with a `source`) against one of the project's
    /// model-written corpus: the human text is the scarcer, and the one users will send.
    public var sourceWeight: Double = 1.5
    /// Weight of a message people wrote in the fit of the calibration temperature (the fit of
    /// the weights uses `sourceWeight`). One temperature per head serves both kinds of text,
    /// and model-written messages, the easier ones, pull it towards confidence that human
    /// text has not earned; this weight says which kind the confidences should be right for.
    /// With both human-written batches in training, 2 keeps the ECE of both dev sets (the
    /// project's and the human corpora's) under 0.05, where 3 left the project's over it
    /// (docs/intent-human-text.md); it changes no label.
    public var calibrationSourceWeight: Double = 2

    public init() {}

    var summary: [String: String] {
        ["l2": IntentWeights.number(l2), "l2_words": IntentWeights.number(l2Words), "min_word_count": String(minWordCount), "bigrams": String(bigrams),
         "balance": IntentWeights.number(balance), "folds": String(folds), "max_iterations": String(maxIterations),
         "source_weight": IntentWeights.number(sourceWeight), "calibration_source_weight": IntentWeights.number(calibrationSourceWeight)]
    }
}

/// Fits the weights of both heads by L2-regularised multinomial logistic regression
/// (L-BFGS), then calibrates each head with a temperature fitted on cross-validated
/// predictions. Deterministic: examples are sorted, the folds fixed, no randomness.
public enum Trainer {
    public static func train(_ examples: [LabelledMessage], lexicon: Lexicon, options: TrainingOptions = TrainingOptions(),
                             log: ((String) -> Void)? = nil) -> IntentWeights {
        let examples = examples.sorted { ($0.id ?? "", $0.text, $0.goal ?? "") < ($1.id ?? "", $1.text, $1.goal ?? "") }
        precondition(!examples.isEmpty, "no training examples")

        // Vocabulary: words in at least `minWordCount` messages (numbers excluded).
        var vocabulary: [String] = []
        if options.minWordCount > 0 {
            let plain = FeatureExtractor(lexicon: lexicon)
            var documentFrequency: [String: Int] = [:]
            // A message labelled more than once (each annotator's label a line of its own, sharing
            // the message's id) is one message for the vocabulary.
            var counted = Set<String>()
            for example in examples {
                if example.id != nil, !counted.insert(example.messageKey).inserted { continue }
                let words = plain.words(example.text).map { $0.allSatisfy(\.isNumber) ? "" : $0 }
                var grams = Set(words.filter { !$0.isEmpty && $0 != "?" })
                if options.bigrams && words.count > 1 {
                    for i in 0..<(words.count - 1) where !words[i].isEmpty && !words[i + 1].isEmpty && words[i] != "?" && words[i + 1] != "?" {
                        grams.insert(words[i] + " " + words[i + 1])
                    }
                }
                for gram in grams { documentFrequency[gram, default: 0] += 1 }
            }
            vocabulary = documentFrequency.filter { $0.value >= options.minWordCount }.keys.sorted()
        }
        let extractor = FeatureExtractor(lexicon: lexicon, vocabulary: vocabulary)
        let rows = examples.map { extractor.features($0.text, goal: $0.goal) }
        let featureCount = extractor.count
        var penalty = [Double](repeating: options.l2, count: featureCount)
        for id in extractor.vocabularyStart..<extractor.count { penalty[id] = options.l2Words }

        let exampleWeight = examples.map { ($0.weight ?? ($0.source == nil ? 1 : options.sourceWeight)) * ($0.share ?? 1) }
        let calibrationWeight = examples.map { $0.share != nil ? 0 : $0.weight ?? ($0.source == nil ? 1 : options.calibrationSourceWeight) }
        let intentTargets = examples.map { IntentType.knownCases.firstIndex(of: $0.intent)! }
        let urgencyTargets = examples.map { UrgencyLevel.knownCases.firstIndex(of: $0.urgency)! }
        var bias: [Double] = []
        var matrix = [[Double]](repeating: [], count: featureCount)
        var info = options.summary
        info["examples"] = String(examples.count)
        info["features"] = String(featureCount)
        info["lexicon"] = lexicon.fingerprint
        let heads = [("intent", intentTargets, IntentWeights.intentLabels.count),
                     ("urgency", urgencyTargets, IntentWeights.urgencyLabels.count)]
        let problems = heads.map { _, targets, classes in
            SoftmaxProblem(rows: rows, targets: targets, classes: classes, features: featureCount, penalty: penalty,
                           balance: options.balance, exampleWeight: exampleWeight)
        }
        let fitted = Self.fitAll(problems, examples: rows.count, options: options)
        for (h, (head, targets, classes)) in heads.enumerated() {
            let problem = problems[h], full = fitted[h].full
            // Out-of-fold logits for the temperature.
            var logits = [[Double]](repeating: [], count: rows.count)
            for (fold, model) in fitted[h].folds.enumerated() {
                for i in stride(from: fold, to: rows.count, by: options.folds) { logits[i] = problem.logits(model, row: i) }
            }
            let temperature = options.folds >= 2 ? Self.temperature(logits: logits, targets: targets, weights: calibrationWeight) : 1
            info["temperature_\(head)"] = IntentWeights.number(temperature)
            log?("\(head): temperature \(IntentWeights.number(temperature))")
            for k in 0..<classes { bias.append(full[featureCount * classes + k] / temperature) }
            for f in 0..<featureCount {
                for k in 0..<classes { matrix[f].append(full[f * classes + k] / temperature) }
            }
        }
        var features: [String: [Double]] = [:]
        for (f, row) in matrix.enumerated() {
            let rounded = row.map(IntentWeights.rounded)
            if rounded.contains(where: { $0 != 0 }) { features[extractor.name(of: f)] = rounded }
        }
        return IntentWeights(bias: bias.map(IntentWeights.rounded), features: features,
                             previousTurnWeight: options.previousTurnWeight, training: info)
    }

    /// Every head's fit on all examples and on each cross-validation fold. The fits share
    /// nothing, so they run side by side on every core; each is the same deterministic
    /// computation wherever it runs, so the weights do not depend on the machine.
    static func fitAll(_ problems: [SoftmaxProblem], examples: Int, options: TrainingOptions) -> [(full: [Double], folds: [[Double]])] {
        let folds = options.folds >= 2 ? options.folds : 0
        let jobs = problems.indices.flatMap { head in (-1..<folds).map { (head: head, fold: $0) } }
        let results = Mutex([[Double]](repeating: [], count: jobs.count))
        DispatchQueue.concurrentPerform(iterations: jobs.count) { j in
            let (head, fold) = jobs[j]
            let subset = fold < 0 ? Array(0..<examples) : (0..<examples).filter { $0 % folds != fold }
            let model = problems[head].fit(all: subset, maxIterations: options.maxIterations)
            results.withLock { $0[j] = model }
        }
        let models = results.withLock { $0 }
        return problems.indices.map { head in
            let own = zip(jobs, models).filter { $0.0.head == head }.map(\.1)
            return (full: own[0], folds: Array(own.dropFirst()))
        }
    }

    /// The temperature minimising the negative log-likelihood (golden-section search on log T).
    /// Each example's loss counts `weights[i]` times, as in the fit.
    static func temperature(logits: [[Double]], targets: [Int], weights: [Double]) -> Double {
        func loss(_ logT: Double) -> Double {
            let t = exp(logT)
            var total = 0.0
            for (i, (row, target)) in zip(logits, targets).enumerated() {
                let scaled = row.map { $0 / t }
                let maximum = scaled.max()!
                let logSum = log(scaled.reduce(0) { $0 + exp($1 - maximum) }) + maximum
                total += weights[i] * (logSum - scaled[target])
            }
            return total
        }
        var low = log(0.2), high = log(5.0)
        let ratio = (sqrt(5.0) - 1) / 2
        var a = high - ratio * (high - low), b = low + ratio * (high - low)
        var fa = loss(a), fb = loss(b)
        for _ in 0..<60 {
            if fa < fb { high = b; b = a; fb = fa; a = high - ratio * (high - low); fa = loss(a) }
            else { low = a; a = b; fa = fb; b = low + ratio * (high - low); fb = loss(b) }
        }
        return exp((low + high) / 2)
    }
}
