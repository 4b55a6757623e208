import ReceptionCore

/// Applies a soul's word-level rules to prose (vocabulary replacements, capitalisation,
/// the emoji and dash policies) without ever touching facts.
///
/// Protected, copied scalar for scalar: code spans and fenced or indented code, URLs,
/// Markdown links and autolinks, quoted text ("…", “…”, ‘…’, '…'), block quotes, any token
/// holding a digit or a technical character (numbers, units attached to them, dates,
/// versions, prices, paths, e-mail addresses), the word right after a number (its unit),
/// and names: capitalised words inside a sentence, acronyms and mixed-case words.
///
/// Works on Unicode scalars so output bytes equal input bytes wherever nothing changes.
struct ProseStyler: Sendable {
    let matcher: VocabularyMatcher
    let capitalization: Capitalization
    let stripEmoji: Bool
    /// `dashes: none`: a dash between clauses becomes a comma.
    let stripDashes: Bool
    /// For Reception's and the soul's own words (leads, hedges, labels, notes): they hold no
    /// engine name, so a lowercase voice lowercases every sentence's first word, not only the
    /// ordinary words it is sure are no name (`ownWords()` gives such a styler).
    private(set) var ownWords = false
    /// Words the persona uses and writes in lowercase that are no ordinary English word ("lfg",
    /// "gm"): sentence case leaves them as written at a sentence's start too.
    private(set) var keptLowercase: Set<String> = []

    init(soul: Soul) {
        // The soul's own replacements only. The register's contractions were once applied
        // here too, word by word, and wrote "Is not it odd" and "That's what it's" into the
        // engine's answers and the author's own strings; the register now shapes Reception's
        // framing (VoiceDefaults' wording), never the engine's grammar.
        matcher = VocabularyMatcher(soul.vocabulary.replace)
        capitalization = soul.capitalization
        stripEmoji = soul.emoji == .never
        stripDashes = soul.dashes == .none
        if soul.capitalization == .sentence {
            keptLowercase = Set(soul.vocabulary.prefer.filter { word in
                word.count <= 6 && !word.contains(" ") && word == word.lowercased() && word.contains(where: \.isLetter)
                    && !CommonWords.english.contains(word)
            })
        }
    }

    init(replacements: [VocabularyReplacement], capitalization: Capitalization, stripEmoji: Bool, stripDashes: Bool = false) {
        matcher = VocabularyMatcher(replacements)
        self.capitalization = capitalization
        self.stripEmoji = stripEmoji
        self.stripDashes = stripDashes
    }

    /// True when styling can change nothing, so callers may skip it.
    var isIdentity: Bool { matcher.isEmpty && capitalization == .asWritten && !stripEmoji && !stripDashes }

    /// Where the text around a chunk boundary stands.
    struct State: Sendable, Hashable {
        var atSentenceStart = true
        var atLineStart = true
        /// The previous token was a number: the next word is its unit.
        var afterNumber = false
        /// The last word was capitalised (a bare "I" after it is a numeral: "World War I").
        var afterCapital = false
        /// Inside a fenced code block opened by this marker ("```" or "~~~").
        var fence: [Unicode.Scalar]? = nil
        /// A lowercase voice's words seen so far in lowercase mid-sentence: such a word is no
        /// name when it starts a later sentence. Only earlier words count, so a stream styles
        /// a sentence as the whole text does.
        var seenInLowercase: Set<String> = []
    }

    /// `State.seenInLowercase` keeps at most this many words (an answer's distinct words).
    static let seenInLowercaseLimit = 4096

