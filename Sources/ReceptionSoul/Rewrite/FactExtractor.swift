/// Finds the facts of a text (`Fact`): pure, deterministic and linear in the text's length,
/// with no regular expressions, so hostile text (a megabyte of backticks, unclosed quotes,
/// one endless number) costs little. Only the first `maximumCharacters` are read.
///
/// Order of the passes, each hiding what it found from the later ones: code spans (their
/// insides are code, not numbers or names), links and e-mail addresses, quoted text (for
/// names only: a quote is checked whole), then dates, prices and numbers, then names.
public enum FactExtractor {
    public static let maximumCharacters = 20_000
    public static let maximumFacts = 400

    public static func facts(in text: String) -> [Fact] {
        var scan = FactScan(text)
        scan.findCode()
        scan.findAddresses()
        scan.findQuotes()
        let tokens = FactTokenizer.tokens(scan.characters, hidden: scan.hidden)
        var consumed = [Bool](repeating: false, count: tokens.count)
        scan.findDatesPricesAndNumbers(tokens, consumed: &consumed)
        scan.findNames(tokens, consumed: consumed)
        return scan.found.sorted { $0.position < $1.position }.prefix(maximumFacts).map(\.fact)
    }
}

/// The state of one extraction: the characters, what earlier passes hid, what was found.
struct FactScan {
    let characters: [Character]
    /// Inside code or a link: no later pass looks there.
    var hidden: [Bool]
    /// Inside quoted text: names are not looked for there.
    var quoted: [Bool]
    var found: [(position: Int, fact: Fact)] = []

    init(_ text: String) {
        characters = Array(text.prefix(FactExtractor.maximumCharacters))
        hidden = [Bool](repeating: false, count: characters.count)
        quoted = hidden
    }

    var count: Int { characters.count }

    mutating func add(_ kind: Fact.Kind, _ range: Range<Int>, key: String? = nil, text: String? = nil) {
        guard found.count < FactExtractor.maximumFacts * 2 else { return }
        let written = text ?? String(characters[range])
        found.append((range.lowerBound, Fact(kind: kind, text: written, key: kind.keyPrefix + (key ?? written))))
    }

    mutating func hide(_ range: Range<Int>) {
        for index in range { hidden[index] = true }
    }

    // MARK: Code

    /// Backtick spans, inline or fenced: a run of N backticks up to the next run of exactly N.
    /// The runs are listed once and each is paired through a table of the next run of the
    /// same length, so unmatched runs cost nothing more.
    mutating func findCode() {
        var runs: [(start: Int, length: Int)] = []
        var index = 0
        while index < count {
            guard characters[index] == "`" else { index += 1; continue }
            let start = index
            while index < count, characters[index] == "`" { index += 1 }
            runs.append((start, index - start))
        }
        guard runs.count >= 2 else { return }
        var nextOfSameLength = [Int](repeating: -1, count: runs.count)
        var lastSeen: [Int: Int] = [:]
        for run in runs.indices.reversed() {
            nextOfSameLength[run] = lastSeen[runs[run].length] ?? -1
            lastSeen[runs[run].length] = run
        }
        var run = 0
        while run < runs.count {
            let partner = nextOfSameLength[run]
            guard partner >= 0 else { run += 1; continue }
            let open = runs[run], close = runs[partner]
            let inside = String(characters[(open.start + open.length)..<close.start]).trimmedWhitespace
            if !inside.isEmpty { add(.code, open.start..<(close.start + close.length), key: inside, text: inside) }
            hide(open.start..<(close.start + close.length))
            run = partner + 1
        }
    }

    // MARK: Links and addresses

    mutating func findAddresses() {
        var index = 0
        while index < count {
            if hidden[index] { index += 1; continue }
            if let end = urlEnd(from: index) {
                add(.url, index..<end)
                hide(index..<end)
                index = end
                continue
            }
            if characters[index] == "@", let range = emailRange(at: index) {
                add(.email, range)
                hide(range)
                index = range.upperBound
                continue
            }
            index += 1
        }
    }

    private func startsWith(_ prefix: String, at index: Int) -> Bool {
        var position = index
        for character in prefix {
            guard position < count, characters[position].lowercased() == String(character) else { return false }
            position += 1
        }
        return true
    }

