import Foundation

/// Turns a message into a set of named binary features: lexicon cues (family and phrase),
/// their negations, structural features, time expressions, opening words, vocabulary
/// words and conversation-goal cues.
///
/// Built once from a `Lexicon` and a vocabulary; extraction itself works on hashed tokens
/// and integer feature ids.
///
/// `@unchecked Sendable`: the lookup tables are read through raw pointers (no reference
/// counting or bounds checks per token), written only in `init` and owned by `owners`.
public final class FeatureExtractor: @unchecked Sendable {
    /// The names of the features that are not vocabulary words (cues, phrases, structure,
    /// openers), indexed by feature id; the vocabulary's ids follow them, in vocabulary order.
    /// A vocabulary word's name (`word:"…"`) is made when asked for, not kept: the shipped model
    /// has over 23,000 of them, and a second copy of each as a name, plus a dictionary from
    /// names to ids, was about 3 MB of every process that classifies.
    private let fixedNames: [String]
    private let fixedIndex: [String: Int]
    /// The id of the first vocabulary word.
    public let vocabularyStart: Int

    /// The lookup tables the hot path reads, as raw pointers into memory owned by `owners`.
    let tables: ExtractorTables
    private let owners: [AnyObject]
    /// The words rewrites produce (for `words(_:)`).
    private let rewriteWords: [String]

    /// The vocabulary words (without the `word:` prefix), sorted.
    public let vocabulary: [String]