    /// An em dash, an en dash or "--" somewhere in the text (a byte scan: most text has none).
    static func mayHoldADash(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte == 0x2D, previous == 0x2D { return true }
            if previous == 0xE2, byte == 0x80 { return true }  // U+2000–U+203F, the dashes among them
            previous = byte
        }
        return false
    }

    /// This styler for the voice's own words (see `ownWords`).
    func forOwnWords() -> ProseStyler {
        var copy = self
        copy.ownWords = true
        return copy
    }

    /// Styles a complete text.
    func style(_ text: String) -> String {
        // Nothing to replace and nothing else to do: the text as it is (the state is thrown away).
        if capitalization == .asWritten, !stripEmoji, !matcher.mayMatch(text), !stripDashes || !Self.mayHoldADash(text) { return text }
        var state = State()
        return style(text, state: &state)
    }

    func style(_ text: String, state: inout State) -> String {
        if isIdentity { return text }
        let scalars = Array(text.unicodeScalars)
        // The set moves out of the state for the render: left in both, each chunk of a stream
        // would copy it whole at its first insert.
        var seen = state.seenInLowercase
        state.seenInLowercase = []
        var scanner = Scanner(scalars: scalars, streaming: false, state: state, styler: self)
        scanner.scan()
        let (text, afterCapital) = scanner.render(afterCapital: state.afterCapital, seenInLowercase: &seen)
        state = scanner.state
        state.afterCapital = afterCapital
        state.seenInLowercase = seen
        return text
    }

    // MARK: Sentences

    /// The text split into sentences that keep protected spans whole; joining the pieces
    /// (they include their trailing whitespace) gives back the text exactly.
    func sentences(_ text: String) -> [Substring] {
        let scalars = Array(text.unicodeScalars)
        var scanner = Scanner(scalars: scalars, streaming: false, state: State(), styler: self)
        scanner.scan()
        var result: [Substring] = []
        let view = text.unicodeScalars
        var start = view.startIndex
        var index = view.startIndex
        var offset = 0
        for end in scanner.sentenceEnds where end > offset {
            while offset < end { index = view.index(after: index); offset += 1 }
            result.append(Substring(view[start..<index]))
            start = index
        }
        if start < view.endIndex { result.append(Substring(view[start...])) }
        return result
    }

    // MARK: Streaming support

    /// How much of `scalars` can be styled now without knowing what comes next: up to an
    /// unclosed construct, and short of the last words (a phrase to replace may go on in
    /// the next chunk).
    func safePrefixLength(_ scalars: [Unicode.Scalar], state: State) -> Int {
        var scanner = Scanner(scalars: scalars, streaming: true, state: state, styler: self)
        scanner.scan()
        var cut = scanner.incompleteAt ?? scalars.count
        var index = scanner.pieces.lastIndex { $0.range.lowerBound < cut } ?? -1
        guard index >= 0 else { return 0 }
        // The last token may go on in the next chunk.
        let last = scanner.pieces[index]
        if case .space = last.kind {} else if last.range.upperBound >= cut {
            cut = last.range.lowerBound
            index -= 1
        }
        if stripDashes {
            // A dash becomes a comma on the word before it, and a space after it when a word
            // follows at once: the held text never starts with a space or a dash, nor follows
            // a dash (and a trailing space is held too, a dash may come next).
            func isGap(_ k: Int) -> Bool {
                switch scanner.pieces[k].kind {
                case .space, .dash: true
                default: false
                }
            }
            var first = index + 1
            if first == scanner.pieces.count, isGap(index) { first = index }
            func isDash(_ k: Int) -> Bool { if case .dash = scanner.pieces[k].kind { true } else { false } }
            while first > 0, first < scanner.pieces.count, isGap(first) || isDash(first - 1) { first -= 1 }
            if first < scanner.pieces.count, scanner.pieces[first].range.lowerBound < cut {
                cut = scanner.pieces[first].range.lowerBound
                index = first - 1
            }
        }
        // A phrase to replace may start in one of the last complete words.
        var hold = max(0, matcher.longestPhrase - 1)
        while hold > 0, index >= 0 {
            let piece = scanner.pieces[index]
            if case .space = piece.kind {} else {
                cut = piece.range.lowerBound
                hold -= 1
            }
            index -= 1
        }
        // Never cut through a phrase that matches: hold all of it.
        if matcher.longestPhrase > 1 {
            var first = max(0, index - 2 * matcher.longestPhrase)
            while first < scanner.pieces.count, scanner.pieces[first].range.lowerBound < cut {
                if let match = matcher.match(pieces: scanner.pieces, at: first, scalars: scalars),
                   scanner.pieces[match.lastPiece].range.upperBound > cut {
                    return scanner.pieces[first].range.lowerBound
                }
                first += 1
            }
        }
        return cut
    }

    // MARK: Scanner

    enum PieceKind: Sendable {
        /// Copied as is.
        case verbatim
        /// Whitespace.
        case space
        /// An unprotected word token: `lead` punctuation, a `core` of letters, `trail` punctuation.
        case word(lead: Range<Int>, core: Range<Int>, trail: Range<Int>, sentenceStart: Bool)
        /// Dropped (an emoji under `emoji: none`).
        case removed
        /// A dash between clauses under `dashes: none`: rendered as a comma.
        case dash
    }

    struct Piece: Sendable {
        var kind: PieceKind
        var range: Range<Int>
    }

    struct Scanner {
        let s: [Unicode.Scalar]
        let streaming: Bool
        var state: State
        let styler: ProseStyler
        var pieces: [Piece] = []
        var sentenceEnds: [Int] = []
        var incompleteAt: Int?

        init(scalars: [Unicode.Scalar], streaming: Bool, state: State, styler: ProseStyler) {
            s = scalars
            self.streaming = streaming
            self.state = state
            self.styler = styler
            pieces.reserveCapacity(scalars.count / 4)
        }

        mutating func append(_ kind: PieceKind, _ range: Range<Int>) {
            if case .verbatim = kind, let last = pieces.last, case .verbatim = last.kind, last.range.upperBound == range.lowerBound {
                pieces[pieces.count - 1].range = last.range.lowerBound..<range.upperBound
                return
            }
            pieces.append(Piece(kind: kind, range: range))
        }

        mutating func scan() {
            var i = 0
            let n = s.count
            while i < n {
                if let fence = state.fence {
                    // Inside fenced code: copy whole lines until the closing fence.
                    guard let lineEnd = lineEnd(from: i) else {
                        if streaming { incompleteAt = i; return }
                        append(.verbatim, i..<n); i = n; break
                    }
                    let line = i..<lineEnd
                    append(.verbatim, i..<min(lineEnd + 1, n))
                    // A code block is a sentence of its own: cut by a length limit, it goes whole
                    // or not at all, and the prose after it is not part of it.
                    if isFence(line, marker: fence) { state.fence = nil; state.atSentenceStart = true; sentenceEnds.append(min(lineEnd + 1, n)) }
                    i = min(lineEnd + 1, n)
                    state.atLineStart = true
                    continue
                }
                if state.atLineStart, let next = lineStart(i) {
                    if next == -1 { incompleteAt = i; return }
                    i = next
                    continue
                }
                let c = s[i]
                if isSpace(c) {
                    var j = i
                    var newlines = 0
                    var lastNewline = -1
                    while j < n, isSpace(s[j]) {
                        if s[j] == "\n" { newlines += 1; lastNewline = j }
                        j += 1
                    }
                    if newlines == 0 {
                        append(.space, i..<j)
                        i = j
                        continue
                    }
                    // Up to the last line break; that line's indentation goes to the line-start check.
                    append(.space, i..<(lastNewline + 1))
                    // A blank line ends a sentence (a single break inside a paragraph does not).
                    if newlines > 1, !state.atSentenceStart { state.atSentenceStart = true; sentenceEnds.append(lastNewline + 1) }
                    state.atLineStart = true
                    i = lastNewline + 1
                    continue
                }
                state.atLineStart = false
                if let end = protectedConstruct(at: i) {
                    if end == -1 { incompleteAt = i; return }
                    append(.verbatim, i..<end)
                    noteSentenceEnd(in: i..<end)
                    state.afterNumber = false
                    i = end
                    continue
                }
                i = token(at: i)
            }
        }

        func lineEnd(from i: Int) -> Int? {
            var j = i
            while j < s.count { if s[j] == "\n" { return j }; j += 1 }
            return streaming ? nil : s.count
        }

        func isFence(_ line: Range<Int>, marker: [Unicode.Scalar]) -> Bool {
            var j = line.lowerBound
            while j < line.upperBound, s[j] == " " { j += 1 }
            var count = 0
            while j < line.upperBound, s[j] == marker[0] { count += 1; j += 1 }
            guard count >= marker.count else { return false }
            while j < line.upperBound, isSpace(s[j]) { j += 1 }
            return j == line.upperBound
        }

        /// At the start of a line: fences, block quotes and indented code are copied whole.
        /// Returns where scanning goes on, -1 when the line is incomplete (streaming), nil for ordinary text.
        mutating func lineStart(_ i: Int) -> Int? {
            let n = s.count
            var j = i
            var indent = 0
            while j < n, s[j] == " " || s[j] == "\t" { indent += s[j] == "\t" ? 4 : 1; j += 1 }
            if j == n { return streaming ? -1 : nil }
            if s[j] == "\n" { return nil }
            if indent >= 4 {
                guard let end = lineEnd(from: j) else { return -1 }
                append(.verbatim, i..<end)
                state.atLineStart = false
                return end
            }
            if s[j] == "`" || s[j] == "~" {
                var k = j
                while k < n, s[k] == s[j] { k += 1 }
                if k - j >= 3 {
                    guard let end = lineEnd(from: k) else { return -1 }
                    if !state.atSentenceStart { state.atSentenceStart = true; sentenceEnds.append(i) }
                    state.fence = Array(repeating: s[j], count: k - j)
                    append(.verbatim, i..<min(end + 1, n))
                    state.atLineStart = true
                    return min(end + 1, n)
                }
                if streaming, k == n { return -1 }
            }
            if s[j] == ">" {
                guard let end = lineEnd(from: j) else { return -1 }
                append(.verbatim, i..<end)
                state.atLineStart = false
                state.atSentenceStart = true
                return end
            }
            // A list marker or heading starts a new sentence, and ends the one before it
            // ("Steps for the manager:" and each item are pieces of their own to a length limit).
            if s[j] == "#" || ((s[j] == "-" || s[j] == "*" || s[j] == "+") && j + 1 < n && s[j + 1] == " ") || isOrderedMarker(j) {
                if !state.atSentenceStart { sentenceEnds.append(i) }
                state.atSentenceStart = true
            }
            state.atLineStart = false
            if j > i { append(.space, i..<j) }
            // "2." before a step is its number, not a sentence that ends: copied as it is, so a
            // length limit never cuts after a bare "2." and the step's first word is styled as
            // a sentence's first (not as the unit of a number).
            if isOrderedMarker(j) {
                var k = j
                while isDigit(s[k]) { k += 1 }
                append(.verbatim, j..<(k + 1))
                return k + 1
            }
            return j == i ? nil : j
        }

        func isOrderedMarker(_ j: Int) -> Bool {
            var k = j
            while k < s.count, k - j < 4, isDigit(s[k]) { k += 1 }
            return k > j && k + 1 < s.count && (s[k] == "." || s[k] == ")") && s[k + 1] == " "
        }

        mutating func noteSentenceEnd(in range: Range<Int>) {
            var k = range.upperBound - 1
            while k >= range.lowerBound, isCloser(s[k]) { k -= 1 }
            if k >= range.lowerBound, s[k] == "." || s[k] == "!" || s[k] == "?" {
                if range.upperBound < s.count, isSpace(s[range.upperBound]) {
                    state.atSentenceStart = true
                    sentenceEnds.append(range.upperBound)
                    return
                }
            }
            state.atSentenceStart = false
        }

        /// The end of a protected construct starting at `i`, -1 if it may still close (streaming), nil if none starts here.
        func protectedConstruct(at i: Int) -> Int? {
            let n = s.count
            let c = s[i]
            switch c {
            case "`":
                var k = i
                while k < n, s[k] == "`" { k += 1 }
                let run = k - i
                if streaming, k == n { return -1 }
                var j = k
                while j < n {
                    if s[j] == "`" {
                        var m = j
                        while m < n, s[m] == "`" { m += 1 }
                        if m - j == run { return m }
                        j = m
                    } else {
                        j += 1
                    }
                }
                return streaming ? -1 : k  // an unclosed run: literal backticks
            case "[", "!":
                let open = c == "!" ? i + 1 : i
                guard open < n else { return streaming && c == "!" ? nil : (streaming ? -1 : nil) }
                guard s[open] == "[" else { return nil }
                var depth = 0
                var j = open
                while j < n {
                    if s[j] == "[" { depth += 1 }
                    if s[j] == "]" { depth -= 1; if depth == 0 { break } }
                    if s[j] == "\n", j + 1 < n, s[j + 1] == "\n" { return nil }
                    j += 1
                }
                if j >= n { return streaming ? -1 : nil }
                guard j + 1 < n else { return streaming ? -1 : nil }
                guard s[j + 1] == "(" else { return nil }
                var parens = 0
                var k = j + 1
                while k < n {
                    if s[k] == "(" { parens += 1 }
                    if s[k] == ")" { parens -= 1; if parens == 0 { return k + 1 } }
                    if isSpace(s[k]), s[k] == "\n" { return nil }
                    k += 1
                }
                return streaming ? -1 : nil
            case "<":
                var j = i + 1
                while j < n, !isSpace(s[j]), s[j] != ">" { j += 1 }
                if j == n { return streaming && j - i < 200 ? -1 : nil }
                guard s[j] == ">" else { return nil }
                let inner = String(String.UnicodeScalarView(s[(i + 1)..<j]))
                return inner.contains("://") || inner.contains("@") || inner.hasPrefix("www.") ? j + 1 : nil
            case "\"", "“", "‘", "'":
                if c == "'" || c == "‘" {
                    if i > 0, !(isSpace(s[i - 1]) || s[i - 1] == "(" || s[i - 1] == "[" || s[i - 1] == "{" || s[i - 1] == "\"" || s[i - 1] == "“") { return nil }
                }
                guard i + 1 < n else { return streaming ? -1 : nil }
                if isSpace(s[i + 1]) { return nil }
                let closers: [Unicode.Scalar] = c == "“" ? ["”", "\""] : c == "‘" ? ["’"] : [c]
                var j = i + 1
                while j < n, j - i < 2000 {
                    if s[j] == "\n", j + 1 < n, s[j + 1] == "\n" { return nil }
                    if closers.contains(s[j]) {
                        if c == "'" || c == "‘" {
                            // An apostrophe inside a word is not the closing quote.
                            if j + 1 < n, isWordScalar(s[j + 1]) { j += 1; continue }
                            if j + 1 == n, streaming { return -1 }
                        }
                        return j + 1
                    }
                    j += 1
                }
                return streaming && j == n ? -1 : nil
            default:
                if (c == "h" || c == "w" || c == "f" || c == "m"), hasURLPrefix(i) {
                    var j = i
                    while j < n, !isSpace(s[j]) { j += 1 }
                    if streaming, j == n { return -1 }
                    // Sentence punctuation after a URL is not part of it.
                    var end = j
                    while end > i + 1, isTrailPunctuation(s[end - 1]) { end -= 1 }
                    return end
                }
                return nil
            }
        }

        func hasURLPrefix(_ i: Int) -> Bool {
            for prefix in URLPrefixes.all where i + prefix.count <= s.count {
                var matches = true
                for (offset, scalar) in prefix.enumerated() where s[i + offset] != scalar { matches = false; break }
                if matches { return true }
            }
            return false
        }

        /// A whitespace-delimited token at `i` (stopping before a protected construct).
        mutating func token(at i: Int) -> Int {
            let n = s.count
            if styler.stripDashes, let end = clauseDash(at: i) {
                append(.dash, i..<end)
                state.afterNumber = false
                return end
            }
            var j = i
            while j < n, !isSpace(s[j]) {
                if j > i, s[j] == "`" || s[j] == "[" || s[j] == "<" || s[j] == "\"" || s[j] == "“" { break }
                if j > i, styler.stripDashes, s[j] == "—" { break }  // "word—word": the dash is a token of its own
                j += 1
            }
            if j == i { j = i + 1 }
            var lead = i
            while lead < j, isLeadPunctuation(s[lead]) { lead += 1 }
            var trail = j
            while trail > lead, isTrailPunctuation(s[trail - 1]) { trail -= 1 }
            let core = lead..<trail
            let range = i..<j
            let sentenceStart = state.atSentenceStart

            // Sentence end after this token: its last punctuation (closers aside) ends one, so
            // "5th Ave., which" goes on; a full stop ends one where `fullStopEnds` says.
            var last = j - 1
            while last >= trail, isCloser(s[last]) || s[last] == "*" || s[last] == "_" { last -= 1 }
            var endsSentence = last >= trail && (s[last] == "." || s[last] == "!" || s[last] == "?" || s[last] == "…")
            if endsSentence, s[last] == ".", !fullStopEnds(core: core, through: last, before: j) { endsSentence = false }
            let followedBySpace = j == n ? !streaming : isSpace(s[j])

            if core.isEmpty {
                // Punctuation only ("—", "-", "…"), or emoji-free symbols.
                if styler.stripEmoji, s[range].allSatisfy({ ProseWords.isEmoji($0) || isEmojiModifier($0) }) {
                    append(.removed, range)
                } else {
                    append(.verbatim, range)
                }
            } else if styler.stripEmoji, s[core].allSatisfy({ ProseWords.isEmoji($0) || isEmojiModifier($0) }) {
                // The punctuation after it is the sentence's ("Bring tea 🍵!" reads "Bring tea!", not
                // "Bring tea" run into the next sentence); brackets or quotes around it go with it.
                if j > trail, s[trail..<j].allSatisfy({ ".,;:!?…".unicodeScalars.contains($0) }) {
                    append(.removed, i..<trail)
                    append(.verbatim, trail..<j)
                } else {
                    append(.removed, range)
                }
            } else if state.afterNumber || isProtected(core, sentenceStart: sentenceStart) {
                append(.verbatim, range)
            } else {
                append(.word(lead: i..<lead, core: core, trail: trail..<j, sentenceStart: sentenceStart), range)
            }
            state.afterNumber = !core.isEmpty && s[core].contains(where: isDigit) && (trail == j)
            if endsSentence && followedBySpace {
                state.atSentenceStart = true
                sentenceEnds.append(j)
            } else if !core.isEmpty {
                state.atSentenceStart = false
            }
            return j
        }

        /// The end of a dash between clauses at `i`: an em dash anywhere ("X — Y", "X—Y"); an en
        /// dash or "--" only standing alone between spaces ("X – Y", not "2020–2021" or "--force").
        func clauseDash(at i: Int) -> Int? {
            let n = s.count
            if s[i] == "—" {
                var end = i + 1
                while end < n, s[end] == "—" { end += 1 }
                return end
            }
            let standsAlone = i == 0 || isSpace(s[i - 1])
            guard standsAlone else { return nil }
            var end = i
            if s[i] == "–" {
                end = i + 1
            } else if s[i] == "-", i + 1 < n, s[i + 1] == "-" {
                end = i + 2
                while end < n, s[end] == "-" { end += 1 }
            } else {
                return nil
            }
            return end == n || isSpace(s[end]) ? end : nil
        }

        /// Whether the full stop at `stop` ends the sentence (`Sentences.fullStopEnds`, the rule
        /// every splitter shares), from the word before it and the next word's first character;
        /// in a stream whose next word is not here yet, it does (as it did before it was known).
        func fullStopEnds(core: Range<Int>, through stop: Int, before j: Int) -> Bool {
            // Most words are no abbreviation: longer than any with no full stop inside, or holding
            // more than letters and full stops (a URL, a number).
            let word = core.lowerBound..<stop
            if word.count > Sentences.longestAbbreviation, !s[word].contains(".") { return true }
            if !s[word].allSatisfy({ $0 == "." || isLetter($0) }) { return true }
            var next = j
            while next < s.count, isSpace(s[next]) { next += 1 }
            guard next < s.count else { return true }
            return Sentences.fullStopEnds(after: String(String.UnicodeScalarView(s[word])), before: Character(s[next]))
        }

        /// Names, numbers, code-like and technical tokens.
        func isProtected(_ core: Range<Int>, sentenceStart: Bool) -> Bool {
            var uppercaseAfterFirst = false
            var first = true
            for k in core {
                let c = s[k]
                if c.isASCII {
                    let v = c.value
                    if v >= 0x30 && v <= 0x39 { return true }  // digit
                    if v >= 0x41 && v <= 0x5A { if !first { uppercaseAfterFirst = true } }
                    else if v >= 0x61 && v <= 0x7A {}
                    else if c == "'" || c == "-" {}
                    else { return true }  // . : / @ _ = # & + $ % ...
                } else {
                    let properties = c.properties
                    if properties.numericType != nil { return true }
                    if properties.isAlphabetic || properties.generalCategory == .nonspacingMark || properties.generalCategory == .spacingMark {
                        if properties.isUppercase, !first { uppercaseAfterFirst = true }
                    } else if c == "’" {
                    } else if !(ProseWords.isEmoji(c) || isEmojiModifier(c)) {
                        return true
                    }
                }
                first = false
            }
            if uppercaseAfterFirst {
                // NASA stays NASA (the capitalisation policy never touches it) but may match
                // a vocabulary entry; iPhone and OpenClaw are names.
                return !s[core].allSatisfy { !isLetter($0) || ($0.isASCII ? ($0.value >= 0x41 && $0.value <= 0x5A) : $0.properties.isUppercase) }
            }
            let head = s[core.lowerBound]
            let isUpper = head.isASCII ? (head.value >= 0x41 && head.value <= 0x5A) : head.properties.isUppercase
            if isUpper, !sentenceStart {
                // "I", "I'm", "I'd" are not names.
                if head == "I", core.count == 1 || s[core.lowerBound + 1] == "'" || s[core.lowerBound + 1] == "’" { return false }
                return true
            }
            return false
        }

        // MARK: Output

        /// The styled text, and whether it ended on a capitalised word (for the next chunk).
        func render(afterCapital startingAfterCapital: Bool = false, seenInLowercase seen: inout Set<String>) -> (String, Bool) {
            var out = UTF8Buffer(capacity: s.count + 16)
            var index = 0
            var dropNextSpace = false
            // After a capitalised word a bare "I" is a numeral ("World War I", "Phase I trial",
            // "Type I error"), after a lowercase one the first person ("if I were you"); a word
            // that often leads the first person at a sentence's start ("Before I", "Can I") is not
            // such a capital.
            var afterCapital = startingAfterCapital
            // A lowercase voice lowercases a capitalised first word only when it is surely no
            // name: a common word, or one the text wrote in lowercase mid-sentence before it
            // ("Level 1 runs at once" after "at trust level 0"). A name is capitalised wherever
            // it stands.
            let collects = styler.capitalization == .lowercase && !styler.ownWords
            while index < pieces.count {
                let piece = pieces[index]
                switch piece.kind {
                case .verbatim:
                    out.append(contentsOf: s[piece.range])
                    dropNextSpace = false
                    // A name ("War"), not one followed by its own punctuation ("War,").
                    afterCapital = (s[piece.range].first.map { $0.properties.isUppercase } ?? false) && (s[piece.range].last.map(isLetter) ?? false)
                case .space:
                    if dropNextSpace { dropNextSpace = false } else { out.append(contentsOf: s[piece.range]) }
                case .removed:
                    // Drop the emoji and one space next to it.
                    if out.bytes.last == 0x20 { out.bytes.removeLast() } else { dropNextSpace = true }
                case .dash:
                    afterCapital = false
                    // "X — Y" and "X—Y" read "X, Y"; a dash with nothing before it on its line
                    // ("— Ada Lovelace") is dropped with the space after it.
                    while out.bytes.last == 0x20 { out.bytes.removeLast() }
                    if let last = out.bytes.last, last != 0x0A {
                        if !",;:.!?".utf8.contains(last) { out.bytes.append(0x2C) }
                        let next = index + 1 < pieces.count ? pieces[index + 1].kind : nil
                        if case .space? = next {} else if next != nil { out.bytes.append(0x20) }
                        dropNextSpace = false
                    } else {
                        dropNextSpace = true
                    }
                case .word(let lead, let core, let trail, let sentenceStart):
                    dropNextSpace = false
                    let wasAfterCapital = afterCapital
                    afterCapital = (s[core].first.map { $0.properties.isUppercase } ?? false) && trail.isEmpty && !ProseStyler.isFirstPersonI(s[core])
                    if afterCapital, sentenceStart, ProseStyler.leadsTheFirstPerson.contains(lowercasedWord(s[core])) { afterCapital = false }
                    if let match = styler.matcher.match(pieces: pieces, at: index, scalars: s) {
                        out.append(contentsOf: s[lead])
                        let replaced = styler.applyCase(match.replacement, like: match.cores.map { s[$0] }, sentenceStart: sentenceStart)
                        out.append(contentsOf: styler.capitalize(Array(replaced.unicodeScalars), sentenceStart: sentenceStart, replaced: true))
                        out.append(contentsOf: s[match.trail])
                        index = match.lastPiece + 1
                        continue
                    }
                    out.append(contentsOf: s[lead])
                    if sentenceStart, styler.capitalization != .asWritten {
                        let ordinary = styler.ownWords || (collects && seen.contains(lowercasedWord(s[core])))
                        out.append(contentsOf: styler.capitalize(Array(s[core]), sentenceStart: true, replaced: ordinary))
                    } else if styler.capitalization == .lowercase, ProseStyler.isFirstPersonI(s[core]), s[core].count > 1 || !wasAfterCapital {
                        // Inside a sentence: "I'm", "I'll" always; a bare "I" unless a capitalised
                        // word makes it a numeral.
                        out.append(contentsOf: Array(lowercasedWord(s[core]).unicodeScalars))
                    } else {
                        out.append(contentsOf: s[core])
                        if collects, !sentenceStart, s[core].first?.properties.isLowercase == true, seen.count < ProseStyler.seenInLowercaseLimit {
                            seen.insert(lowercasedWord(s[core]))
                        }
                    }
                    out.append(contentsOf: s[trail])
                }
                index += 1
            }
            return (out.string, afterCapital)
        }
    }

    // MARK: Case

    /// The replacement in the case of the words it replaces: ALL CAPS, Capitalised, or as written.
    func applyCase(_ replacement: String, like cores: [ArraySlice<Unicode.Scalar>], sentenceStart: Bool) -> String {
        var letters = 0
        var allUpper = true
        for core in cores {
            for c in core where isLetter(c) {
                letters += 1
                if !(c.isASCII ? (c.value >= 0x41 && c.value <= 0x5A) : c.properties.isUppercase) { allUpper = false }
            }
        }
        if letters > 1, allUpper { return replacement.uppercased() }
        if let first = cores.first?.first, first.isASCII ? (first.value >= 0x41 && first.value <= 0x5A) : first.properties.isUppercase {
            guard let head = replacement.unicodeScalars.first else { return replacement }
            return String(head).uppercased() + String(replacement.unicodeScalars.dropFirst())
        }
        return replacement
    }

    /// Words that often open a sentence just before the first person ("Before I", "Can I", "So I"):
    /// their capital is the sentence's, and the "I" after them no numeral.
    static let leadsTheFirstPerson: Set<String> = [
        "after", "also", "am", "and", "as", "because", "before", "but", "can", "could", "did", "do", "finally", "first",
        "here", "honestly", "how", "if", "maybe", "may", "might", "must", "next", "no", "now", "ok", "okay", "once", "perhaps",
        "shall", "should", "since", "so", "sometimes", "sorry", "then", "there", "though", "today", "unless", "until", "well",
        "what", "when", "where", "while", "who", "why", "will", "would", "yes", "yesterday",
    ]

    /// "I", "I'm", "I’ll": the first person, capitalised in English wherever it stands.
    static func isFirstPersonI(_ word: ArraySlice<Unicode.Scalar>) -> Bool {
        guard word.first == "I" else { return false }
        if word.count == 1 { return true }
        let second = word[word.startIndex + 1]
        return second == "'" || second == "’"
    }

    /// The capitalisation policy on one unprotected word.
    func capitalize(_ word: [Unicode.Scalar], sentenceStart: Bool, replaced: Bool) -> ArraySlice<Unicode.Scalar> {
        guard sentenceStart, let head = word.first else { return word[...] }
        switch capitalization {
        case .asWritten:
            return word[...]
        case .sentence:
            guard head.properties.isLowercase else { return word[...] }
            if !keptLowercase.isEmpty, keptLowercase.contains(lowercasedWord(word[...])) { return word[...] }
            return Array(String(head).uppercased().unicodeScalars + word.dropFirst())[...]
        case .lowercase:
            guard head.properties.isUppercase else { return word[...] }
            if word.count > 1, word.allSatisfy({ !$0.properties.isLowercase }) { return word[...] }  // an acronym
            // "I checked", "I'm": a lowercase voice writes "i checked", as its authors do. At a
            // sentence's start "I" is the first person (a numeral stands after a word: "World War I").
            if Self.isFirstPersonI(word[...]) { return Array(lowercasedWord(word[...]).unicodeScalars)[...] }
            // Only ordinary words: a capitalised first word could be a name.
            let lowered = String(String.UnicodeScalarView(word)).lowercased()
            guard replaced || CommonWords.english.contains(lowered) else { return word[...] }
            return Array(lowered.unicodeScalars)[...]
        }
    }
}

