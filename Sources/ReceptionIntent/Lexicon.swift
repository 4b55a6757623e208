import Foundation
import ReceptionCore

/// The human-readable cue lexicon: rewrites (contractions, slang, typos of cue words),
/// word classes used by the structural and time features, and cue families.
///
/// Format (plain UTF-8 text, `#` starts a comment):
///
/// ```
/// @rewrite
/// whats = what is          # one rewrite per line: word = replacement words
/// shoud = should
/// @class weekday           # single words, separated by spaces
/// monday mon tuesday tue
/// @cue choice              # phrases, one per line or separated by " | "
/// should i | should we
/// which one
/// ```
///
/// Cue families are label-neutral: the weights file says how much each family (and each
/// phrase of it) pushes each label, so a phrase added to an existing family is used at
/// once with the family's learned weight. Classes named in `Lexicon.requiredClasses`
/// drive the built-in structural and time features.
public struct Lexicon: Sendable, Hashable {
    public struct Rewrite: Sendable, Hashable {
        public var word: String
        public var replacement: [String]
    }
    public struct Family: Sendable, Hashable {
        public var name: String
        public var phrases: [String]
    }

    public var rewrites: [Rewrite] = []
    /// Class name → member words, in file order.
    public var classes: [(name: String, words: [String])] = []
    public var families: [Family] = []