    /// `vocabulary` may come in any order and with repeats; already sorted without repeats (as
    /// the shipped model gives it), it is used as it is.
    public init(lexicon: Lexicon, vocabulary: [String] = []) {
        precondition(Lexicon.requiredClasses.count == 31, "class bits are literal constants: update them with requiredClasses")
        var names = Self.fixedFeatures
        var index: [String: Int] = [:]
        // Room for every feature up front: growing these tables by doubling copied them (and
        // rehashed the index) several times while the model loads.
        let expected = names.count + lexicon.words(of: "opener").count + 3 * lexicon.families.count
            + lexicon.families.reduce(0) { $0 + $1.phrases.count }
        names.reserveCapacity(expected)
        index.reserveCapacity(expected)
        for (i, name) in names.enumerated() { index[name] = i }
        @discardableResult func feature(_ name: String) -> Int32 {
            if let existing = index[name] { return Int32(existing) }
            index[name] = names.count
            names.append(name)
            return Int32(names.count - 1)
        }

        // Rewrites: applied to raw words before anything else.
        let rewriteTable = HashTable(capacity: max(lexicon.rewrites.count, 8))
        var rewriteStart: [Int32] = [0]
        var rewriteTokens: [UInt64] = []
        for rewrite in lexicon.rewrites {
            let words = rewrite.replacement.flatMap { Self.plainWords($0) }
            rewriteTable.set(tokenHash(rewrite.word), Int32(rewriteStart.count - 1))
            rewriteTokens += words.map { tokenHash($0) }
            rewriteStart.append(Int32(rewriteTokens.count))
        }
        var owners: [AnyObject] = [rewriteTable]
        func frozen<T>(_ array: [T]) -> UnsafeMutablePointer<T> {
            let memory = Frozen(array)
            owners.append(memory)
            return memory.pointer
        }
        let frozenRewriteStart = frozen(rewriteStart)
        let frozenRewriteTokens = frozen(rewriteTokens)
        self.rewriteWords = lexicon.rewrites.flatMap { $0.replacement.flatMap { Self.plainWords($0) } }
        let maxExpansion = max(2, (0..<(rewriteStart.count - 1)).map { Int(rewriteStart[$0 + 1] - rewriteStart[$0]) + 1 }.max() ?? 0)
        let pronounIs = HashTable(capacity: 32)
        for word in ["what", "that", "it", "he", "she", "there", "here", "who", "where", "how", "when", "why", "this", "everything", "nothing", "something"] {
            pronounIs.set(tokenHash(word), 1)
        }
        owners.append(pronounIs)

        // Word classes.
        let classCount = lexicon.classes.reduce(0) { $0 + $1.words.count }
        let classTable = HashTable(capacity: max(classCount, 8))
        for (name, words) in lexicon.classes {
            guard let bit = Lexicon.requiredClasses.firstIndex(of: name) else { continue }
            for word in words {
                let hash = tokenHash(word)
                let old = classTable.get(hash)
                classTable.set(hash, (old < 0 ? 0 : old) | Int32(bitPattern: UInt32(1) << UInt32(bit)))
            }
        }

        let firstTable = HashTable(capacity: max(lexicon.words(of: "opener").count, 8))
        for word in lexicon.words(of: "opener") {
            firstTable.set(tokenHash(word), feature("first:\"\(word)\""))
        }

        // Cue families and their phrases, as a trie over normalised tokens.
        var familyFeature: [Int32] = [], negFeature: [Int32] = [], goalFeature: [Int32] = [], familyIsTime: [Bool] = []
        for family in lexicon.families {
            familyFeature.append(feature("cue:\(family.name)"))
            familyIsTime.append(family.name.hasPrefix("time-") || family.name.hasPrefix("ongoing-"))
        }
        for family in lexicon.families { negFeature.append(feature("neg:\(family.name)")) }
        for family in lexicon.families { goalFeature.append(feature("goal:\(family.name)")) }
        var phraseFeature: [Int32] = [], phraseFamily: [Int32] = []
        var children: [[UInt64: Int32]] = [[:]]
        var cuesAtNode: [[Int32]] = [[]]
        /// The trie node of a token sequence, created with its missing ancestors.
        func trieNode(_ hashes: [UInt64]) -> Int32 {
            var node: Int32 = 0
            for hash in hashes {
                if let child = children[Int(node)][hash] { node = child; continue }
                let child = Int32(children.count)
                children.append([:])
                cuesAtNode.append([])
                children[Int(node)][hash] = child
                node = child
            }
            return node
        }
        let probe = TokenProbe(rewriteTable: rewriteTable, rewriteStart: rewriteStart, rewriteTokens: rewriteTokens,
                               pronounIs: pronounIs, classTable: classTable)
        for (familyIndex, family) in lexicon.families.enumerated() {
            for phrase in family.phrases {
                let hashes = probe.hashes(phrase)
                guard !hashes.isEmpty else { continue }
                let node = trieNode(hashes)
                // A phrase listed twice in a family, or two spellings the tokenizer reads as the
                // same tokens ("tonight" and "tonight's", whose 's it drops), are one phrase: the
                // first listed names it. A second entry would fire a second feature, and the
                // family's, on the same words, and name a spelling the text does not have.
                let listed = cuesAtNode[Int(node)].contains { entry in entry >= 0 && phraseFamily[Int(entry)] == Int32(familyIndex) }
                if listed { continue }
                let id = feature("phrase:\"\(phrase)\"")
                let phraseID = Int32(phraseFeature.count)
                phraseFeature.append(id)
                phraseFamily.append(Int32(familyIndex))
                cuesAtNode[Int(node)].append(phraseID)
            }
        }
        // Vocabulary: single words in their own table, word n-grams in the trie. Word ids follow
        // every other feature's, in vocabulary order (`name(of:)` and `id(of:)` rely on it).
        let isSortedAndUnique = zip(vocabulary, vocabulary.dropFirst()).allSatisfy { $0 < $1 }
        let vocabulary = isSortedAndUnique ? vocabulary : Array(Set(vocabulary)).sorted()
        let vocabularyStart = names.count
        let singleWords = vocabulary.reduce(0) { $0 + ($1.utf8.contains(32) ? 0 : 1) }
        let wordTable = HashTable(capacity: max(singleWords, 8))
        var hashes: [UInt64] = []
        for (position, word) in vocabulary.enumerated() {
            let id = Int32(vocabularyStart + position)
            hashes.removeAll(keepingCapacity: true)
            let bytes = word.utf8
            var start = bytes.startIndex
            // The words of an n-gram, split at spaces (runs of them count as one).
            for i in bytes.indices where bytes[i] == 32 {
                if i > start { hashes.append(tokenHash(bytes[start..<i])) }
                start = bytes.index(after: i)
            }
            if start < bytes.endIndex { hashes.append(tokenHash(bytes[start...])) }
            if hashes.count == 1 { wordTable.set(hashes[0], id); continue }
            cuesAtNode[Int(trieNode(hashes))].append(-(id + 1))
        }
        self.vocabulary = vocabulary
        self.vocabularyStart = vocabularyStart

        // Each node's cue entries, what each adds (`CueEmit`), its children's signature and its
        // path key (parents come before their children, so one pass in node order finds every key).
        // Building the tables is the model's peak of memory: each intermediate is sized once
        // and let go as soon as the next stage has what it needs.
        var nodeCues: [Int32] = [], nodeCueRange: [CueRange] = []
        nodeCues.reserveCapacity(cuesAtNode.reduce(0) { $0 + $1.count })
        nodeCueRange.reserveCapacity(cuesAtNode.count)
        for cues in cuesAtNode {
            nodeCueRange.append(CueRange(start: nodeCues.count, count: cues.count))
            nodeCues += cues
        }
        cuesAtNode = []
        let phraseCues = phraseFeature.indices.map { phrase in
            let family = Int(phraseFamily[phrase])
            return PhraseCue(family: familyFeature[family], phrase: phraseFeature[phrase], negated: negFeature[family],
                             goal: goalFeature[family], isTime: familyIsTime[family])
        }
        let cueEmits = nodeCues.map { entry in
            guard entry >= 0 else { return CueEmit(plain: -entry - 1, phrase: -1, negated: -entry - 1) }
            let cue = phraseCues[Int(entry)]
            return CueEmit(plain: cue.family, phrase: cue.phrase, negated: cue.negated)
        }
        let nodeChildren = children.map { $0.keys.reduce(UInt64(0)) { $0 | childBit($1) } }
        var pathKey = [UInt64](repeating: trieRoot, count: children.count)
        var deeperNodes: [TrieNode] = []
        deeperNodes.reserveCapacity(children.count)
        for (node, edges) in children.enumerated() {
            for (hash, child) in edges.sorted(by: { $0.key < $1.key }) {
                let key = combine(pathKey[node], hash)
                pathKey[Int(child)] = key
                // First-level nodes live in their tokens' records (below).
                if node != 0 {
                    let cues = nodeCueRange[Int(child)]
                    deeperNodes.append(TrieNode(key: key, children: nodeChildren[Int(child)], cues: cues,
                                                first: cues.end > cues.start ? cueEmits[cues.start] : CueEmit()))
                }
            }
        }
        let rootEdges = children[0]
        children = []
        pathKey = []
        let trie = TrieTable(deeperNodes)
        deeperNodes = []
        owners.append(trie)
        // One record per known token, so the hot path probes memory once per word: each table
        // below gives a token one field, and the records of one token are merged after sorting.
        var records: [TokenInfo] = []
        records.reserveCapacity(rewriteTable.count + classTable.count + firstTable.count + wordTable.count + rootEdges.count)
        func update(_ key: UInt64, _ change: (inout TokenInfo) -> Void) {
            var info = TokenInfo()
            info.key = key
            change(&info)
            records.append(info)
        }
        for (key, value) in rewriteTable.pairs {
            precondition(value < Int16.max, "Lexicon limits rewrites to fit 16 bits")
            update(key) { $0.rewrite = Int16(value) }
        }
        for (key, value) in classTable.pairs { update(key) { $0.classes = UInt32(bitPattern: value) } }
        for (key, value) in firstTable.pairs {
            precondition(value < Int16.max, "Lexicon limits openers so their feature ids fit 16 bits")
            update(key) { $0.first = Int16(value) }
        }
        for (key, value) in wordTable.pairs { update(key) { $0.word = value } }
        for (hash, child) in rootEdges {
            update(hash) { info in
                info.rootCues = nodeCueRange[Int(child)]
                info.rootChildren = nodeChildren[Int(child)]
            }
        }
        let timeFamilies = familyFeature.indices.filter { familyIsTime[$0] }.map { familyFeature[$0] }
        records.sort { $0.key < $1.key }
        var merged = 0
        for record in records {
            if merged > 0, records[merged - 1].key == record.key {
                records[merged - 1].take(record)
            } else {
                records[merged] = record
                merged += 1
            }
        }
        records.removeSubrange(merged...)
        let table = TokenTable(records)
        records = []
        let reader = table.reader
        owners.append(table)
        tables = ExtractorTables(
            rewriteStart: frozenRewriteStart, rewriteTokens: frozenRewriteTokens,
            rewriteSlots: frozen(rewriteTokens.map { reader.slot($0) }),
            trie: trie.reader, table: reader, nodeCues: frozen(nodeCues),
            phraseCues: frozen(phraseCues),
            cueEmits: frozen(cueEmits),
            timeFamilies: UnsafeBufferPointer(start: frozen(timeFamilies), count: timeFamilies.count),
            pronounIs: pronounIs.reader,
            suffixes: ContractionSuffixes(reader), maxExpansion: maxExpansion, featureCount: vocabularyStart + vocabulary.count)
        self.owners = owners

        self.fixedNames = names
        self.fixedIndex = index
    }

