import Foundation
import ReceptionCore

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
            for example in examples {
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

        let exampleWeight = examples.map { $0.weight ?? ($0.source == nil ? 1 : options.sourceWeight) }
        let calibrationWeight = examples.map { $0.weight ?? ($0.source == nil ? 1 : options.calibrationSourceWeight) }
        let intentTargets = examples.map { IntentType.knownCases.firstIndex(of: $0.intent)! }
        let urgencyTargets = examples.map { UrgencyLevel.knownCases.firstIndex(of: $0.urgency)! }
        var bias: [Double] = []
        var matrix = [[Double]](repeating: [], count: featureCount)
        var info = options.summary
        info["examples"] = String(examples.count)
        info["features"] = String(featureCount)
        info["lexicon"] = lexicon.fingerprint
        for (head, targets, classes) in [("intent", intentTargets, IntentWeights.intentLabels.count),
                                         ("urgency", urgencyTargets, IntentWeights.urgencyLabels.count)] {
            let problem = Problem(rows: rows, targets: targets, classes: classes, features: featureCount, penalty: penalty,
                                  balance: options.balance, exampleWeight: exampleWeight)
            let full = problem.fit(all: Array(0..<rows.count), maxIterations: options.maxIterations)
            // Out-of-fold logits for the temperature.
            var logits = [[Double]](repeating: [], count: rows.count)
            if options.folds >= 2 {
                for fold in 0..<options.folds {
                    let trainIndices = (0..<rows.count).filter { $0 % options.folds != fold }
                    let model = problem.fit(all: trainIndices, maxIterations: options.maxIterations)
                    for i in stride(from: fold, to: rows.count, by: options.folds) { logits[i] = problem.logits(model, row: i) }
                }
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

/// One head's regularised softmax regression over sparse binary rows.
/// Parameters: feature-major weights (features × classes), then the biases.
struct Problem {
    let rows: [[Int32]]
    let targets: [Int]
    let classes: Int
    let features: Int
    let penalty: [Double]
    /// Each example's weight in the loss: its class's balancing weight times its own.
    let weight: [Double]

    /// Class counts are of weighted examples, so balancing applies to the mix as weighted.
    init(rows: [[Int32]], targets: [Int], classes: Int, features: Int, penalty: [Double], balance: Double,
         exampleWeight: [Double]) {
        self.rows = rows
        self.targets = targets
        self.classes = classes
        self.features = features
        self.penalty = penalty
        var counts = [Double](repeating: 0, count: classes)
        for (t, w) in zip(targets, exampleWeight) { counts[t] += w }
        let n = counts.reduce(0, +)
        let classWeight = counts.map { $0 == 0 ? 0 : pow(n / (Double(classes) * $0), balance) }
        weight = zip(targets, exampleWeight).map { classWeight[$0] * $1 }
    }

    func logits(_ x: [Double], row i: Int) -> [Double] {
        var out = Array(x[(features * classes)..<(features * classes + classes)])
        for f in rows[i] { for k in 0..<classes { out[k] += x[Int(f) * classes + k] } }
        return out
    }

    func lossAndGradient(_ x: [Double], subset: [Int]) -> (Double, [Double]) {
        var gradient = [Double](repeating: 0, count: x.count)
        var loss = 0.0
        var totalWeight = 0.0
        for i in subset { totalWeight += weight[i] }
        let scale = 1 / totalWeight
        var probabilities = [Double](repeating: 0, count: classes)
        let biasOffset = features * classes
        x.withUnsafeBufferPointer { x in
            gradient.withUnsafeMutableBufferPointer { g in
                for i in subset {
                    let row = rows[i]
                    for k in 0..<classes { probabilities[k] = x[biasOffset + k] }
                    for f in row { let base = Int(f) * classes; for k in 0..<classes { probabilities[k] += x[base + k] } }
                    var maximum = -Double.infinity
                    for k in 0..<classes where probabilities[k] > maximum { maximum = probabilities[k] }
                    var sum = 0.0
                    for k in 0..<classes { probabilities[k] = exp(probabilities[k] - maximum); sum += probabilities[k] }
                    let weight = self.weight[i] * scale
                    loss -= weight * (log(probabilities[targets[i]] / sum))
                    for k in 0..<classes {
                        var d = probabilities[k] / sum
                        if k == targets[i] { d -= 1 }
                        d *= weight
                        probabilities[k] = d
                        g[biasOffset + k] += d
                    }
                    for f in row { let base = Int(f) * classes; for k in 0..<classes { g[base + k] += probabilities[k] } }
                }
                for f in 0..<features {
                    let lambda = penalty[f]
                    let base = f * classes
                    for k in 0..<classes {
                        let w = x[base + k]
                        loss += 0.5 * lambda * w * w
                        g[base + k] += lambda * w
                    }
                }
            }
        }
        return (loss, gradient)
    }

    /// L-BFGS (memory 10) with a backtracking Armijo line search, from zero.
    func fit(all subset: [Int], maxIterations: Int) -> [Double] {
        let size = features * classes + classes
        var x = [Double](repeating: 0, count: size)
        var (f, g) = lossAndGradient(x, subset: subset)
        var sHistory: [[Double]] = [], yHistory: [[Double]] = [], rhoHistory: [Double] = []
        func dot(_ a: [Double], _ b: [Double]) -> Double {
            var s = 0.0
            a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in for i in 0..<a.count { s += a[i] * b[i] } } }
            return s
        }
        for iteration in 0..<maxIterations {
            // Two-loop recursion.
            var q = g
            var alphas = [Double](repeating: 0, count: sHistory.count)
            for j in stride(from: sHistory.count - 1, through: 0, by: -1) {
                alphas[j] = rhoHistory[j] * dot(sHistory[j], q)
                for i in 0..<size { q[i] -= alphas[j] * yHistory[j][i] }
            }
            var gamma = 1.0
            if let s = sHistory.last, let y = yHistory.last { gamma = dot(s, y) / dot(y, y) }
            else { gamma = 1 / max(sqrt(dot(g, g)), 1e-12) }
            for i in 0..<size { q[i] *= gamma }
            for j in 0..<sHistory.count {
                let beta = rhoHistory[j] * dot(yHistory[j], q)
                for i in 0..<size { q[i] += sHistory[j][i] * (alphas[j] - beta) }
            }
            var direction = q.map { -$0 }
            var slope = dot(g, direction)
            if slope >= 0 { // not a descent direction: restart with steepest descent
                direction = g.map { -$0 }
                slope = dot(g, direction)
                sHistory.removeAll(); yHistory.removeAll(); rhoHistory.removeAll()
            }
            var step = 1.0
            var candidate = x, fNew = f, gNew = g
            var accepted = false
            for _ in 0..<40 {
                for i in 0..<size { candidate[i] = x[i] + step * direction[i] }
                (fNew, gNew) = lossAndGradient(candidate, subset: subset)
                if fNew <= f + 1e-4 * step * slope { accepted = true; break }
                step *= 0.5
            }
            if !accepted { break }
            var s = [Double](repeating: 0, count: size), y = s
            for i in 0..<size { s[i] = candidate[i] - x[i]; y[i] = gNew[i] - g[i] }
            let sy = dot(s, y)
            if sy > 1e-12 {
                sHistory.append(s); yHistory.append(y); rhoHistory.append(1 / sy)
                if sHistory.count > 10 { sHistory.removeFirst(); yHistory.removeFirst(); rhoHistory.removeFirst() }
            }
            let improvement = f - fNew
            x = candidate; f = fNew; g = gNew
            let gradientNorm = g.reduce(0) { max($0, abs($1)) }
            if gradientNorm < 1e-7 || (iteration > 5 && improvement < 1e-11 * max(1, abs(f))) { break }
        }
        return x
    }
}