/// Matches vocabulary replacements (whole words and phrases, case-insensitive) at a word piece.
struct VocabularyMatcher: Sendable {
    struct Entry: Sendable {
        var words: [String]
        var replacement: String
    }

    /// First word (lowercased) → entries, longest phrase first.
    let entries: [String: [Entry]]
    let longestPhrase: Int
    /// Lowercased first scalars of the first words: a cheap test before lowercasing a word.
    let firstScalars: Set<UInt32>
    /// The same for ASCII, as a bitmap, and the lengths (up to 63) of the first words.
    let firstASCII: (UInt64, UInt64)
    let firstLengths: UInt64

    init(_ replacements: [VocabularyReplacement]) {
        var entries: [String: [Entry]] = [:]
        var longest = 0
        for replacement in replacements {
            let words = replacement.avoid.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let first = words.first else { continue }
            entries[first, default: []].append(Entry(words: words, replacement: replacement.prefer))
            longest = max(longest, words.count)
        }
        for key in entries.keys { entries[key]!.sort { $0.words.count > $1.words.count } }
        self.entries = entries
        longestPhrase = longest
        firstScalars = Set(entries.keys.compactMap { $0.unicodeScalars.first?.value })
        var low: UInt64 = 0, high: UInt64 = 0, lengths: UInt64 = 0
        for key in entries.keys {
            if let first = key.utf8.first, first < 0x80 {
                if first < 64 { low |= 1 << UInt64(first) } else { high |= 1 << UInt64(first - 64) }
            }
            lengths |= key.utf8.count < 63 ? 1 << UInt64(key.utf8.count) : 1 << 63
        }
        firstASCII = (low, high)
        firstLengths = lengths
    }

