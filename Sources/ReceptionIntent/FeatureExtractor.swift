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
    /// Feature names, indexed by feature id.
    public let names: [String]
    public let index: [String: Int]

    // Read per token: raw views of memory owned by `owners`.
    private let rewriteStart: UnsafeMutablePointer<Int32>     // rewrite → range in rewriteTokens
    private let rewriteTokens: UnsafeMutablePointer<UInt64>
    private let trie: HashTable.Reader                        // (node, token) → child node
    private let table: TokenTable.Reader                      // token → classes, features, rewrite, root node (one probe)
    private let nodeChildren: UnsafeMutablePointer<UInt64>     // node → signature of its children's tokens (`childBit`)
    private let rewriteSlots: UnsafeMutablePointer<Int32>     // table slots of rewriteTokens
    private let slotIs: Int32, slotNot: Int32, slotAre: Int32, slotHave: Int32, slotWill: Int32, slotWould: Int32, slotAm: Int32
    private let nodeCueStart: UnsafeMutablePointer<Int32>     // node → range in nodeCues
    private let nodeCues: UnsafeMutablePointer<Int32>         // phrase ids, or -(word feature + 1)
    private let phraseFeature: UnsafeMutablePointer<Int32>
    private let phraseFamily: UnsafeMutablePointer<Int32>
    private let familyFeature: UnsafeMutablePointer<Int32>
    private let negFeature: UnsafeMutablePointer<Int32>
    private let goalFeature: UnsafeMutablePointer<Int32>
    private let familyIsTime: UnsafeMutablePointer<Bool>
    private let pronounIs: HashTable.Reader                   // tokens whose "'s" means "is"
    private let owners: [AnyObject]
    private let tokenIs: UInt64, tokenNot: UInt64, tokenAre: UInt64, tokenHave: UInt64
    private let tokenWill: UInt64, tokenWould: UInt64, tokenAm: UInt64

    private let rewriteWords: [String]
    /// The most tokens one raw word can become (a rewrite, plus a contraction's suffix).
    private let maxExpansion: Int
    /// Tokens in the first, stack-sized scratch buffer (1 KiB).
    private static let stackTokens = 1024 / MemoryLayout<Token>.stride
    /// Feature ids in the first, stack-sized scratch buffer (1 KiB).
    private static let stackFeatures = 1024 / MemoryLayout<Int32>.stride

    /// The vocabulary words (without the `word:` prefix), sorted.
    public let vocabulary: [String]

    // Class bits, in the order of `Lexicon.requiredClasses` (literal constants: no lazy initialisation in the hot path).
    private static let cNegator: UInt32 = 1 << 0  // negator
    private static let cFirstPerson: UInt32 = 1 << 1  // first-person
    private static let cOpener: UInt32 = 1 << 2  // opener
    private static let cImperative: UInt32 = 1 << 3  // imperative-verb
    private static let cRequestPrefix: UInt32 = 1 << 4  // request-prefix
    private static let cTag: UInt32 = 1 << 5  // tag-word
    private static let cNumberWord: UInt32 = 1 << 6  // number-word
    private static let cMinute: UInt32 = 1 << 7  // unit-minute
    private static let cHour: UInt32 = 1 << 8  // unit-hour
    private static let cDay: UInt32 = 1 << 9  // unit-day
    private static let cWeek: UInt32 = 1 << 10  // unit-week
    private static let cClockSuffix: UInt32 = 1 << 11  // clock-suffix
    private static let cOrdinal: UInt32 = 1 << 12  // ordinal-suffix
    private static let cWeekday: UInt32 = 1 << 13  // weekday
    private static let cMonth: UInt32 = 1 << 14  // month
    private static let cMonthAmbiguous: UInt32 = 1 << 15  // month-ambiguous
    private static let cMonthPreposition: UInt32 = 1 << 16  // month-preposition
    private static let cBe: UInt32 = 1 << 17  // be-verb
    private static let cOr: UInt32 = 1 << 18  // or-word
    private static let cOrTail: UInt32 = 1 << 19  // or-tail
    private static let cWh: UInt32 = 1 << 20  // wh-word
    private static let cAux: UInt32 = 1 << 21  // aux-verb
    private static let cRequestModal: UInt32 = 1 << 22  // request-modal
    private static let cAddressee: UInt32 = 1 << 23  // addressee
    private static let cNext: UInt32 = 1 << 24  // next-word
    private static let cIn: UInt32 = 1 << 25  // in-word
    private static let cJust: UInt32 = 1 << 26  // just-word
    private static let cAgo: UInt32 = 1 << 27  // ago-word
    private static let cClockPreposition: UInt32 = 1 << 28  // clock-preposition
    private static let cClockFollow: UInt32 = 1 << 29  // clock-follow

    /// Built-in structural and time features, in feature-id order.
    public static let fixedFeatures: [String] = [
        "struct:question-mark", "struct:wh-start", "struct:aux-start", "struct:wh-later", "struct:imperative",
        "struct:imperative-later", "struct:polite-request", "struct:either-or", "struct:either-or+first-person",
        "struct:or-not", "struct:tag-question", "struct:progressive", "struct:first-person-progressive",
        "struct:multi-question", "struct:multi-sentence", "struct:first-person",
        "len:1-3", "len:4-8", "len:9-20", "len:21+",
        "time:in-n-minutes", "time:n-minutes", "time:in-n-hours", "time:n-hours", "time:in-n-days", "time:n-days",
        "time:in-n-weeks", "time:n-weeks", "time:in-n-bare", "time:clock", "time:weekday", "time:next-weekday",
        "time:month", "time:ordinal-date", "time:numeric-date", "time:year", "time:none",
        "goal:present", "struct:wh-short", "struct:either-or+wh", "time:just-happened", "time:ago",
        "struct:either-or-short", "struct:starts-progressive", "struct:scene-opening",
    ]
    private enum F {
        static let question = 0, whStart = 1, auxStart = 2, whLater = 3, imperative = 4, imperativeLater = 5
        static let politeRequest = 6, eitherOr = 7, eitherOrFirstPerson = 8, orNot = 9, tagQuestion = 10
        static let progressive = 11, firstPersonProgressive = 12, multiQuestion = 13, multiSentence = 14, firstPerson = 15
        static let len1 = 16, len4 = 17, len9 = 18, len21 = 19
        static let inMinutes = 20, nMinutes = 21, inHours = 22, nHours = 23, inDays = 24, nDays = 25
        static let inWeeks = 26, nWeeks = 27, inBare = 28, clock = 29, weekday = 30, nextWeekday = 31
        static let month = 32, ordinalDate = 33, numericDate = 34, year = 35, timeNone = 36, goalPresent = 37
        static let whShort = 38, eitherOrWh = 39, justHappened = 40, ago = 41, eitherOrShort = 42, startsProgressive = 43
        static let sceneOpening = 44
        static let firstTime = 20, lastTime = 35
    }

    public init(lexicon: Lexicon, vocabulary: [String] = []) {
        precondition(Lexicon.requiredClasses.count == 30, "class bits are literal constants: update them with requiredClasses")
        var names = Self.fixedFeatures
        var index: [String: Int] = [:]
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
        self.rewriteStart = frozen(rewriteStart)
        self.rewriteTokens = frozen(rewriteTokens)
        self.rewriteWords = lexicon.rewrites.flatMap { $0.replacement.flatMap { Self.plainWords($0) } }
        self.maxExpansion = max(2, (0..<(rewriteStart.count - 1)).map { Int(rewriteStart[$0 + 1] - rewriteStart[$0]) + 1 }.max() ?? 0)
        self.tokenIs = tokenHash("is"); self.tokenNot = tokenHash("not"); self.tokenAre = tokenHash("are")
        self.tokenHave = tokenHash("have"); self.tokenWill = tokenHash("will"); self.tokenWould = tokenHash("would")
        self.tokenAm = tokenHash("am")
        let pronounIs = HashTable(capacity: 32)
        for word in ["what", "that", "it", "he", "she", "there", "here", "who", "where", "how", "when", "why", "this", "everything", "nothing", "something"] {
            pronounIs.set(tokenHash(word), 1)
        }
        self.pronounIs = pronounIs.reader
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
        let probe = TokenProbe(rewriteTable: rewriteTable, rewriteStart: rewriteStart, rewriteTokens: rewriteTokens,
                               pronounIs: pronounIs)
        for (familyIndex, family) in lexicon.families.enumerated() {
            for phrase in family.phrases {
                let hashes = probe.hashes(phrase)
                guard !hashes.isEmpty else { continue }
                var node: Int32 = 0
                for hash in hashes {
                    if let child = children[Int(node)][hash] { node = child } else {
                        let child = Int32(children.count)
                        children.append([:])
                        cuesAtNode.append([])
                        children[Int(node)][hash] = child
                        node = child
                    }
                }
                let phraseID = Int32(phraseFeature.count)
                phraseFeature.append(feature("phrase:\"\(phrase)\""))
                phraseFamily.append(Int32(familyIndex))
                cuesAtNode[Int(node)].append(phraseID)
            }
        }
        // Vocabulary: single words in their own table, word n-grams in the trie.
        let vocabulary = Array(Set(vocabulary)).sorted()
        let wordTable = HashTable(capacity: max(vocabulary.count, 8))
        for word in vocabulary {
            let id = feature("word:\"\(word)\"")
            let hashes = word.split(separator: " ").map { tokenHash(String($0)) }
            if hashes.count == 1 { wordTable.set(hashes[0], id); continue }
            var node: Int32 = 0
            for hash in hashes {
                if let child = children[Int(node)][hash] { node = child } else {
                    let child = Int32(children.count)
                    children.append([:])
                    cuesAtNode.append([])
                    children[Int(node)][hash] = child
                    node = child
                }
            }
            cuesAtNode[Int(node)].append(-(id + 1))
        }
        self.vocabulary = vocabulary

        let trie = HashTable(capacity: max(children.count, 8))
        for (node, edges) in children.enumerated() {
            for (hash, child) in edges { trie.set(combine(Int32(node), hash), child) }
        }
        var nodeCueStart: [Int32] = [0], nodeCues: [Int32] = []
        for cues in cuesAtNode {
            nodeCues += cues
            nodeCueStart.append(Int32(nodeCues.count))
        }
        self.trie = trie.reader
        owners.append(trie)
        self.nodeChildren = frozen(children.map { $0.keys.reduce(UInt64(0)) { $0 | childBit($1) } })
        // One record per known token, so the hot path probes memory once per word.
        var infos: [UInt64: TokenInfo] = [:]
        func update(_ key: UInt64, _ change: (inout TokenInfo) -> Void) {
            var info = infos[key] ?? TokenInfo()
            info.key = key
            change(&info)
            infos[key] = info
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
        for (hash, child) in children[0] {
            update(hash) { info in
                info.root = child
                info.rootChildren = children[Int(child)].keys.reduce(UInt64(0)) { $0 | childBit($1) }
            }
        }
        let table = TokenTable(infos.keys.sorted().map { infos[$0]! })
        let reader = table.reader
        self.table = reader
        owners.append(table)
        self.rewriteSlots = frozen(rewriteTokens.map { reader.find($0) })
        slotIs = reader.find(tokenIs); slotNot = reader.find(tokenNot); slotAre = reader.find(tokenAre)
        slotHave = reader.find(tokenHave); slotWill = reader.find(tokenWill); slotWould = reader.find(tokenWould)
        slotAm = reader.find(tokenAm)
        self.nodeCueStart = frozen(nodeCueStart)
        self.nodeCues = frozen(nodeCues)
        self.phraseFeature = frozen(phraseFeature)
        self.phraseFamily = frozen(phraseFamily)
        self.familyFeature = frozen(familyFeature)
        self.negFeature = frozen(negFeature)
        self.goalFeature = frozen(goalFeature)
        self.familyIsTime = frozen(familyIsTime)
        self.owners = owners

        self.names = names
        self.index = index
    }

    private static func plainWords(_ text: String) -> [String] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
    }

    public var count: Int { names.count }

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
        func run(_ bytes: UnsafeBufferPointer<UInt8>) -> R {
            // Most messages fit a buffer small enough for the stack; longer ones are retokenized
            // into one bounded by the input: at most one raw word per byte, each expanding to
            // at most `maxExpansion` tokens.
            let fits: R? = withScratch(of: Token.self, count: Self.stackTokens) { tokens in
                let last = tokenize(bytes, into: &tokens)
                return tokens.overflowed ? nil : body(tokens.elements, last)
            }
            if let fits { return fits }
            return withScratch(of: Token.self, count: bytes.count * maxExpansion + 1) { tokens in
                let last = tokenize(bytes, into: &tokens)
                precondition(!tokens.overflowed, "token bound")
                return body(tokens.elements, last)
            }
        }
        return TextNormalizer.withNormalizedBytes(text, run)
    }

    private func tokenize(_ bytes: UnsafeBufferPointer<UInt8>, into tokens: inout FixedBuffer<Token>) -> UInt8 {
        RawTokenizer.scan(bytes) { start, end, separator, isNumber, hash, value, apostrophe in
            var flags: UInt8 = isNumber ? Token.number : 0
            if !isNumber && end - start >= 5 && bytes[end - 3] | 0x20 == 105 && bytes[end - 2] | 0x20 == 110 && bytes[end - 1] | 0x20 == 103 {
                flags |= Token.progressive
            }
            if !isNumber && end - start >= 4 && bytes[end - 2] | 0x20 == 101 && bytes[end - 1] | 0x20 == 100 {
                flags |= Token.past
            }
            let slot = table.find(hash)
            if appendRewrite(slot, separator: separator, into: &tokens) { return }
            guard apostrophe >= 0 else {
                tokens.append(Token(hash: hash, separator: separator, flags: flags, value: value, slot: slot))
                return
            }
            // A contraction or possessive the rewrites do not list.
            var stemEnd = apostrophe
            let suffixLength = end - apostrophe - 1
            var suffix: UInt64 = 0, suffixSlot: Int32 = -1
            let s0 = bytes[apostrophe + 1] | 0x20
            if suffixLength == 1 && s0 == 116 && apostrophe - start >= 2 && bytes[apostrophe - 1] | 0x20 == 110 {
                stemEnd = apostrophe - 1; suffix = tokenNot; suffixSlot = slotNot                    // n't
            } else if suffixLength == 1 && s0 == 115 {
                suffix = 1                                                                            // 's
            } else if suffixLength == 2 && s0 == 114 { suffix = tokenAre; suffixSlot = slotAre       // 're
            } else if suffixLength == 2 && s0 == 118 { suffix = tokenHave; suffixSlot = slotHave     // 've
            } else if suffixLength == 2 && s0 == 108 { suffix = tokenWill; suffixSlot = slotWill     // 'll
            } else if suffixLength == 1 && s0 == 100 { suffix = tokenWould; suffixSlot = slotWould   // 'd
            } else if suffixLength == 1 && s0 == 109 { suffix = tokenAm; suffixSlot = slotAm         // 'm
            } else {
                tokens.append(Token(hash: hash, separator: separator, flags: flags, value: value, slot: slot))
                return
            }
            var stem: UInt64 = 0xcbf2_9ce4_8422_2325
            for i in start..<stemEnd {
                var byte = bytes[i]
                if byte >= 65 && byte <= 90 { byte |= 0x20 }
                stem = (stem ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
            let stemSlot = table.find(stem)
            if !appendRewrite(stemSlot, separator: separator, into: &tokens) {
                tokens.append(Token(hash: stem, separator: separator, flags: Token.expanded, value: 0, slot: stemSlot))
            }
            if suffix == 1 {
                if pronounIs.get(stem) >= 0 {
                    tokens.append(Token(hash: tokenIs, separator: Separator.space, flags: Token.expanded, value: 0, slot: slotIs))
                } else {
                    tokens[tokens.count - 1].flags |= Token.possessive
                }
            } else {
                tokens.append(Token(hash: suffix, separator: Separator.space, flags: Token.expanded, value: 0, slot: suffixSlot))
            }
        }
    }

    /// Appends the rewrite of the token in `slot`, if it has one.
    @inline(__always)
    private func appendRewrite(_ slot: Int32, separator: UInt8, into tokens: inout FixedBuffer<Token>) -> Bool {
        let rewrite = table.info(at: slot).rewrite
        guard rewrite >= 0 else { return false }
        let from = Int(rewriteStart[Int(rewrite)]), to = Int(rewriteStart[Int(rewrite) + 1])
        for i in from..<to {
            tokens.append(Token(hash: rewriteTokens[i], separator: i == from ? separator : Separator.space, flags: Token.expanded,
                                value: 0, slot: rewriteSlots[i]))
        }
        return true
    }

    // MARK: Features

    /// The active feature ids of a message (each at most once), in extraction order.
    public func features(_ text: String, goal: String? = nil) -> [Int32] {
        withFeatures(text, goal: goal) { active, _ in Array(active) }
    }

    /// Calls `body` with the active feature ids of a message (each once, in extraction order)
    /// and its token count; both live in scratch memory for the duration of the call.
    @inline(__always)
    func withFeatures<R>(_ text: String, goal: String?, _ body: (UnsafeBufferPointer<Int32>, Int) -> R) -> R {
        withTokens(text) { tokens, last in
            let words = (names.count + 63) / 64
            return withZeroedBits(count: words) { seen in
                return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: max(tokens.count, 1)) { classes in
                    let fits: R? = withScratch(of: Int32.self, count: Self.stackFeatures) { output in
                        features(last: last, goal: goal, tokens: tokens, seen: seen, classes: classes, into: &output)
                        return output.overflowed ? nil : body(output.elements, tokens.count)
                    }
                    if let fits { return fits }
                    // Each feature is added at most once (the `seen` bits), so `names.count` bounds the ids.
                    seen.update(repeating: 0)
                    return withScratch(of: Int32.self, count: names.count) { output in
                        features(last: last, goal: goal, tokens: tokens, seen: seen, classes: classes, into: &output)
                        return body(output.elements, tokens.count)
                    }
                }
            }
        }
    }

    private func features(last: UInt8, goal: String?, tokens: UnsafeBufferPointer<Token>, seen: UnsafeMutableBufferPointer<UInt64>,
                          classes: UnsafeMutableBufferPointer<UInt32>, into output: inout FixedBuffer<Int32>) {
        var timeSeen = false
        @inline(__always) func add(_ id: Int32) {
            let word = Int(id) >> 6, bit = UInt64(1) << UInt64(id & 63)
            if seen[word] & bit == 0 {
                seen[word] |= bit
                output.append(id)
            }
        }
        @inline(__always) func has(_ fixed: Int) -> Bool { seen[fixed >> 6] & (UInt64(1) << UInt64(fixed & 63)) != 0 }
        @inline(__always) func add(_ fixed: Int) {
            if fixed >= F.firstTime && fixed <= F.lastTime { timeSeen = true }
            add(Int32(fixed))
        }
        let n = tokens.count
        do {
            let t = tokens

            // Cues (trie) and vocabulary words.
            for i in 0..<n {
                let info = table.info(at: t[i].slot)
                classes[i] = info.classes
                if info.word >= 0 { add(info.word) }
                var node = info.root
                var j = i
                while node >= 0 {
                    if j > i {
                        // The child signature rules out most continuations without a probe.
                        let children = j == i + 1 ? info.rootChildren : nodeChildren[Int(node)]
                        if t[j].separator >= Separator.stop || children & childBit(t[j].hash) == 0 { break }
                        node = trie.get(combine(node, t[j].hash))
                        if node < 0 { break }
                    }
                    let from = Int(nodeCueStart[Int(node)]), to = Int(nodeCueStart[Int(node) + 1])
                    if from < to {
                        var negated = false
                        var k = i - 1
                        while k >= 0 && k >= i - 3 {
                            if classes[k] & Self.cNegator != 0 { negated = true; break }
                            if t[k + 1].separator >= Separator.comma { break }
                            k -= 1
                        }
                        for c in from..<to {
                            let entry = nodeCues[c]
                            if entry < 0 { add(-entry - 1); continue }
                            let phrase = Int(entry)
                            let family = Int(phraseFamily[phrase])
                            if negated {
                                add(negFeature[family])
                            } else {
                                add(familyFeature[family])
                                add(phraseFeature[phrase])
                                if familyIsTime[family] { timeSeen = true }
                            }
                        }
                    }
                    j += 1
                    if j >= n { break }
                }
            }
            if n > 0 {

            // Opening words, questions, imperatives.
            let first = table.info(at: t[0].slot).first
            if first >= 0 { add(Int32(first)) }
            if last == Separator.question { add(F.question) }
            var p = 0
            while p < n - 1 && p < 3 && classes[p] & Self.cRequestPrefix != 0 { p += 1 }
            if classes[p] & Self.cWh != 0 { add(F.whStart) }
            if classes[p] & Self.cAux != 0 && classes[p] & Self.cWh == 0 { add(F.auxStart) }
            if p + 1 < n && classes[p] & Self.cRequestModal != 0 && classes[p + 1] & Self.cAddressee != 0 {
                add(F.politeRequest)
                p += 2
                while p < n - 1 && classes[p] & Self.cRequestPrefix != 0 { p += 1 }
            }
            if p < n && classes[p] & Self.cImperative != 0 { add(F.imperative) }
            if t[0].flags & Token.progressive != 0 && classes[0] & Self.cWh == 0 { add(F.startsProgressive) }
            // "checkout line. …", "dmv window: …": a fragment of one to four words sets the scene
            // before the ask (often a situation under way), unlike an opening question or request.
            var fragment = 1
            while fragment < n && fragment <= 4 && t[fragment].separator < Separator.comma { fragment += 1 }
            if fragment <= 4 && n - fragment >= 3 && t[fragment].separator >= Separator.comma
                && classes[0] & (Self.cWh | Self.cAux | Self.cFirstPerson | Self.cImperative | Self.cRequestModal | Self.cRequestPrefix) == 0 {
                add(F.sceneOpening)
            }
            var questions = last == Separator.question ? 1 : 0
            var sentences = 0
            var firstPerson = false
            for i in 0..<n {
                let c = classes[i]
                if c & Self.cFirstPerson != 0 { firstPerson = true }
                if i > 0 && t[i].separator >= Separator.stop {
                    sentences += 1
                    if t[i].separator == Separator.question { questions += 1 }
                    if c & Self.cImperative != 0 { add(F.imperativeLater) }
                    if c & Self.cWh != 0 { add(F.whLater) }
                }
                if c & Self.cOr != 0 && i > 0 && i < n - 1 {
                    if classes[i + 1] & Self.cNegator != 0 || classes[i + 1] & Self.cOrTail != 0 {
                        if classes[i + 1] & Self.cNegator != 0 { add(F.orNot) }
                    } else {
                        add(F.eitherOr)
                    }
                }
                if c & Self.cBe != 0 && i + 1 < n && t[i + 1].flags & Token.progressive != 0 {
                    add(F.progressive)
                    if i > 0 && classes[i - 1] & Self.cFirstPerson != 0 { add(F.firstPersonProgressive) }
                }
            }
            let eitherOr = has(F.eitherOr)
            if firstPerson {
                add(F.firstPerson)
                if eitherOr { add(F.eitherOrFirstPerson) }
            }
            let whStart = has(F.whStart)
            if whStart && n <= 8 && !firstPerson { add(F.whShort) }
            if eitherOr && whStart { add(F.eitherOrWh) }
            if eitherOr && n <= 8 { add(F.eitherOrShort) }
            if questions >= 2 { add(F.multiQuestion) }
            if sentences >= 1 { add(F.multiSentence) }
            if n >= 4 && classes[n - 1] & Self.cTag != 0 && (t[n - 1].separator >= Separator.comma || last == Separator.question) {
                add(F.tagQuestion)
            }
            add(n <= 3 ? F.len1 : n <= 8 ? F.len4 : n <= 20 ? F.len9 : F.len21)

            // Time expressions.
            for i in 0..<n {
                let c = classes[i]
                let token = t[i]
                if token.isNumber {
                    if i + 1 < n {
                        let next = classes[i + 1]
                        let joined = t[i + 1].separator
                        if next & Self.cClockSuffix != 0 && joined == Separator.space { add(F.clock) }
                        if joined == Separator.colon && t[i + 1].isNumber { add(F.clock) }
                        if next & Self.cOrdinal != 0 && joined == Separator.space { add(F.ordinalDate) }
                        if joined == Separator.slash && t[i + 1].isNumber { add(F.numericDate) }
                    }
                    if token.value >= 1900 && token.value <= 2100 { add(F.year) }
                    if i > 0 && classes[i - 1] & Self.cClockPreposition != 0 && token.value >= 100 && token.value <= 2359 && token.value % 100 < 60 {
                        add(F.clock) // "at 0800"
                    }
                    if i > 0 && classes[i - 1] & Self.cClockPreposition != 0 && token.value <= 24
                        && (i + 1 == n || t[i + 1].separator >= Separator.hyphen || classes[i + 1] & (Self.cClockSuffix | Self.cClockFollow) != 0) {
                        add(F.clock)
                    }
                }
                if c & Self.cWeekday != 0 {
                    add(F.weekday)
                    if i > 0 && classes[i - 1] & Self.cNext != 0 { add(F.nextWeekday) }
                }
                if c & Self.cMonth != 0 && c & Self.cMonthAmbiguous == 0 { add(F.month) }
                if c & Self.cMonthAmbiguous != 0 {
                    if (i > 0 && classes[i - 1] & Self.cMonthPreposition != 0) || (i + 1 < n && t[i + 1].isNumber) { add(F.month) }
                }
                // "N minutes", "in N minutes", "in half an hour", "in 20"
                if c & (Self.cMinute | Self.cHour | Self.cDay | Self.cWeek) != 0 && i > 0 {
                    var k = i - 1
                    var quantity = false
                    var amount: Int32 = 1
                    while k >= 0 && k >= i - 3 && (t[k].isNumber || classes[k] & Self.cNumberWord != 0) {
                        quantity = true
                        if t[k].isNumber { amount = max(amount, t[k].value) }
                        k -= 1
                    }
                    if quantity {
                        let within = k >= 0 && classes[k] & (Self.cIn | Self.cNext) != 0
                        // An hour or less reads as minutes; a day or two as hours: the distance matters, not the unit.
                        if c & Self.cMinute != 0 || (c & Self.cHour != 0 && amount <= 1) { add(within ? F.inMinutes : F.nMinutes) }
                        else if c & Self.cHour != 0 || (c & Self.cDay != 0 && amount <= 2) { add(within ? F.inHours : F.nHours) }
                        else if c & Self.cDay != 0 { add(within ? F.inDays : F.nDays) }
                        else { add(within ? F.inWeeks : F.nWeeks) }
                    }
                }
                if c & Self.cJust != 0 && i + 1 < n && t[i + 1].flags & Token.past != 0 {
                    add(F.justHappened); timeSeen = true
                }
                if c & Self.cAgo != 0 && i > 0 && classes[i - 1] & (Self.cMinute | Self.cHour | Self.cDay | Self.cWeek) != 0 {
                    add(F.ago)
                }
                if c & Self.cIn != 0 && i + 1 < n && t[i + 1].isNumber
                    && (i + 2 == n || t[i + 2].separator >= Separator.comma) {
                    add(F.inBare)
                }
            }
            }
        }

        // The conversation goal: its cue families, as separate features.
        let short = n <= 8
        if let goal, !goal.isEmpty {
            add(F.goalPresent)
            var goalTokens: [Token] = []
            _ = self.tokens(goal, into: &goalTokens)
            let m = goalTokens.count
            for i in 0..<m {
                var node: Int32 = 0
                var j = i
                while j < m {
                    node = trie.get(combine(node, goalTokens[j].hash))
                    if node < 0 { break }
                    for c in Int(nodeCueStart[Int(node)])..<Int(nodeCueStart[Int(node) + 1]) where nodeCues[c] >= 0 {
                        let family = Int(phraseFamily[Int(nodeCues[c])])
                        add(goalFeature[family])
                        // A short message leans on its goal: the goal's cue families count as the message's.
                        if short {
                            add(familyFeature[family])
                            if familyIsTime[family] { timeSeen = true }
                        }
                    }
                    j += 1
                }
            }
        }
        if !timeSeen { add(F.timeNone) }
    }


    /// Normalised words of a message as strings (slow; for building vocabularies and debugging).
    public func words(_ text: String) -> [String] {
        var lookup: [UInt64: String] = [:]
        func remember(_ word: String) { lookup[tokenHash(word)] = word }
        for word in ["is", "not", "are", "have", "will", "would", "am"] { remember(word) }
        var raw: [String] = []
        let source = TextNormalizer.normalizedBytes(text) ?? Array(text.utf8)
        source.withUnsafeBufferPointer { bytes in
            _ = RawTokenizer.scan(bytes) { start, end, _, _, _, _, _ in
                let word = String(decoding: bytes[start..<end], as: UTF8.self).lowercased()
                raw.append(word)
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
                // digits and letters split as in messages ("3pm" → "3", "pm")
                var current = ""
                var digits: Bool? = nil
                for ch in word {
                    let isDigit = ch.isNumber
                    if let d = digits, d != isDigit { output.append(tokenHash(current)); current = "" }
                    current.append(ch)
                    digits = isDigit
                }
                if !current.isEmpty { output.append(tokenHash(current)) }
            }
        }
        return output
    }
}