    /// A feature's name: `cue:…`, `phrase:"…"`, `word:"…"` and so on.
    public func name(of id: Int) -> String {
        id < vocabularyStart ? fixedNames[id] : "word:\"\(vocabulary[id - vocabularyStart])\""
    }

    /// Every feature's name, indexed by feature id (for tools and tests: it makes each word's).
    public var names: [String] { (0..<count).map(name(of:)) }

    /// The id of the feature with this name, if the extractor has it.
    public func id(of name: String) -> Int? {
        if let id = fixedIndex[name] { return id }
        let prefix = "word:\""
        guard name.utf8.count > prefix.utf8.count, name.hasPrefix(prefix), name.hasSuffix("\"") else { return nil }
        let word = String(name.dropFirst(prefix.count).dropLast())
        var low = 0, high = vocabulary.count
        while low < high {
            let middle = (low + high) / 2
            if vocabulary[middle] < word { low = middle + 1 } else { high = middle }
        }
        return low < vocabulary.count && vocabulary[low] == word ? vocabularyStart + low : nil
    }

    private static func plainWords(_ text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
    }

    public var count: Int { vocabularyStart + vocabulary.count }

    // MARK: Tokens

    /// How many normalised tokens a message has.
    public func tokenCount(_ text: String) -> Int {
        withTokens(text) { tokens, _ in tokens.count }
    }