    var isEmpty: Bool { entries.isEmpty }

    /// False when no word of `text` starts an entry: the text can be left as it is.
    func mayMatch(_ text: String) -> Bool {
        guard !entries.isEmpty else { return false }
        var text = text
        return text.withUTF8 { bytes -> Bool in
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                if byte >= 0x80 { return true }  // non-ASCII: let the full pass decide
                guard (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A else { index += 1; continue }
                // A word starts here.
                let start = index
                let lower = byte | 0x20
                let candidate = lower < 64 ? (firstASCII.0 >> UInt64(lower)) & 1 == 1 : (firstASCII.1 >> UInt64(lower - 64)) & 1 == 1
                index += 1
                while index < count {
                    let b = bytes[index]
                    if b >= 0x80 { return true }
                    let letter = (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A
                    if !(letter || b == 0x27 || b == 0x2D || (b >= 0x30 && b <= 0x39)) { break }
                    index += 1
                }
                let length = index - start
                guard candidate, (firstLengths >> UInt64(min(length, 63))) & 1 == 1 else { continue }
                var word = [UInt8](repeating: 0, count: length)
                for k in 0..<length {
                    let b = bytes[start + k]
                    word[k] = (b >= 0x41 && b <= 0x5A) ? b + 32 : b
                }
                if entries[String(decoding: word, as: UTF8.self)] != nil { return true }
            }
            return false
        }
    }

    struct Match {
        var replacement: String
        var cores: [Range<Int>]
        var trail: Range<Int>
        var lastPiece: Int
    }

    func match(pieces: [ProseStyler.Piece], at index: Int, scalars s: [Unicode.Scalar]) -> Match? {
        guard !entries.isEmpty, case .word(_, let core, let trail, _) = pieces[index].kind else { return nil }
        let head = s[core.lowerBound]
        let headLower = head.value >= 0x41 && head.value <= 0x5A ? head.value + 32 : head.value
        guard head.value > 0x7F || firstScalars.contains(headLower) else { return nil }
        guard let candidates = entries[lowered(s[core])] else { return nil }
        for entry in candidates {
            if entry.words.count == 1 { return Match(replacement: entry.replacement, cores: [core], trail: trail, lastPiece: index) }
            // Phrase: following words separated by plain spaces, no punctuation between.
            guard trail.isEmpty else { continue }
            var cores = [core]
            var position = index
            var lastTrail = trail
            var ok = true
            for word in entry.words.dropFirst() {
                guard position + 2 < pieces.count, case .space = pieces[position + 1].kind,
                      !s[pieces[position + 1].range].contains("\n"),
                      case .word(let lead, let nextCore, let nextTrail, _) = pieces[position + 2].kind,
                      lead.isEmpty, lowered(s[nextCore]) == word else { ok = false; break }
                if !lastTrail.isEmpty { ok = false; break }
                cores.append(nextCore)
                lastTrail = nextTrail
                position += 2
            }
            if ok { return Match(replacement: entry.replacement, cores: cores, trail: lastTrail, lastPiece: position) }
        }
        return nil
    }

    private func lowered(_ word: ArraySlice<Unicode.Scalar>) -> String { lowercasedWord(word) }
}

/// A word in lowercase; ASCII words without going through Unicode case mapping.
func lowercasedWord(_ word: ArraySlice<Unicode.Scalar>) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(word.count)
    for c in word {
        guard c.value < 0x80 else { return String(String.UnicodeScalarView(word)).lowercased() }
        let v = UInt8(c.value)
        bytes.append(v >= 0x41 && v <= 0x5A ? v + 32 : v)
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Output as UTF-8 bytes: appending scalars to a `String.UnicodeScalarView` one slice at a
/// time goes through generic code and dominated render time.
struct UTF8Buffer {
    var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity * 2)
    }

