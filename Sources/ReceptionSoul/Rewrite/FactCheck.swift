/// Whether a rewrite kept the facts of the text it rewrote: every fact of the original
/// appears in the rewrite unchanged, and the rewrite brings no fact of its own.
///
/// Names are looked up as words of the other text rather than as extracted names, because
/// whether a capitalised word is a name depends on where it stands ("Kyoto is lovely" vs
/// "go to Kyoto"): a name of the original must appear in the rewrite as the same words,
/// and a name in the rewrite must appear somewhere in the original.
public struct FactCheck: Sendable, Hashable {
    /// Facts of the original that the rewrite lost or changed.
    public var missing: [Fact]
    /// Facts of the rewrite that the original does not have.
    public var added: [Fact]

    public var passed: Bool { missing.isEmpty && added.isEmpty }

    public init(missing: [Fact] = [], added: [Fact] = []) {
        self.missing = missing
        self.added = added
    }

    /// `allowedNames`: names the rewrite may bring although the original lacks them (the
    /// persona's own name and signature words), compared as whole names.
    public static func compare(original: String, rewrite: String, allowedNames: Set<String> = []) -> FactCheck {
        let originalFacts = FactExtractor.facts(in: original)
        let rewriteFacts = FactExtractor.facts(in: rewrite)
        let originalKeys = Set(originalFacts.map(\.key)), rewriteKeys = Set(rewriteFacts.map(\.key))
        let originalWords = WordSequences(original), rewriteWords = WordSequences(rewrite)
        var check = FactCheck()
        var reported = Set<String>()
        for fact in originalFacts where reported.insert("-" + fact.key).inserted {
            let kept = fact.kind == .name ? rewriteWords.contains(fact.text) : rewriteKeys.contains(fact.key)
            if !kept { check.missing.append(fact) }
        }
        for fact in rewriteFacts where reported.insert("+" + fact.key).inserted {
            let known = fact.kind == .name ? originalWords.contains(fact.text) || allowedNames.contains(fact.text) : originalKeys.contains(fact.key)
            if !known { check.added.append(fact) }
        }
        return check
    }

    /// In words, for `/soul why`: "it lost the number 9:15; it added the number 0:15".
    public var reason: String {
        var parts: [String] = []
        if !missing.isEmpty { parts.append("it lost or changed " + Self.list(missing)) }
        if !added.isEmpty { parts.append("it added " + Self.list(added)) }
        return parts.isEmpty ? "every fact survived" : parts.joined(separator: "; ")
    }

    static func list(_ facts: [Fact]) -> String {
        let shown = facts.prefix(5).map(\.description)
        let more = facts.count > 5 ? " and \(facts.count - 5) more" : ""
        return shown.count <= 1 ? (shown.first ?? "") + more
            : shown.dropLast().joined(separator: ", ") + " and " + shown.last! + more
    }
}

/// Every run of up to six consecutive words of a text, to look names up in it.
struct WordSequences {
    static let longest = 6
    static let maximumWords = FactExtractor.maximumCharacters
    private var sequences = Set<String>()

    init(_ text: String) {
        // Split into words exactly as the extractor does: code and links are no words, and a
        // word that touches one ends where it begins.
        var scan = FactScan(text)
        scan.findCode()
        scan.findAddresses()
        let tokens = FactTokenizer.tokens(scan.characters, hidden: scan.hidden)
        var run: [String] = []
        for token in tokens.prefix(Self.maximumWords) {
            guard token.kind == .word || token.kind == .number || token.kind == .mark("&") else { run = []; continue }
            let word = FactScan.withoutPossessive(String(scan.characters[token.range]))
            // As names join words: with a space between, or after a word that ends in a hyphen.
            if !token.spaceBefore, !(run.last?.hasSuffix("-") ?? false) { run = [] }
            run.append(word)
            if run.count > Self.longest { run.removeFirst() }
            for start in run.indices { sequences.insert(run[start...].joined(separator: " ")) }
        }
    }

    func contains(_ words: String) -> Bool { sequences.contains(words) }

    var all: Set<String> { sequences }
}
