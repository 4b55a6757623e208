import ReceptionCore

/// Draws display blocks as terminal text: styled (colours, cards) or plain (no ANSI).
public struct BlockPrinter: Sendable {
    public let styled: Bool

    public init(styled: Bool) {
        self.styled = styled
    }

    public func text(for blocks: [DisplayBlock]) -> String {
        blocks.map(text(for:)).filter { !$0.isEmpty }.joined(separator: "\n")
    }

    public func text(for block: DisplayBlock) -> String {
        var block = block
        block.title = block.title.map { TerminalText.line($0) }
        if block.role == .progress {
            // One line, bounded: a progress message may carry a server field of any size.
            return styled ? Style.dim("  · \(MarkdownText.inline(TerminalText.line(block.markdown), styled: true))")
                : "  · \(MarkdownText.inline(TerminalText.line(block.markdown), styled: false))"
        }
        let body = MarkdownText.render(block.markdown, styled: styled)
        switch block.role {
        case .progress:
            return body
        case .note:
            return styled ? Style.dim(body) : body
        case .error:
            return styled ? Style.red("✗ ") + body : "error: \(body)"
        case .finding:
            // The soul's findings title heads the first one, or the findings read as more items
            // of the answer's own list.
            // A finding of several lines (a list, a code block) stays under its bullet.
            let item = (styled ? Style.dim("  • ") : "  - ") + body.split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated().map { $0.offset == 0 || $0.element.isEmpty ? String($0.element) : "    " + $0.element }.joined(separator: "\n")
            guard let title = block.title else { return item }
            return (styled ? Style.bold(title) : title) + "\n" + item
        case .intervention:
            // A soul may put the label inside the text (an "inline" card): then there is no title.
            guard let label = block.title else { return styled ? Style.yellow("┃ ") + body : body }
            return styled ? Style.yellow("┃ ") + Style.bold(Style.yellow(label)) + "  " + body : "[\(label)] \(body)"
        case .followups:
            let title = block.title.map { styled ? Style.bold($0) : $0 }
            // The soul's own list style when it gave one; numbered items otherwise.
            let list = block.markdown.isEmpty
                ? block.items.enumerated().map { "  \($0.offset + 1). \(MarkdownText.inline($0.element, styled: styled))" }.joined(separator: "\n")
                : body
            return ([title, list].compactMap { $0 }).joined(separator: "\n")
        case .plan:
            let title = block.title ?? "Plan"
            let items = block.items.map { "  - \(MarkdownText.inline($0, styled: styled))" }
            return ([styled ? Style.bold(Style.magenta(title)) + "  " + body : "\(title): \(body)"] + items).joined(separator: "\n")
        case .discrepancy:
            let title = block.title ?? "Discrepancy"
            return (styled ? Style.bold(title) : title) + "\n" + body
        case .signoff:
            return styled ? Style.italic(body) : body
        case .greeting, .summary, .text:
            guard let title = block.title else { return body }
            return (styled ? Style.bold(title) : title) + "\n" + body
        }
    }
}