    @inline(__always) mutating func append(_ scalar: Unicode.Scalar) {
        let v = scalar.value
        if v < 0x80 {
            bytes.append(UInt8(v))
        } else if v < 0x800 {
            bytes.append(UInt8(0xC0 | (v >> 6)))
            bytes.append(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            bytes.append(UInt8(0xE0 | (v >> 12)))
            bytes.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (v & 0x3F)))
        } else {
            bytes.append(UInt8(0xF0 | (v >> 18)))
            bytes.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            bytes.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    @inline(__always) mutating func append(contentsOf scalars: ArraySlice<Unicode.Scalar>) {
        for scalar in scalars { append(scalar) }
    }

    @inline(__always) mutating func append(contentsOf scalars: [Unicode.Scalar]) {
        for scalar in scalars { append(scalar) }
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }
}

@inline(__always) func isSpace(_ c: Unicode.Scalar) -> Bool {
    c == " " || c == "\n" || c == "\t" || c == "\r" || (c.value > 0x7F && c.properties.isWhitespace)
}

@inline(__always) func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }

@inline(__always) func isLetter(_ c: Unicode.Scalar) -> Bool {
    c.isASCII ? ((c.value | 0x20) >= 0x61 && (c.value | 0x20) <= 0x7A) : c.properties.isAlphabetic
}

