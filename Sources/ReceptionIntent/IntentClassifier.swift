import Foundation
import ReceptionCore

/// Local, fast intent and urgency classifier: lexicon cues, structural and time features,
/// two multinomial logistic-regression heads with calibrated (temperature-scaled)
/// probabilities, and the contributing features for `/intent` and `classify --explain`.
public struct IntentClassifier: Sendable {
    /// nil: the shipped model, loaded once per process on first use (and warmed up in the
    /// background by `init()`, so creating a classifier never delays a program's start).
    private let custom: CompiledIntentModel?
    /// What `classify` reads of `custom`, as plain values in memory of its own, which the hot
    /// path reads through a pointer (nil: the shipped model's).
    private let customHotPath: Frozen<HotPath>?
    @inline(__always) private var model: CompiledIntentModel { custom ?? Self.shippedModel }
    /// A pointer rather than the value: the value is some 300 bytes, and each call copied it
    /// several times over (memcpy in the disassembly) before reading a few fields.
    @inline(__always) private var hotPath: UnsafePointer<HotPath> { UnsafePointer(customHotPath?.pointer ?? Self.shippedHotPath.pointer) }

    /// Which model classifies, for people: "built-in", or the weights file a person trained
    /// (`/intent`, `eval`, `label` say it).
    public let modelName: String

    public var lexicon: Lexicon { model.lexicon }
    public var weights: IntentWeights { model.fullWeights }
    public var extractor: FeatureExtractor { model.extractor }

    private static let intentLabels = IntentWeights.intentLabels
    private static let urgencyLabels = IntentWeights.urgencyLabels
    // Literal so the hot path needs no lazy-global checks (checked against IntentWeights in init).
    static let intentCount = 5
    static let width = 9
    /// Contributions listed per label in an explanation; the rest are summed into one
    /// `other features (N)` entry, listed last.
    public static let explanationLimit = 10

    /// The shipped lexicon and weights.
    public init() {
        custom = nil
        customHotPath = nil
        modelName = Self.builtInName
        Self.warmUp
    }

    /// `modelName` of the shipped model.
    public static let builtInName = "built-in"

    private static let shippedModel = CompiledIntentModel.shipped()
    private static let shippedHotPath = Frozen([HotPath(shippedModel)])

    /// A model's tables, weights and carry-over weight as plain values (pointers into memory the
    /// model owns, and it lives as long as the classifier or the process): reading them costs
    /// no reference counting, unlike the model itself.
    private struct HotPath: Sendable {
        let tables: ExtractorTables
        let scorer: Scorer
        let previousTurnWeight: Double

        init(_ model: CompiledIntentModel) {
            tables = model.extractor.tables
            scorer = Scorer(model)
            previousTurnWeight = model.previousTurnWeight
        }
    }
    private static let warmUp: Void = {
        DispatchQueue.global(qos: .userInitiated).async { _ = IntentClassifier.shippedModel }
    }()

    public init(lexicon: Lexicon, weights: IntentWeights, name: String = "custom") {
        let model = CompiledIntentModel(lexicon: lexicon, weights: weights)
        custom = model
        customHotPath = Frozen([HotPath(model)])
        modelName = name
    }