    public static func == (lhs: Lexicon, rhs: Lexicon) -> Bool {
        lhs.rewrites == rhs.rewrites && lhs.families == rhs.families
            && lhs.classes.map(\.name) == rhs.classes.map(\.name) && lhs.classes.map(\.words) == rhs.classes.map(\.words)
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rewrites)
        hasher.combine(families)
        for entry in classes { hasher.combine(entry.name); hasher.combine(entry.words) }
    }

    /// Classes the built-in structural and time features read.
    public static let requiredClasses = [
        "negator", "first-person", "opener", "imperative-verb", "request-prefix", "tag-word",
        "number-word", "unit-minute", "unit-hour", "unit-day", "unit-week", "clock-suffix", "ordinal-suffix",
        "weekday", "month", "month-ambiguous", "month-preposition", "be-verb", "or-word", "or-tail",
        "wh-word", "aux-verb", "request-modal", "addressee", "next-word", "in-word", "just-word", "ago-word", "clock-preposition", "clock-follow",
        "chat-ending",
    ]

    public init() {}

    /// A fingerprint of the lexicon's content (not of its file's comments or layout): a weights
    /// file records the one it was trained with, so weights are never used with a lexicon whose
    /// features they were not fitted to.
    public var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String) { for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 } }
        for rewrite in rewrites { mix("r \(rewrite.word)=\(rewrite.replacement.joined(separator: " "))\n") }
        for entry in classes { mix("c \(entry.name):\(entry.words.joined(separator: " "))\n") }
        for family in families { mix("f \(family.name):\(family.phrases.joined(separator: "|"))\n") }
        return String(hash, radix: 16)
    }

    /// Parses lexicon text; `source` names the file in error messages.
    /// Limits of the compiled tables (16-bit fields), checked here so a huge user lexicon
    /// gets a located error rather than a trap.
    static let maximumRewrites = 30_000
    static let maximumOpeners = 30_000
    /// The trie keeps a phrase's entries in 24 bits, and a node's count in 8: a phrase in more
    /// families than this (with its other spellings) could not fit.
    static let maximumPhrases = 1_000_000
    static let maximumFamiliesPerPhrase = 32

    public init(text: String, source: String = "lexicon") throws {
        enum Section { case none, rewrite, wordClass(Int), cue(Int) }
        var section = Section.none
        var familyIndex: [String: Int] = [:]
        var classIndex: [String: Int] = [:]
        var phraseCount = 0
        var phraseFamilies: [String: Set<Int>] = [:]
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            // Phrases become feature names, which `classify --features` and the explanations
            // print: a control character in one would reach the terminal as an escape sequence.
            if let control = rawLine.unicodeScalars.first(where: { $0.properties.generalCategory == .control && $0 != "\t" && $0 != "\r" }) {
                throw LexiconError(source: source, line: lineNumber,
                                   message: "control character U+\(String(format: "%04X", control.value)) (a lexicon is plain text)")
            }
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingHorizontalWhitespace
            if trimmed.isEmpty { continue }
            if trimmed.hasPrefix("@") {
                let parts = trimmed.dropFirst().split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                switch parts.first {
                case "rewrite" where parts.count == 1:
                    section = .rewrite
                case "class" where parts.count == 2:
                    let name = parts[1]
                    if let index = classIndex[name] { section = .wordClass(index) } else {
                        classIndex[name] = classes.count
                        section = .wordClass(classes.count)
                        classes.append((name, []))
                    }
                case "cue" where parts.count == 2:
                    let name = parts[1]
                    guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                        throw LexiconError(source: source, line: lineNumber, message: "a cue family name is letters, digits, '-' or '_': \(name)")
                    }
                    if let index = familyIndex[name] { section = .cue(index) } else {
                        familyIndex[name] = families.count
                        section = .cue(families.count)
                        families.append(Family(name: name, phrases: []))
                    }
                default:
                    throw LexiconError(source: source, line: lineNumber,
                                       message: "unknown section header '\(trimmed)' (expected '@rewrite', '@class NAME' or '@cue NAME')")
                }
                continue
            }
            switch section {
            case .none:
                throw LexiconError(source: source, line: lineNumber, message: "text before any '@rewrite', '@class' or '@cue' header")
            case .rewrite:
                let sides = trimmed.split(separator: "=", maxSplits: 1).map(\.trimmingHorizontalWhitespace)
                guard sides.count == 2, !sides[0].isEmpty, !sides[0].contains(" ") else {
                    throw LexiconError(source: source, line: lineNumber, message: "a rewrite is 'word = replacement words'")
                }
                // The classifier keeps a rewrite's index, and an opener's feature id, in 16 bits.
                guard rewrites.count < Self.maximumRewrites else {
                    throw LexiconError(source: source, line: lineNumber, message: "more than \(Self.maximumRewrites) rewrites")
                }
                rewrites.append(Rewrite(word: sides[0].lowercased(),
                                        replacement: sides[1].lowercased().split(separator: " ").map(String.init)))
            case .wordClass(let index):
                classes[index].words += trimmed.lowercased().split(separator: " ").map(String.init)
                if classes[index].name == "opener" && classes[index].words.count > Self.maximumOpeners {
                    throw LexiconError(source: source, line: lineNumber, message: "more than \(Self.maximumOpeners) opener words")
                }
            case .cue(let index):
                for phrase in trimmed.components(separatedBy: "|") {
                    let phrase = phrase.trimmingHorizontalWhitespace.lowercased()
                    if phrase.isEmpty {
                        throw LexiconError(source: source, line: lineNumber, message: "empty phrase")
                    }
                    phraseCount += 1
                    guard phraseCount <= Self.maximumPhrases else {
                        throw LexiconError(source: source, line: lineNumber, message: "more than \(Self.maximumPhrases) phrases")
                    }
                    phraseFamilies[phrase, default: []].insert(index)
                    guard phraseFamilies[phrase]!.count <= Self.maximumFamiliesPerPhrase else {
                        throw LexiconError(source: source, line: lineNumber,
                                           message: "'\(phrase)' is in more than \(Self.maximumFamiliesPerPhrase) cue families")
                    }
                    families[index].phrases.append(phrase)
                }
            }
        }
    }

    public init(contentsOf url: URL) throws {
        let text: String
        do { text = try PlainFile.readText(url.path) } catch {
            // Plain words ("no such file", "is a directory"), as for the weights.
            throw LexiconError(source: url.path, line: 0, message: "cannot read the lexicon: \((error as? PlainFile.Problem)?.reason ?? PlainFile.reason(of: error))")
        }
        try self.init(text: text, source: url.path)
    }

    /// The lexicon shipped with Reception.
    public static let shipped: Lexicon = {
        do { return try Lexicon(text: ShippedModel.lexicon, source: "built-in lexicon") } catch {
            preconditionFailure("the built-in lexicon does not parse: \(error)")
        }
    }()

    public func words(of className: String) -> [String] {
        classes.first { $0.name == className }?.words ?? []
    }
}

/// A problem in a lexicon or weights file, with its location.
public struct LexiconError: Error, CustomStringConvertible, Sendable, Equatable {
    public var source: String
    public var line: Int
    public var message: String
    /// The column on `line` (1-based), where the reader knows it; 0 when it does not.
    public var column: Int = 0

    /// The message may quote the file (a weights file's feature name): cleaned of escape sequences.
    public var description: String {
        let place = line > 0 ? (column > 0 ? ":\(line):\(column)" : ":\(line)") : ""
        return TerminalText.clean("\(source)\(place): \(message)", singleLine: true)
    }
}