    /// The normalised tokens of a message (contractions expanded, rewrites applied).
    func tokens(_ text: String, into tokens: inout [Token]) -> UInt8 {
        withTokens(text) { buffer, last in
            tokens.append(contentsOf: buffer)
            return last
        }
    }

    /// Calls `body` with the normalised tokens of a message and its last punctuation kind;
    /// the tokens live in scratch memory for the duration of the call.
    @inline(__always)
    func withTokens<R>(_ text: String, _ body: (UnsafeBufferPointer<Token>, UInt8) -> R) -> R {
        let tables = self.tables
        return TextNormalizer.withNormalizedBytes(text) { tables.withTokens($0, body) }
    }

    // MARK: Features

    /// The active feature ids of a message (each at most once), in extraction order.
    public func features(_ text: String, goal: String? = nil) -> [Int32] {
        withFeatures(text, goal: goal) { active, _ in Array(active) }
    }

    /// The names of a message's active features, in extraction order (for tools: each word's
    /// name is made when asked for). Not through `names`, which makes every feature's name.
    public func featureNames(_ text: String, goal: String? = nil) -> [String] {
        features(text, goal: goal).map { name(of: Int($0)) }
    }

    /// Calls `body` with the active feature ids of a message (each once, in extraction order)
    /// and its token count; both live in scratch memory for the duration of the call.
    @inline(__always)
    func withFeatures<R>(_ text: String, goal: String?, _ body: (UnsafeBufferPointer<Int32>, Int) -> R) -> R {
        tables.withFeatures(text, goal: goal, body)
    }