    /// A user lexicon and/or weights file; either defaults to the shipped one.
    /// Errors name the file and where in it (line, and column where the reader knows it).
    /// Weights trained with another lexicon than the one given (or the built-in one) are
    /// refused: their cue features would not be the lexicon's.
    public init(lexiconURL: URL?, weightsURL: URL?) throws {
        let lexicon = try lexiconURL.map { try Lexicon(contentsOf: $0) } ?? .shipped
        guard let weightsURL else {
            if lexiconURL == nil { self.init(); return }
            self.init(lexicon: lexicon, weights: .shipped, name: "built-in weights, lexicon \(lexiconURL!.path)")
            return
        }
        let weights = try IntentWeights(contentsOf: weightsURL)
        if let trainedWith = weights.training["lexicon"], trainedWith != lexicon.fingerprint {
            let text = (try? PlainFile.readText(weightsURL.path)) ?? ""
            let which = lexiconURL.map { "the lexicon \($0.path)" } ?? "the built-in lexicon"
            throw LexiconError(source: weightsURL.path, line: IntentWeights.line(of: "lexicon", in: text),
                               message: "trained with another lexicon than \(which) (fingerprint \(trainedWith), not \(lexicon.fingerprint)); "
                                   + "give the lexicon it was trained with (--lexicon FILE, or \"lexicon\" in the intent settings for the REPL), or train it again")
        }
        self.init(lexicon: lexicon, weights: weights,
                  name: weightsURL.path + (lexiconURL.map { " (lexicon \($0.path))" } ?? ""))
    }

    /// The model a person chose (a weights file, and its lexicon if not the built-in one), or
    /// the built-in one when they chose none. A file that cannot be used (missing, broken, cut
    /// short, from another version, trained with another lexicon) is refused with the reason,
    /// located in the file, and the built-in model classifies instead: a chat must not fail to
    /// start, nor classify with weights it only half read.
    public static func choosing(weights: String?, lexicon: String?) -> (classifier: IntentClassifier, refusal: String?) {
        guard weights != nil || lexicon != nil else { return (IntentClassifier(), nil) }
        do {
            return (try IntentClassifier(lexiconURL: lexicon.map { URL(fileURLWithPath: $0) },
                                         weightsURL: weights.map { URL(fileURLWithPath: $0) }), nil)
        } catch {
            return (IntentClassifier(), "\(error)")
        }
    }

    /// Classifies one message. `goal` is the conversation goal (`TaskContext.goal`);
    /// `previous` the turn before, whose labels carry over to a short follow-up.
    ///
    /// `explain` adds the contributing features of the chosen label and the runner-up of each
    /// head (for `/intent` and `classify --explain`). They cost more than the classification
    /// itself, so the default path skips them; it allocates nothing on the heap.
    public func classify(_ text: String, goal: String? = nil, previous: ConversationTurn? = nil, explain: Bool = false) -> IntentClassification {
        if explain { return classifyExplained(model, text, goal: goal, previous: previous) }
        // Only plain values (pointers, indices) go into the closure: no reference counting per call.
        let hot = hotPath
        let carried = previous != nil && Self.readsAsFollowUp(text) ? Carried(previous, weight: hot.pointee.previousTurnWeight) : Carried()
        let scores = hot.pointee.tables.withFeatures(text, goal: goal) { active, tokenCount in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.width) { logits in
                hot.pointee.scorer.best(active, carried: tokenCount <= Self.followUpTokens ? carried : Carried(), into: logits)
            }
        }
        return IntentClassification(
            intent: Self.intent(at: scores.intent), urgency: Self.urgency(at: scores.urgency - Self.intentCount),
            intentConfidence: scores.intentConfidence, urgencyConfidence: scores.urgencyConfidence)
    }

    /// `classify` with the contributions of each head's chosen label and runner-up.
    private func classifyExplained(_ model: CompiledIntentModel, _ text: String, goal: String?, previous: ConversationTurn?) -> IntentClassification {
        let scorer = Scorer(model)
        let carried = previous != nil && Self.readsAsFollowUp(text) ? Carried(previous, weight: model.previousTurnWeight) : Carried()
        let (scores, explanations) = model.extractor.withFeatures(text, goal: goal) { active, tokenCount in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * Self.width) { buffer in
                let carried = tokenCount <= Self.followUpTokens ? carried : Carried()
                let scores = scorer.scores(active, carried: carried, into: buffer)
                let explainer = Explainer(model: model, active: active,
                                          probabilities: UnsafeMutableBufferPointer(rebasing: buffer[Self.width...]), carried: carried)
                return (scores, (intent: explainer.head(labels: Self.intentLabels, offset: 0, chosen: scores.intent, runnerUp: scores.intentRunnerUp),
                                 urgency: explainer.head(labels: Self.urgencyLabels, offset: Self.intentCount,
                                                         chosen: scores.urgency, runnerUp: scores.urgencyRunnerUp)))
            }
        }
        return IntentClassification(
            intent: Self.intent(at: scores.intent), urgency: Self.urgency(at: scores.urgency - Self.intentCount),
            intentConfidence: scores.intentConfidence, urgencyConfidence: scores.urgencyConfidence,
            intentExplanation: explanations.intent, urgencyExplanation: explanations.urgency)
    }

    /// A follow-up (`readsAsFollowUp`) of at most this many tokens ("and tomorrow?") inherits the
    /// previous turn's labels.
    static let followUpTokens = 8

    /// `IntentType.knownCases[index]`, as a literal (no array, no copy of a payload).
    @inline(__always)
    static func intent(at index: Int) -> IntentType {
        switch index {
        case 0: .decision
        case 1: .research
        case 2: .action
        case 3: .curiosity
        default: .validation
        }
    }

    /// `UrgencyLevel.knownCases[index]`, as a literal.
    @inline(__always)
    static func urgency(at index: Int) -> UrgencyLevel {
        switch index {
        case 0: .immediate
        case 1: .soon
        case 2: .planning
        default: .exploratory
        }
    }

    /// The probabilities of both heads without explanations (for evaluation at scale).
    public func probabilities(_ text: String, goal: String? = nil) -> (intent: [Double], urgency: [Double]) {
        let hot = hotPath
        return hot.pointee.tables.withFeatures(text, goal: goal) { active, _ in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * Self.width) { buffer in
                _ = hot.pointee.scorer.scores(active, carried: Carried(), into: buffer)
                return (Array(buffer[Self.width..<(Self.width + Self.intentCount)]), Array(buffer[(Self.width + Self.intentCount)...]))
            }
        }
    }
}