    /// The end of a link starting here (`http://`, `https://`, `ftp://`, `www.`), without
    /// the sentence's punctuation after it or a closing bracket it did not open.
    private func urlEnd(from index: Int) -> Int? {
        let first = characters[index]
        guard first == "h" || first == "H" || first == "f" || first == "F" || first == "w" || first == "W" else { return nil }
        if index > 0, characters[index - 1].isLetter || characters[index - 1].isNumber { return nil }
        let prefixLength: Int
        if startsWith("https://", at: index) { prefixLength = 8 }
        else if startsWith("http://", at: index) { prefixLength = 7 }
        else if startsWith("ftp://", at: index) { prefixLength = 6 }
        else if startsWith("www.", at: index) { prefixLength = 4 }
        else { return nil }
        var end = index + prefixLength
        while end < count, !hidden[end], !Self.endsURL(characters[end]) { end += 1 }
        while end > index + prefixLength, ".,;:!?'*_".contains(characters[end - 1]) { end -= 1 }
        // A closing bracket belongs to the link only when the link opened one. The brackets
        // are counted once; each one cut off takes its count along.
        var round = 0, square = 0
        for position in index..<end {
            switch characters[position] {
            case "(": round += 1
            case ")": round -= 1
            case "[": square += 1
            case "]": square -= 1
            default: break
            }
        }
        while end > index + prefixLength {
            let last = characters[end - 1]
            if last == ")", round < 0 { round += 1 } else if last == "]", square < 0 { square += 1 }
            else if ".,;:!?'*_".contains(last) {} else { break }
            end -= 1
        }
        return end > index + prefixLength ? end : nil
    }

    static func endsURL(_ character: Character) -> Bool {
        character.isWhitespace || "<>\"“”‘’`«»「」|".contains(character)
    }

    private func emailRange(at: Int) -> Range<Int>? {
        func local(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber || "._%+-".contains(c)) }
        func domain(_ c: Character) -> Bool { c.isASCII && (c.isLetter || c.isNumber || c == "." || c == "-") }
        var start = at
        while start > 0, at - start < 64, !hidden[start - 1], local(characters[start - 1]) { start -= 1 }
        while start < at, characters[start] == "." { start += 1 }
        var end = at + 1
        while end < count, end - at < 254, !hidden[end], domain(characters[end]) { end += 1 }
        while end > at + 1, characters[end - 1] == "." || characters[end - 1] == "-" { end -= 1 }
        guard start < at, end > at + 1 else { return nil }
        let domainPart = characters[(at + 1)..<end]
        guard let dot = domainPart.lastIndex(of: "."), dot > at + 1, dot < end - 1 else { return nil }
        return start..<end
    }

    // MARK: Quotes

    static let quotePairs: [Character: [Character]] = [
        "\"": ["\""], "“": ["”"], "„": ["“", "”"], "«": ["»"], "‹": ["›"], "「": ["」"], "『": ["』"], "‘": ["’"],
    ]
    /// A quote longer than this is taken for an unclosed quotation mark.
    static let maximumQuote = 600

    /// Quoted text. Each opening mark looks ahead for its closing mark (not past a blank
    /// line, at most `maximumQuote` characters); how far each kind of mark is known to have
    /// no closing mark is remembered, so unclosed marks do not make the pass quadratic.
    mutating func findQuotes() {
        var knownOpenUntil: [Character: Int] = [:]
        var index = 0
        while index < count {
            let opener = characters[index]
            guard !hidden[index], let closers = Self.quotePairs[opener] else { index += 1; continue }
            if opener == "\"" || opener == "‘", index > 0 {
                // A straight or single mark opens only after a space or an opening bracket
                // (5'11", it’s, rock ‘n’ roll are not quotations).
                let before = characters[index - 1]
                guard before.isWhitespace || "([{—–-:/".contains(before) else { index += 1; continue }
            }
            var position = max(index + 1, knownOpenUntil[opener] ?? 0)
            let limit = min(count, index + 1 + Self.maximumQuote)
            var close: Int?
            var blockedAt: Int?
            while position < limit {
                let character = characters[position]
                if character == "\n", position + 1 < count, characters[position + 1] == "\n" { blockedAt = position; break }
                if closers.contains(character), !hidden[position] {
                    let after = position + 1 < count ? characters[position + 1] : " "
                    if character != "’" || !after.isLetter { close = position; break }
                }
                position += 1
            }
            guard let close else {
                knownOpenUntil[opener] = blockedAt ?? position
                index += 1
                continue
            }
            let inside = String(characters[(index + 1)..<close]).trimmedWhitespace
            // One letter in single marks is a contraction ("rock ‘n’ roll"), not a quote.
            if !inside.isEmpty, inside.contains(where: { $0.isLetter || $0.isNumber }), opener != "‘" || inside.count > 1 {
                add(.quote, index..<(close + 1), key: inside, text: inside)
                for position in index...close { quoted[position] = true }
            }
            index = close + 1
        }
    }
}

extension Fact.Kind {
    /// Keys of different kinds never meet: a number 40 is not the price $40.
    var keyPrefix: String {
        switch self {
        case .number: "n:"
        case .date: "d:"
        case .price: "p:"
        case .url: "u:"
        case .email: "e:"
        case .code: "c:"
        case .quote: "q:"
        case .name: "w:"
        }
    }
}