@inline(__always) func isWordScalar(_ c: Unicode.Scalar) -> Bool { isLetter(c) || isDigit(c) }

enum URLPrefixes {
    static let all: [[Unicode.Scalar]] = ["http://", "https://", "ftp://", "www.", "mailto:"].map { Array($0.unicodeScalars) }
}

func isEmojiModifier(_ c: Unicode.Scalar) -> Bool {
    c.value == 0xFE0F || c.value == 0x200D || (0x1F3FB...0x1F3FF).contains(c.value) || c.value == 0x20E3
}

@inline(__always) func isLeadPunctuation(_ c: Unicode.Scalar) -> Bool {
    switch c {
    case "(", "*", "_", "¿", "¡", "«": true
    default: false
    }
}

@inline(__always) func isTrailPunctuation(_ c: Unicode.Scalar) -> Bool {
    switch c {
    case ".", ",", ";", ":", "!", "?", ")", "*", "_", "…", "»", "\"", "”", "’", "'": true
    default: false
    }
}

/// Closing quotes and brackets that may follow a sentence's final punctuation.
@inline(__always) func isCloser(_ c: Unicode.Scalar) -> Bool {
    switch c {
    case "\"", "'", "”", "’", ")", "]", "»": true
    default: false
    }
}

/// Ordinary English words that may start a sentence; a lowercase soul lowercases these and
/// leaves any other capitalised first word alone (it could be a name).
enum CommonWords {
    static let english: Set<String> = [
        "a", "an", "the", "this", "that", "these", "those", "it", "its", "it's", "there", "here", "they", "we", "you",
        "hello", "hi", "hey", "goodbye", "bye", "thanks", "welcome", "sorry",
        "he", "she", "my", "your", "our", "their", "his", "her", "and", "but", "or", "so", "yet", "if", "when", "while",
        "because", "since", "although", "though", "as", "at", "by", "for", "from", "in", "into", "of", "on", "to", "with",
        "without", "about", "after", "before", "over", "under", "between", "no", "not", "yes", "all", "some", "most",
        "many", "few", "each", "every", "both", "either", "neither", "one", "two", "three", "first", "then", "also",
        "still", "just", "only", "even", "now", "today", "best", "more", "less", "what", "which", "who", "why", "how",
        "where", "is", "are", "was", "were", "be", "been", "has", "have", "had", "do", "does", "did", "can", "could",
        "will", "would", "should", "may", "might", "must", "let", "let's", "please", "try", "see", "note", "looks",
        "seems", "sure", "okay", "ok", "well", "done", "good", "great", "here's", "there's", "that's", "what's",
        "don't", "doesn't", "can't", "won't", "isn't", "aren't", "didn't", "want", "ask", "sources", "probably",
        "likely", "maybe", "perhaps", "partial", "mixed", "heads-up", "tip", "next", "you'd", "you'll", "we'll",
        "i'll", "i'm", "i've", "i'd", "treat", "looking", "one", "nothing", "something", "everything", "answer",
        "evidence", "result", "results", "found", "keep", "consider", "break", "narrow", "run", "use", "check",
        "read", "call", "take", "make", "get", "go", "open", "close", "start", "stop", "add", "remove", "set", "install",
        "update", "fix", "build", "test", "ship", "deploy", "price", "prices", "cost", "costs", "time", "day", "days",
        "tomorrow", "yesterday", "tonight", "none", "any", "other", "another", "such", "much", "very", "too", "almost",
        "about", "around", "roughly", "nearly", "only", "once", "twice", "again", "instead", "otherwise", "however",
        "therefore", "thus", "meanwhile", "finally", "overall", "also", "besides", "plus", "unfortunately", "luckily",
        "good", "bad", "new", "old", "big", "small", "same", "different", "several", "each", "every", "nobody",
        "someone", "anyone", "everyone", "people", "trains", "train", "flights", "flight", "tickets", "ticket", "data",
        "sources", "source", "findings", "finding", "suppliers", "supplier", "summary", "step", "steps", "first",
        "second", "third", "last", "next", "previous", "earlier", "later", "soon", "already", "still", "yet",
        "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty", "fifty", "hundred",
        "hundreds", "thousand", "thousands", "half", "dozens", "zero",
        // Verbs that open an instruction ("Name the part you care about", "Water the plants").
        "name", "water", "pick", "choose", "write", "send", "save", "give", "tell", "show", "list", "turn", "put",
        "find", "wait", "leave", "pay", "buy", "compare", "follow", "share", "copy", "move", "switch", "restart",
        "click", "press", "select", "avoid", "skip", "remember", "look", "describe", "explain", "tap", "plan",
    ]
}
