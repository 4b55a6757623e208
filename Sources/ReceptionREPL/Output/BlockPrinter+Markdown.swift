import ReceptionCore

extension BlockPrinter {
    /// The blocks as a Markdown document's text, for `/save`: each body stays the Markdown the
    /// soul gave (the screen's rendering dropped a one-word code span's backticks, so
    /// `*_old_*` read as emphasis in the saved file, and turned a table into aligned columns);
    /// titles and labels become bold text, findings and steps list items.
    public static func markdown(for blocks: [DisplayBlock]) -> String {
        var text = ""
        var previous: DisplayBlock.Role?
        for block in blocks {
            let part = markdown(for: block)
            guard !part.isEmpty else { continue }
            // Findings in a row are one list, not a list item per paragraph.
            let sameList = previous == .finding && block.role == .finding && block.title == nil
            text += text.isEmpty ? part : (sameList ? "\n" : "\n\n") + part
            previous = block.role
        }
        return text
    }

    static func markdown(for block: DisplayBlock) -> String {
        let body = block.markdown
        let title = block.title.map { bold(TerminalText.line($0)) }
        switch block.role {
        case .progress:
            return "· " + TerminalText.line(body)
        case .note, .signoff:
            return body
        case .error:
            return "**error:** " + body
        case .finding:
            // A finding of several lines (a list, a code block) stays under its bullet.
            let item = "- " + body.split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated().map { $0.offset == 0 || $0.element.isEmpty ? String($0.element) : "  " + $0.element }.joined(separator: "\n")
            return title.map { $0 + "\n\n" + item } ?? item
        case .intervention:
            return title.map { "\($0) \(body)" } ?? body
        case .followups:
            let list = body.isEmpty ? block.items.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n") : body
            return [title, list].compactMap { $0 }.joined(separator: "\n\n")
        case .plan:
            let head = "\(title ?? bold("Plan")) \(body)"
            return ([head] + (block.items.isEmpty ? [] : [""] + block.items.map { "- " + $0 })).joined(separator: "\n")
        case .discrepancy:
            return "\(title ?? bold("Discrepancy"))\n\n\(body)"
        case .greeting, .summary, .text:
            return title.map { $0 + "\n\n" + body } ?? body
        }
    }

    /// Bold text whose own asterisks and underscores stay characters.
    private static func bold(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "*" || character == "_" || character == "\\" || character == "`" { escaped.append("\\") }
            escaped.append(character)
        }
        return "**\(escaped)**"
    }
}
