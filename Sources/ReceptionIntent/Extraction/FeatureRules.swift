import Foundation

extension ExtractorTables {
    /// Calls `body` with the active feature ids of a message (each once, in extraction order)
    /// and its token count; both live in scratch memory for the duration of the call.
    /// Only the tables (a plain value) go into the closures: no reference counting.
    @inline(__always)
    func withFeatures<R>(_ text: String, goal: String?, _ body: (UnsafeBufferPointer<Int32>, Int) -> R) -> R {
        guard let goal, !goal.isEmpty else {
            return TextNormalizer.withNormalizedBytes(text) { withFeatures($0, goal: nil, body) }
        }
        return TextNormalizer.withNormalizedBytes(goal) { goalBytes in
            withTokens(goalBytes) { goalTokens, _ in
                TextNormalizer.withNormalizedBytes(text) { withFeatures($0, goal: goalTokens, body) }
            }
        }
    }

    /// Calls `body` with the active feature ids of `bytes` (each once, in extraction order)
    /// and its token count; both live in scratch memory for the duration of the call.
    /// `goal`: the conversation goal's tokens, nil when there is no goal.
    @inline(__always)
    func withFeatures<R>(_ bytes: UnsafeBufferPointer<UInt8>, goal: UnsafeBufferPointer<Token>?,
                         _ body: (UnsafeBufferPointer<Int32>, Int) -> R) -> R {
        withTokens(bytes) { tokens, last in
            // One bit more than the features: `sentinel`, the id "no feature" becomes.
            withZeroedBits(count: featureCount / 64 + 1) { seen in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: max(tokens.count, 1)) { classes in
                    let fits: R? = withUnsafeTemporaryAllocation(of: Int32.self, capacity: Self.stackFeatures) { memory in
                        var output = FeatureSet(seen: seen, memory: memory, sentinel: Int32(featureCount))
                        features(last: last, goal: goal, tokens: tokens, classes: classes, into: &output)
                        return output.overflowed ? nil : body(output.elements, tokens.count)
                    }
                    if let fits { return fits }
                    // Each feature is added at most once (the `seen` bits), so `featureCount` bounds the ids.
                    seen.update(repeating: 0)
                    return withUnsafeTemporaryAllocation(of: Int32.self, capacity: featureCount + 1) { memory in
                        var output = FeatureSet(seen: seen, memory: memory, sentinel: Int32(featureCount))
                        features(last: last, goal: goal, tokens: tokens, classes: classes, into: &output)
                        return body(output.elements, tokens.count)
                    }
                }
            }
        }
    }

    @inline(never)
    func features(last: UInt8, goal: UnsafeBufferPointer<Token>?, tokens t: UnsafeBufferPointer<Token>,
                  classes: UnsafeMutableBufferPointer<UInt32>, into output: inout FeatureSet) {
        // Whether a time expression was seen besides the fixed time features (whose bits the
        // set holds): a time cue, "just" + past participle, a time cue of the goal.
        var timeSeen = false
        @inline(__always) func add(_ id: Int32) { output.insert(id) }
        @inline(__always) func add(_ fixed: Int) { output.insert(Int32(fixed)) }
        @inline(__always) func has(_ fixed: Int) -> Bool { output.contains(Int32(fixed)) }
        let n = t.count
        // Every class and token flag of the message: most messages have no time word and no
        // number, and skip the time-expression pass.
        var allClasses: UInt32 = 0, allFlags: UInt8 = 0
        // The positions the structural and the time pass have work at: they visit only those, in
        // order, rather than every token (when the message has at most 64).
        var structuralAt: UInt64 = 0, timeAt: UInt64 = 0

        // Cues (trie) and vocabulary words. A cue is negated when a negator stands at most
        // three tokens before it, with no comma or stronger punctuation between them other
        // than right after the negator ("not, sure" is negated; "not now, sure" is not).
        // Tracked as the walk goes, so no token is looked at twice.
        var lastNegator = -8, lastBreak = -1
        // Where the last sentence starts (0: the message is one sentence).
        var lastSentence = 0
        for i in 0..<n {
            let token = t[i]
            let info = table.info(at: token.slot)
            let c = info.classes
            classes[i] = c
            allClasses |= c
            allFlags |= token.flags
            lastBreak = token.separator >= Separator.comma ? i : lastBreak
            lastSentence = token.separator >= Separator.stop ? i : lastSentence
            // As bits (`|`, not `||`: no branches).
            let structural = ((i > 0 ? 1 : 0) & (token.separator >= Separator.stop ? 1 : 0)) | (c & (Self.cOr | Self.cBe) != 0 ? 1 : 0)
            let timely: UInt64 = (token.flags & Token.number != 0 ? 1 : 0) | (c & Self.timeWork != 0 ? 1 : 0)
            structuralAt |= UInt64(structural) &<< UInt64(i & 63)
            timeAt |= timely &<< UInt64(i & 63)
            add(info.word)
            // The trie walk from this token. Every token takes it: one that starts no cue has
            // no cue entries and no children, and stops at the first test, which costs less
            // than a branch on whether it starts one (that depends on the word, and mispredicted).
            let negated = lastNegator >= i - 3 && lastBreak < lastNegator + 2
            @inline(__always) func emit(_ cue: CueEmit) {
                add(negated ? cue.negated : cue.plain)
                add(negated ? -1 : cue.phrase)
            }
            @inline(__always) func emit(from start: Int, to end: Int) {
                var c = start
                while c < end { emit(cueEmits[c]); c &+= 1 }
            }
            // The walk goes on only to a token in the same sentence whose bit is in the node's
            // child signature (which rules out most continuations without a probe): one branch
            // for the three tests.
            @inline(__always) func goesOn(_ j: Int, _ children: UInt64) -> Bool {
                let next = t[min(j, n - 1)]
                return (j < n ? 1 : 0) & (next.separator < Separator.stop ? 1 : 0) & (children & childBit(next.hash) != 0 ? 1 : 0) != 0
            }
            emit(from: info.rootCues.start, to: info.rootCues.end)
            var children = info.rootChildren, key = combine(trieRoot, token.hash), j = i + 1
            while goesOn(j, children) {
                key = combine(key, t[j].hash)
                // A deeper node's first entry is in its record: added with no test, as a node
                // without entries (or the empty record a probe that finds none reads, which
                // also stops the walk) holds one that adds nothing.
                let node = trie.node(key)
                emit(node.first)
                emit(from: node.cues.start &+ 1, to: node.cues.end)
                children = node.children
                j += 1
            }
            lastNegator = c & Self.cNegator != 0 ? i : lastNegator
        }
        // A time family's cue (not negated) is a time expression.
        for family in timeFamilies { timeSeen = timeSeen || output.contains(family) }
        // A chat ending after the message's own last punctuation ("is this real? lol", "can you
        // help? thanks") leaves that punctuation the message's last: the question stays a question.
        var last = last
        if n > 1 && allClasses & Self.cChatEnding != 0 && classes[n - 1] & Self.cChatEnding != 0 && last < Separator.stop {
            var k = n - 1
            while k > 1 && classes[k - 1] & Self.cChatEnding != 0 && t[k].separator < Separator.stop { k -= 1 }
            if t[k].separator >= Separator.stop { last = t[k].separator }
        }
        if n > 0 {
            openingFeatures(last: last, tokens: t, classes: classes, into: &output)

            var questions = last == Separator.question ? 1 : 0
            var sentences = 0
            /// What a later sentence start, an "or" and a "be" + "-ing" add, at position `i`.
            @inline(__always) func structure(at i: Int) {
                let c = classes[i]
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
            Self.visit(structuralAt, count: n) { structure(at: $0) }
            let firstPerson = allClasses & Self.cFirstPerson != 0
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

            // Time expressions: each rule needs a number or one of these classes.
            let timeClasses = Self.cWeekday | Self.cMonth | Self.cMonthAmbiguous | Self.cMinute | Self.cHour | Self.cDay | Self.cWeek | Self.cJust
            if allFlags & Token.number != 0 || allClasses & timeClasses != 0 {
                Self.visit(timeAt, count: n) { i in
                    if timeExpression(at: i, tokens: t, classes: classes, into: &output) { timeSeen = true }
                }
            }
        }

        // The conversation goal: its cue families, as separate features.
        let short = n <= 8
        if let goalTokens = goal {
            add(F.goalPresent)
            let m = goalTokens.count
            for i in 0..<m {
                // The first level is in the token's record, the rest in the trie's.
                let first = table.info(at: goalTokens[i].slot)
                var cues = first.rootCues, children = first.rootChildren
                var key = combine(trieRoot, goalTokens[i].hash)
                var j = i
                while true {
                    for c in cues.start..<cues.end where nodeCues[c] >= 0 {
                        let cue = phraseCues[Int(nodeCues[c])]
                        add(cue.goal)
                        // A short message leans on its goal: the goal's cue families count as the message's.
                        if short {
                            add(cue.family)
                            if cue.isTime { timeSeen = true }
                        }
                    }
                    j += 1
                    guard j < m, children & childBit(goalTokens[j].hash) != 0 else { break }
                    key = combine(key, goalTokens[j].hash)
                    let node = trie.node(key)
                    guard node.exists else { break }
                    cues = node.cues
                    children = node.children
                }
            }
        }
        let anyTime = timeSeen || output.containsAny(of: F.firstTime...F.lastTime)
        if !anyTime { add(F.timeNone) }
        // Pasted context before the ask ("… the deadline is tomorrow. Which of these should I
        // read first?"): the context's dates are someone else's. A time expression outside the
        // last sentence, and none in it, says so. Only messages of several sentences with a time
        // word pay for the second look.
        if anyTime && lastSentence > 0 && !timeExpressed(from: lastSentence, tokens: t, classes: classes) { add(F.timeBeforeLastSentence) }
    }

    /// Whether the tokens from `start` to the end hold a time expression: a number, a word of
    /// the time classes, or a phrase of a time family (`timeFamilies`).
    @inline(never)
    private func timeExpressed(from start: Int, tokens t: UnsafeBufferPointer<Token>, classes: UnsafeMutableBufferPointer<UInt32>) -> Bool {
        let n = t.count
        let timeClasses = Self.timeWork | Self.cNext | Self.cClockSuffix | Self.cOrdinal
        func isTimeFamily(_ id: Int32) -> Bool { timeFamilies.contains(id) }
        for i in start..<n {
            if t[i].isNumber || classes[i] & timeClasses != 0 { return true }
            let info = table.info(at: t[i].slot)
            for c in info.rootCues.start..<info.rootCues.end where isTimeFamily(cueEmits[c].plain) { return true }
            var children = info.rootChildren, key = combine(trieRoot, t[i].hash), j = i + 1
            while j < n && t[j].separator < Separator.stop && children & childBit(t[j].hash) != 0 {
                key = combine(key, t[j].hash)
                let node = trie.node(key)
                guard node.exists else { break }
                for c in node.cues.start..<node.cues.end where isTimeFamily(cueEmits[c].plain) { return true }
                children = node.children
                j += 1
            }
        }
        return false
    }

    /// Calls `body` with each position whose bit is set in `marked`, in order. The bits cover
    /// the first 64 positions only, so a longer message visits every position.
    @inline(__always)
    private static func visit(_ marked: UInt64, count n: Int, _ body: (Int) -> Void) {
        guard n <= 64 else {
            for i in 0..<n { body(i) }
            return
        }
        var at = marked
        while at != 0 {
            body(at.trailingZeroBitCount)
            at &= at &- 1
        }
    }

    /// Opening words, questions, imperatives, and a scene-setting fragment.
    @inline(__always)
    private func openingFeatures(last: UInt8, tokens t: UnsafeBufferPointer<Token>, classes: UnsafeMutableBufferPointer<UInt32>,
                                 into output: inout FeatureSet) {
        @inline(__always) func add(_ fixed: Int) { output.insert(Int32(fixed)) }
        let n = t.count
        add(Int(table.info(at: t[0].slot).first))
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
    }

    /// The time expressions that end or turn on the token at `i`; true when one sets a time
    /// that is not a fixed time feature ("just" + past participle).
    @inline(__always)
    private func timeExpression(at i: Int, tokens t: UnsafeBufferPointer<Token>, classes: UnsafeMutableBufferPointer<UInt32>,
                                into output: inout FeatureSet) -> Bool {
        @inline(__always) func add(_ fixed: Int) { output.insert(Int32(fixed)) }
        let n = t.count
        let c = classes[i]
        let token = t[i]
        var timeSeen = false
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
        return timeSeen
    }
}

