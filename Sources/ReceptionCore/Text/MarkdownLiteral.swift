/// Text placed into a Markdown document that Reception writes (`/save`, `logs export`), so
/// that what a person typed or an answer said cannot pass for the document's own structure: a
/// message "## Reception · complete" was a second, forged answer heading.
public enum MarkdownLiteral {
    /// Text a person typed, shown as typed: a line that would open a heading, a quote, a list,
    /// a code fence or a rule is escaped, and each line break stays one.
    public static func plain(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { escapedBlockStart(String($0)) }
        var out: [String] = []
        for (index, line) in lines.enumerated() {
            // Two spaces at the end of a line are Markdown's line break: typed lines stay lines.
            let continues = index + 1 < lines.count && !line.isEmpty && !lines[index + 1].isEmpty
            out.append(continues ? line + "  " : line)
        }
        return out.joined(separator: "\n")
    }

    /// An answer as it was shown, under a section of the document: its lists, emphasis and
    /// code stay, and its lines stay lines, but a heading line outside code is shown as text
    /// (it would read as one of the document's own headings).
    public static func nested(_ markdown: String) -> String {
        var fence: Substring?
        var out: [(text: String, inCode: Bool)] = []
        for raw in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            let body = line.drop { $0 == " " }
            if let open = fence {
                if body.hasPrefix(open) { fence = nil }
                out.append((line, true))
            } else if body.hasPrefix("```") || body.hasPrefix("~~~") {
                fence = body.prefix(3)
                out.append((line, true))
            } else if line.count - body.count <= 3, body.hasPrefix("#") {
                out.append((String(line.prefix(line.count - body.count)) + "\\" + body, false))
            } else {
                out.append((line, false))
            }
        }
        return out.enumerated().map { index, line in
            let next = index + 1 < out.count ? out[index + 1] : nil
            let continues = !line.inCode && !line.text.isEmpty && next.map { !$0.inCode && !$0.text.isEmpty } == true
            return continues ? line.text + "  " : line.text
        }.joined(separator: "\n")
    }

    /// The line with a backslash before what would make it a block construct.
    static func escapedBlockStart(_ line: String) -> String {
        let indent = line.prefix { $0 == " " }
        guard indent.count <= 3 else { return line }  // four spaces: code, shown as typed already
        let body = line.dropFirst(indent.count)
        guard let first = body.first else { return line }
        let rest = body.dropFirst()
        let marker: Bool
        switch first {
        case "#", ">": marker = true
        case "`", "~": marker = body.hasPrefix(String(repeating: first, count: 3))
        case "-", "*", "+", "_", "=":
            // A list item ("- x"), or a rule or setext underline ("---", "***", "===").
            marker = rest.first == " " || (body.count >= 3 && body.allSatisfy { $0 == first || $0 == " " })
        default:
            // "1. x", "2) x": the punctuation after the digits is escaped.
            let digits = body.prefix { $0.isASCII && $0.isNumber }
            let after = body.dropFirst(digits.count)
            if !digits.isEmpty, digits.count <= 9, let punctuation = after.first, punctuation == "." || punctuation == ")",
               after.dropFirst().first == " " || after.count == 1 {
                return String(indent) + String(digits) + "\\" + String(after)
            }
            marker = false
        }
        return marker ? String(indent) + "\\" + String(body) : line
    }
}