/// Builds the contribution lists of an explained classification.
private struct Explainer {
    let model: CompiledIntentModel
    let active: UnsafeBufferPointer<Int32>
    let probabilities: UnsafeMutableBufferPointer<Double>
    /// The labels a previous turn carried over, and the weight it added.
    let carried: Carried

    /// Contributions listed per label; the rest are summed into one `other features (N)` entry, listed last.
    static let limit = IntentClassifier.explanationLimit

    /// A weight as the weights file writes it (five decimals; the matrix holds single precision).
    static func asWritten(_ weight: Double) -> Double { (weight * 100_000).rounded() / 100_000 }

    private static let otherNames = (0...64).map { "other features (\($0))" }
    static func otherFeatures(_ count: Int) -> String { count < otherNames.count ? otherNames[count] : "other features (\(count))" }

    func head(labels: [String], offset: Int, chosen: Int, runnerUp: Int) -> HeadExplanation {
        HeadExplanation(chosen: score(labels: labels, offset: offset, k: chosen),
                        runnerUp: runnerUp >= 0 ? score(labels: labels, offset: offset, k: runnerUp) : nil)
    }

    private func score(labels: [String], offset: Int, k: Int) -> LabelScore {
        var entries: [(weight: Double, id: Int32)] = [(model.biasPointer[k], -1)]
        entries.reserveCapacity(active.count + 3)
        if k == carried.intent || k == carried.urgency { entries.append((carried.weight, -2)) }
        for id in active {
            let weight = model.weight(Int(id), k)
            if weight != 0 { entries.append((weight, id)) }
        }
        // The largest by magnitude first (ties keep extraction order): an insertion into the
        // short list of those kept, since only `limit` of often 40 entries are shown.
        var top: [Int] = []
        top.reserveCapacity(Self.limit + 1)
        for index in entries.indices {
            let size = abs(entries[index].weight)
            if top.count == Self.limit, size <= abs(entries[top[top.count - 1]].weight) { continue }
            var position = top.count
            while position > 0 && abs(entries[top[position - 1]].weight) < size { position -= 1 }
            top.insert(index, at: position)
            if top.count > Self.limit { top.removeLast() }
        }
        var list = top.map { i -> FeatureContribution in
            let (weight, id) = entries[i]
            let name = id == -1 ? "bias" : id == -2 ? "context:previous-turn" : model.extractor.name(of: Int(id))
            return FeatureContribution(feature: name, weight: Self.asWritten(weight))
        }
        if entries.count > top.count {
            let total = entries.reduce(0.0) { $0 + $1.weight }
            let rest = top.reduce(total) { $0 - entries[$1].weight }
            list.append(FeatureContribution(feature: Self.otherFeatures(entries.count - top.count), weight: Self.asWritten(rest)))
        }
        return LabelScore(label: labels[k - offset], probability: probabilities[k], contributions: list)
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
///
/// `@unchecked Sendable`: the matrix and bias are also read through raw pointers into
/// memory owned by `frozen`, written only in `init`.
final class CompiledIntentModel: @unchecked Sendable {
    let lexicon: Lexicon
    /// The weights without their per-feature table: once folded into `matrix` it would only
    /// hold a few MB of strings and small arrays for the life of the process.
    let weights: IntentWeights
    let extractor: FeatureExtractor
    /// One per label, as `IntentWeights.bias`.
    let biasPointer: UnsafePointer<Double>
    /// What scoring reads, one row per feature id: the weights in single precision (far below
    /// their own precision), with the last urgency label's weight taken from the other urgency
    /// labels' (`Scorer`), and the bias likewise.
    let scoringRows: UnsafePointer<SIMD8<Float>>
    let scoringBias: UnsafePointer<Double>
    /// The last urgency label's weight of each feature id: with `scoringRows` it gives back
    /// every weight (`weight(_:_:)`), so no second copy of the weights (nine floats a feature,
    /// 0.9 MB for the shipped model) is kept for explanations.
    let lastLane: UnsafePointer<Float>
    /// `weights.previousTurnWeight`, read without copying the weights header on every call.
    let previousTurnWeight: Double
    private let frozen: [AnyObject]

    convenience init(lexicon: Lexicon, weights: IntentWeights) {
        var header = weights
        header.features = [:]
        let extractor = FeatureExtractor(lexicon: lexicon, vocabulary: weights.vocabulary)
        self.init(lexicon: lexicon, header: header, extractor: extractor) { set in
            for (name, row) in weights.features {
                guard let id = extractor.id(of: name) else { continue }
                set(id, row)
            }
        }
    }

    /// The shipped model, read from the compact table in `ShippedModel` without building the
    /// weights' table of rows (or a JSON tree): the vocabulary in one pass, the rows in another.
    static func shipped() -> CompiledIntentModel {
        // The table is sorted by feature name, which is not the vocabulary's order (`word:"a b"`
        // comes before `word:"a"`): `rank` says where each word of the table goes, so the rows
        // pass finds a word's id without looking its name up.
        var words: [String] = []
        let prefix = Array("word:\"".utf8)
        func isWord(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
            name.count > prefix.count && name.starts(with: prefix) && name.last == 34
        }
        ShippedFeatureTable.forEach { name, _ in
            guard isWord(name) else { return }
            words.append(String(decoding: UnsafeBufferPointer(rebasing: name[prefix.count..<(name.count - 1)]), as: UTF8.self))
        }
        let order = words.indices.sorted { words[$0] < words[$1] }
        var rank = [Int32](repeating: 0, count: words.count)
        for (position, word) in order.enumerated() { rank[word] = Int32(position) }
        let lexicon = Lexicon.shipped
        var vocabulary = order.map { words[$0] }
        words = []
        let extractor = FeatureExtractor(lexicon: lexicon, vocabulary: vocabulary)
        vocabulary = []
        defer { ShippedFeatureTable.releaseResidentPages() }
        return CompiledIntentModel(lexicon: lexicon, header: IntentWeights.shippedHeader, extractor: extractor) { set in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: IntentClassifier.width) { row in
                var wordsSeen = 0
                ShippedFeatureTable.forEach { name, scaled in
                    let id: Int
                    if isWord(name) {
                        id = extractor.vocabularyStart + Int(rank[wordsSeen])
                        wordsSeen += 1
                    } else {
                        guard let found = extractor.id(of: String(decoding: name, as: UTF8.self)) else { return }
                        id = found
                    }
                    for k in 0..<scaled.count { row[k] = ShippedFeatureTable.weight(scaled[k]) }
                    set(id, UnsafeBufferPointer(row))
                }
            }
        }
    }

    /// `rows` calls its argument with each feature id the extractor knows and that feature's
    /// weights (intent labels then urgency labels).
    private init<Row: Collection<Double>>(lexicon: Lexicon, header: IntentWeights, extractor: FeatureExtractor,
                                          rows: ((Int, Row) -> Void) -> Void) where Row.Index == Int {
        let width = IntentClassifier.width
        // The hot path sums rows as eight SIMD lanes plus one.
        precondition(IntentClassifier.intentCount == IntentWeights.intentLabels.count && width == IntentWeights.width && width == 9)
        precondition(IntentType.knownCases.indices.allSatisfy { IntentClassifier.intent(at: $0) == IntentType.knownCases[$0] }
                     && UrgencyLevel.knownCases.indices.allSatisfy { IntentClassifier.urgency(at: $0) == UrgencyLevel.knownCases[$0] },
                     "the literal label order of IntentClassifier.intent(at:) and urgency(at:) is knownCases'")
        self.lexicon = lexicon
        self.weights = header
        self.extractor = extractor
        // Written in place: the scorer's rows are the model's largest table. Aligned, so no
        // row straddles two cache lines.
        let frozenRows = Frozen<SIMD8<Float>>(repeating: .zero, count: extractor.count, alignment: 64)
        let frozenLastLane = Frozen<Float>(repeating: 0, count: extractor.count)
        let scoring = frozenRows.pointer, last = frozenLastLane.pointer
        rows { id, row in
            let (folded, lastWeight) = Scorer.fold(row)
            scoring[id] = folded
            last[id] = lastWeight
        }
        self.previousTurnWeight = header.previousTurnWeight
        let frozenBias = Frozen(header.bias)
        biasPointer = UnsafePointer(frozenBias.pointer)
        let frozenScoringBias = Frozen(Scorer.fold(bias: header.bias))
        scoringRows = UnsafePointer(scoring)
        scoringBias = UnsafePointer(frozenScoringBias.pointer)
        lastLane = UnsafePointer(last)
        frozen = [frozenBias, frozenRows, frozenScoringBias, frozenLastLane]
    }

    /// Feature `id`'s weight for label `k` (intent labels then urgency labels), in single
    /// precision: what explanations and `fullWeights` read. An urgency weight is rebuilt from
    /// its folded lane and the last lane, so it may differ from the single-precision weight
    /// by a unit in its last place, far below the five decimals a weights file keeps.
    @inline(__always)
    func weight(_ id: Int, _ k: Int) -> Double {
        if k < IntentClassifier.intentCount { return Double(scoringRows[id][k]) }
        let last = Double(lastLane[id])
        return k == IntentClassifier.width - 1 ? last : Double(Float(Double(scoringRows[id][k]) + last))
    }

    /// The weights as the classifier uses them, rebuilt from the scoring rows: rounded to
    /// single precision, and without features the extractor does not know (never used).
    var fullWeights: IntentWeights {
        let width = IntentClassifier.width
        var full = weights
        for id in 0..<extractor.count {
            let row = (0..<width).map { weight(id, $0) }
            if row.contains(where: { $0 != 0 }) { full.features[extractor.name(of: id)] = row }
        }
        return full
    }
}