// Class bits, in the order of `Lexicon.requiredClasses` (literal constants: no lazy initialisation in the hot path).
extension ExtractorTables {
    /// The classes the time pass has work at (besides numbers).
    static let timeWork: UInt32 = cWeekday | cMonth | cMonthAmbiguous | cMinute | cHour | cDay | cWeek | cJust | cAgo | cIn

    static let cNegator: UInt32 = 1 << 0  // negator
    static let cFirstPerson: UInt32 = 1 << 1  // first-person
    static let cOpener: UInt32 = 1 << 2  // opener
    static let cImperative: UInt32 = 1 << 3  // imperative-verb
    static let cRequestPrefix: UInt32 = 1 << 4  // request-prefix
    static let cTag: UInt32 = 1 << 5  // tag-word
    static let cNumberWord: UInt32 = 1 << 6  // number-word
    static let cMinute: UInt32 = 1 << 7  // unit-minute
    static let cHour: UInt32 = 1 << 8  // unit-hour
    static let cDay: UInt32 = 1 << 9  // unit-day
    static let cWeek: UInt32 = 1 << 10  // unit-week
    static let cClockSuffix: UInt32 = 1 << 11  // clock-suffix
    static let cOrdinal: UInt32 = 1 << 12  // ordinal-suffix
    static let cWeekday: UInt32 = 1 << 13  // weekday
    static let cMonth: UInt32 = 1 << 14  // month
    static let cMonthAmbiguous: UInt32 = 1 << 15  // month-ambiguous
    static let cMonthPreposition: UInt32 = 1 << 16  // month-preposition
    static let cBe: UInt32 = 1 << 17  // be-verb
    static let cOr: UInt32 = 1 << 18  // or-word
    static let cOrTail: UInt32 = 1 << 19  // or-tail
    static let cWh: UInt32 = 1 << 20  // wh-word
    static let cAux: UInt32 = 1 << 21  // aux-verb
    static let cRequestModal: UInt32 = 1 << 22  // request-modal
    static let cAddressee: UInt32 = 1 << 23  // addressee
    static let cNext: UInt32 = 1 << 24  // next-word
    static let cIn: UInt32 = 1 << 25  // in-word
    static let cJust: UInt32 = 1 << 26  // just-word
    static let cAgo: UInt32 = 1 << 27  // ago-word
    static let cClockPreposition: UInt32 = 1 << 28  // clock-preposition
    static let cClockFollow: UInt32 = 1 << 29  // clock-follow
    static let cChatEnding: UInt32 = 1 << 30  // chat-ending
}

