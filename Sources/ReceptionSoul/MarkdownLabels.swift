/// The labels of a soul file: lines such as `**Never uses:**` or `- **Avoid:**` that introduce
/// the list after them the way a heading would, found as a block structure before anything is
/// read from the lines. A list under a label is then a shape the reader sees (each list item
/// knows the label over it), not a pattern guessed line by line: a persona whose file says it
/// "never uses" a word is never told to use it.
///
/// The scope of a label, as a person reads it:
/// - a label on a line of its own covers the list items that follow, however they are
///   indented, until a paragraph at its own indentation, another such label, or a heading;
/// - a label that is itself a list item (`- **Never uses:**`) covers the items nested under it,
///   until a line indented no deeper than it.
/// A blank line ends nothing: lists in the wild put blank lines between items.
struct MarkdownLabels {
    struct Label: Equatable {
        /// The label's words, without emphasis, list marker or colon ("Never uses").
        var text: String
        var line: Int
        var polarity: MarkdownSoulReader.Polarity
        /// The label speaks of words ("Phrases he says", "Banned slang", "Never says"), so its
        /// items are words or phrases rather than things the persona does.
        var namesWords: Bool
        /// The label speaks of using ("Never uses"): its quoted items are words, the others may
        /// be habits ("Never uses: exclamation marks").
        var namesUse: Bool
    }

    /// For each line index: the nearest label with a polarity over it, if any.
    private(set) var governing: [Label?]
    /// The indices of label lines themselves (they are not items of their list).
    private(set) var labelLines: Set<Int> = []

    /// `skipped`: lines that are not the persona's text (fenced code, comments, placeholders).
    init(lines: [Substring], headings: Set<Int>, skipped: (Int) -> Bool) {
        governing = [Label?](repeating: nil, count: lines.count)
        var stack: [(label: Label, indent: Int, isItem: Bool)] = []
        for (index, line) in lines.enumerated() {
            if headings.contains(index) { stack.removeAll(); continue }
            if skipped(index) { continue }
            let trimmed = line.trimmedSpaces
            if trimmed.isEmpty { continue }
            let indent = Self.indentation(line)
            let isItem = MarkdownSoulReader.isListItem(trimmed)
            // Close the labels this line is outside of.
            while let top = stack.last, top.isItem ? indent <= top.indent : (!isItem && indent <= top.indent) {
                stack.removeLast()
            }
            if isItem { governing[index] = stack.last(where: { $0.label.polarity != .none })?.label }
            if let text = Self.labelText(trimmed) {
                let label = Label(text: text, line: index, polarity: Self.polarity(ofLabel: text), namesWords: Self.namesWords(text),
                                  namesUse: Self.namesUse(text))
                labelLines.insert(index)
                stack.append((label, indent, isItem))
            }
        }
    }

    /// Leading spaces, a tab counting as four.
    static func indentation(_ line: Substring) -> Int {
        var width = 0
        for character in line {
            if character == " " { width += 1 } else if character == "\t" { width += 4 } else { break }
        }
        return width
    }

    /// The words of a line that is only a label: `**Never uses:**`, `**Never uses**:`,
    /// `__Avoid:__`, `- **Words he says:**`, or a short plain line ending in a colon
    /// (`Never uses:`); nil for anything else, and for a label with its value after it
    /// (`**Tone:** dry`).
    static func labelText(_ trimmed: String) -> String? {
        var text = Substring(trimmed)
        if let marker = MarkdownSoulReader.listMarkerLength(text) { text = text.dropFirst(marker).drop { $0 == " " } }
        guard text.count <= 80, text.hasSuffix(":") || text.hasSuffix("：") || text.hasSuffix(":**") || text.hasSuffix(":__")
                || text.hasSuffix("**:") || text.hasSuffix("__:") else { return nil }
        let emphasised = text.hasPrefix("**") || text.hasPrefix("__")
        var words = MarkdownSoulReader.plainText(String(text)).trimmedSpaces
        guard words.hasSuffix(":") || words.hasSuffix("：") else { return nil }
        words.removeLast()
        words = words.trimmedSpaces
        // One label, not a sentence that happens to end in a colon ("Here is how I talk to the
        // people I work with every day:"), nor "key: value: …".
        guard !words.isEmpty, !words.contains(":"), words.split(separator: " ").count <= (emphasised ? 8 : 5) else { return nil }
        return words
    }

    static func polarity(ofLabel text: String) -> MarkdownSoulReader.Polarity {
        if MarkdownSoulReader.headingPolarity(text) == .avoid { return .avoid }
        // "No filler:", "Sem bajulação:", "Without jargon:": a label that opens with a negation.
        let first = text.lowercased().split { !$0.isLetter }.first.map(String.init) ?? ""
        if ["no", "never", "without", "sem", "nunca", "não", "sin", "sans", "ohne", "kein", "keine"].contains(first) { return .avoid }
        return MarkdownSoulReader.polarity(of: MarkdownSoulReader.withoutMannerClauses(text))
    }

    static func namesWords(_ text: String) -> Bool {
        let words = Set(text.lowercased().split { !$0.isLetter }.map(String.init))
        let speech: Set<String> = ["say", "says", "said", "word", "words", "phrase", "phrases", "vocabulary", "lexicon",
                                   "slang", "term", "terms", "expression", "expressions", "jargon", "buzzword", "buzzwords",
                                   "palavras", "expressões", "gírias", "vocabulário", "wörter", "mots", "palabras", "sagt", "dit", "dice", "diz"]
        return !words.isDisjoint(with: speech)
    }

    static func namesUse(_ text: String) -> Bool {
        let words = Set(text.lowercased().split { !$0.isLetter }.map(String.init))
        return !words.isDisjoint(with: ["use", "uses", "used", "usa", "usar", "verwendet", "utilise", "utilize", "utilizes"])
    }
}