    /// Normalised words of a message as strings (slow; for building vocabularies and debugging).
    public func words(_ text: String) -> [String] {
        var lookup: [UInt64: String] = [:]
        func remember(_ word: String) { lookup[tokenHash(word)] = word }
        for word in ["is", "not", "are", "have", "will", "would", "am"] { remember(word) }
        var raw: [String] = []
        let source = TextNormalizer.normalizedBytes(text) ?? Array(text.utf8)
        source.withUnsafeBufferPointer { bytes in
            // Runs of digits and letters with nothing between them may be one token ("401k"):
            // every such joined run is remembered too.
            var previousEnd = -1, runStart = 0
            _ = RawTokenizer.scan(bytes) { start, end, _, _, _, _, _ in
                let word = String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
                raw.append(word)
                if start != previousEnd { runStart = start }
                if runStart != start { raw.append(String(decoding: bytes[runStart..<end], as: UTF8.self).lowercased()) }
                previousEnd = end
            }
        }
        for word in raw {
            remember(word)
            if let apostrophe = word.firstIndex(of: "'") {
                let stem = String(word[..<apostrophe])
                remember(stem)
                if stem.hasSuffix("n") { remember(String(stem.dropLast())) }
            }
        }
        for rewrite in rewriteWords { remember(rewrite) }
        var tokens: [Token] = []
        _ = self.tokens(text, into: &tokens)
        return tokens.map { lookup[$0.hash] ?? "?" }
    }

}

/// Hashes lexicon phrases the same way messages are hashed.
private struct TokenProbe {
    let rewriteTable: HashTable
    let rewriteStart: [Int32]
    let rewriteTokens: [UInt64]
    let pronounIs: HashTable
    let classTable: HashTable

    func hashes(_ phrase: String) -> [UInt64] {
        var output: [UInt64] = []
        for word in phrase.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "'") }) {
            let word = String(word)
            let rewrite = rewriteTable.get(tokenHash(word))
            if rewrite >= 0 {
                output += rewriteTokens[Int(rewriteStart[Int(rewrite)])..<Int(rewriteStart[Int(rewrite) + 1])]
            } else if let apostrophe = word.firstIndex(of: "'") {
                let stem = String(word[..<apostrophe])
                let suffix = word[word.index(after: apostrophe)...]
                switch suffix {
                case "t" where stem.hasSuffix("n"): output += [tokenHash(String(stem.dropLast())), tokenHash("not")]
                case "s": output += pronounIs.get(tokenHash(stem)) >= 0 ? [tokenHash(stem), tokenHash("is")] : [tokenHash(stem)]
                case "re": output += [tokenHash(stem), tokenHash("are")]
                case "ve": output += [tokenHash(stem), tokenHash("have")]
                case "ll": output += [tokenHash(stem), tokenHash("will")]
                case "d": output += [tokenHash(stem), tokenHash("would")]
                case "m": output += [tokenHash(stem), tokenHash("am")]
                default: output.append(tokenHash(word))
                }
            } else {
                // Digits and letters as in messages: one word ("q1", "2nite"), but a time or an
                // ordinal after a number stays apart ("3pm" → "3", "pm").
                var runs: [(text: String, digits: Bool)] = []
                for ch in word {
                    let isDigit = ch.isNumber
                    if let last = runs.last, last.digits == isDigit { runs[runs.count - 1].text.append(ch) } else { runs.append((String(ch), isDigit)) }
                }
                var current = ""
                for (index, run) in runs.enumerated() {
                    let apart = index > 0 && runs[index - 1].digits && !run.digits
                        && ((UInt32(bitPattern: max(0, classTable.get(tokenHash(run.text)))) & ExtractorTables.timeSuffixes) != 0
                            || rewriteTable.get(tokenHash(run.text)) >= 0)
                    if apart || current.isEmpty {
                        if !current.isEmpty { output.append(tokenHash(current)) }
                        current = run.text
                    } else {
                        current += run.text
                    }
                }
                if !current.isEmpty { output.append(tokenHash(current)) }
            }
        }
        return output
    }
}