extension FeatureExtractor {
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
        "time:before-last-sentence",
    ]
}

extension ExtractorTables {
    /// Ids of `FeatureExtractor.fixedFeatures`.
    enum F {
        static let question = 0, whStart = 1, auxStart = 2, whLater = 3, imperative = 4, imperativeLater = 5
        static let politeRequest = 6, eitherOr = 7, eitherOrFirstPerson = 8, orNot = 9, tagQuestion = 10
        static let progressive = 11, firstPersonProgressive = 12, multiQuestion = 13, multiSentence = 14, firstPerson = 15
        static let len1 = 16, len4 = 17, len9 = 18, len21 = 19
        static let inMinutes = 20, nMinutes = 21, inHours = 22, nHours = 23, inDays = 24, nDays = 25
        static let inWeeks = 26, nWeeks = 27, inBare = 28, clock = 29, weekday = 30, nextWeekday = 31
        static let month = 32, ordinalDate = 33, numericDate = 34, year = 35, timeNone = 36, goalPresent = 37
        static let whShort = 38, eitherOrWh = 39, justHappened = 40, ago = 41, eitherOrShort = 42, startsProgressive = 43
        static let sceneOpening = 44, timeBeforeLastSentence = 45
        static let firstTime = 20, lastTime = 35
    }

}
