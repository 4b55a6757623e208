/// Text placed into a Markdown document that Reception writes (`/save`, `logs export`), so
/// that what a person typed or an answer said cannot pass for the document's own structure: a
/// message "## Reception · complete" was a second, forged answer heading.
public enum MarkdownLiteral {
    /// The length of the list marker `text` (its indent dropped) opens with: "- ", "* ", "+ ",
    /// "• ", or one to three digits and "." or ")" and a space ("12. "); nil for none. One reading
    /// of a list item for the soul reader and the local backend's passages.
    public static func listMarkerLength(_ text: Substring) -> Int? {
        guard let first = text.first else { return nil }
        if first == "-" || first == "*" || first == "+" || first == "•" {
            let second = text.dropFirst().first
            return second == " " ? 2 : nil
        }
        let digits = text.prefix { $0.isASCII && $0.isNumber }.count
        if digits > 0, digits <= 3 {
            let after = text.dropFirst(digits)
            if (after.first == "." || after.first == ")"), after.dropFirst().first == " " { return digits + 2 }
        }
        return nil
    }

    /// Text a person typed, shown as typed: a line that would open a heading (either kind), a
    /// quote, a list, a code fence, a rule or HTML is escaped, and each line break stays one.
    public static func plain(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Line(text: escapedBlockStart(String($0)), inCode: false) }
        return withLineBreaks(lines)
    }

    /// An answer as it was shown, under a section of the document: its lists, emphasis and
    /// code stay, and its lines stay lines, but a heading (either kind) or HTML outside code is
    /// shown as text, and a code block left open is closed, so that nothing after it (the
    /// document's next headings) is swallowed into it.
    public static func nested(_ markdown: String) -> String {
        var fence: Fence?
        var lines: [Line] = []
        var previousIsText = false
        for raw in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            if let open = fence {
                if open.isClosed(by: line) { fence = nil }
                lines.append(Line(text: line, inCode: true))
                previousIsText = false
                continue
            }
            if let opened = Fence(opening: line) {
                fence = opened
                lines.append(Line(text: line, inCode: true))
                previousIsText = false
                continue
            }
            let (indent, body) = split(line)
            var text = line
            if indent.count <= 3, let first = body.first {
                let underline = previousIsText && (first == "-" || first == "=") && body.allSatisfy { $0 == first || $0 == " " }
                if first == "#" || first == "<" || underline { text = indent + "\\" + body }
            }
            lines.append(Line(text: text, inCode: false))
            previousIsText = !body.isEmpty && indent.count <= 3
        }
        if let open = fence { lines.append(Line(text: open.closing, inCode: true)) }
        return withLineBreaks(lines)
    }

    struct Line {
        var text: String
        var inCode: Bool
    }

    /// A fenced code block's opening, as CommonMark reads one: up to three spaces, then three
    /// or more backticks or tildes; closed by a run of the same character at least as long,
    /// with nothing after it.
    struct Fence {
        var character: Character
        var length: Int

        init?(opening line: String) {
            let (indent, body) = MarkdownLiteral.split(line)
            guard indent.count <= 3, let first = body.first, first == "`" || first == "~" else { return nil }
            let run = body.prefix { $0 == first }.count
            guard run >= 3 else { return nil }
            // A backtick fence's info string holds no backtick.
            if first == "`", body.dropFirst(run).contains("`") { return nil }
            character = first
            length = run
        }

        func isClosed(by line: String) -> Bool {
            let (indent, body) = MarkdownLiteral.split(line)
            guard indent.count <= 3 else { return false }
            let run = body.prefix { $0 == character }.count
            return run >= length && body.dropFirst(run).allSatisfy { $0 == " " || $0 == "\t" }
        }

        var closing: String { String(repeating: character, count: length) }
    }

    /// The leading spaces and the rest.
    static func split(_ line: String) -> (indent: String, body: String) {
        let indent = line.prefix { $0 == " " }
        return (String(indent), String(line.dropFirst(indent.count)))
    }

    /// Two spaces at the end of a line are Markdown's line break: lines of text stay lines
    /// (code keeps its lines as they are).
    static func withLineBreaks(_ lines: [Line]) -> String {
        lines.indices.map { index in
            let line = lines[index]
            let next = index + 1 < lines.count ? lines[index + 1] : nil
            // Not on a line indented as code (a shown code block): two spaces after `docker run \`
            // end the shell's line continuation when the command is pasted.
            let indentedAsCode = line.text.prefix { $0 == " " }.count >= 4
            // Nor on a table's row: its lines are the table's own, and a saved table is copied whole.
            let tableRow = line.text.drop { $0 == " " }.first == "|"
            // Nor before a list item that starts a line of its own anyway (the break only left
            // two spaces at the end of every item): one after an item, a bullet, or "1." (the
            // only number that may interrupt a paragraph).
            let beforeItem = next.map { next in
                let body = next.text.drop { $0 == " " }
                guard listMarkerLength(body) != nil else { return false }
                return listMarkerLength(line.text.drop { $0 == " " }) != nil || !(body.first?.isNumber ?? false) || body.hasPrefix("1.") || body.hasPrefix("1)")
            } ?? false
            let continues = !line.inCode && !indentedAsCode && !tableRow && !beforeItem && !line.text.isEmpty && next.map { !$0.inCode && !$0.text.isEmpty } == true
            return continues ? line.text + "  " : line.text
        }.joined(separator: "\n")
    }

    /// The line with a backslash before what would make it a block construct.
    static func escapedBlockStart(_ line: String) -> String {
        let (indent, body) = split(line)
        guard indent.count <= 3 else { return line }  // four spaces: code, shown as typed already
        guard let first = body.first else { return line }
        let rest = body.dropFirst()
        let marker: Bool
        switch first {
        case "#", ">", "<": marker = true
        case "`", "~": marker = body.hasPrefix(String(repeating: first, count: 3))
        case "-", "*", "+", "_", "=":
            // A list item ("- x"), or a rule or heading underline of any length ("-", "===").
            marker = rest.first == " " || body.allSatisfy { $0 == first || $0 == " " }
        default:
            // "1. x", "2) x": the punctuation after the digits is escaped.
            let digits = body.prefix { $0.isASCII && $0.isNumber }
            let after = body.dropFirst(digits.count)
            if !digits.isEmpty, digits.count <= 9, let punctuation = after.first, punctuation == "." || punctuation == ")",
               after.dropFirst().first == " " || after.count == 1 {
                return indent + String(digits) + "\\" + String(after)
            }
            marker = false
        }
        return marker ? indent + "\\" + body : line
    }
}
