import ReceptionCore

/// Draws Markdown for a terminal (bold, italics, code, headings, lists, fenced code) or
/// strips it to plain text. Deliberately small: results are short prose, not documents.
public enum MarkdownText {
    /// The text is cleaned of escape sequences and control characters first (see
    /// `TerminalText`): Markdown reaching here may come from a server or a soul file.
    /// `width`: the terminal's columns (0 when unknown), which tables are fitted to.
    public static func render(_ markdown: String, styled: Bool, width: Int = 0) -> String {
        var output: [String] = []
        var inFence = false
        var table: [String] = []
        for line in TerminalText.clean(markdown).components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !inFence && MarkdownTable.isRow(trimmed) {
                table.append(trimmed)
                continue
            }
            if !table.isEmpty {
                output += MarkdownTable.render(table, styled: styled, width: width)
                table = []
            }
            if trimmed.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if inFence {
                output.append(styled ? "    " + Style.cyan(line) : "    " + line)
                continue
            }
            if let level = headingLevel(trimmed) {
                let text = inline(String(trimmed.dropFirst(level + 1)), styled: styled)
                output.append(styled ? Style.bold(level == 1 ? Style.underline(text) : text) : text)
            } else if trimmed.hasPrefix("- ") || trimmed.hasPrefix("* ") || trimmed.hasPrefix("+ ") {
                let indent = String(line.prefix { $0 == " " })
                output.append(indent + (styled ? "  • " : "  - ") + inline(String(trimmed.dropFirst(2)), styled: styled))
            } else if trimmed.hasPrefix(">") {
                let quoted = inline(String(trimmed.dropFirst()).trimmingCharacters(in: .whitespaces), styled: styled)
                output.append(styled ? Style.dim("│ ") + Style.italic(quoted) : "> " + quoted)
            } else {
                output.append(inline(line, styled: styled))
            }
        }
        if !table.isEmpty { output += MarkdownTable.render(table, styled: styled, width: width) }
        return output.joined(separator: "\n")
    }

    private static func headingLevel(_ line: String) -> Int? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { return nil }
        return hashes
    }

    /// `**bold**`, `*em*` / `_em_`, `` `code` ``. Code spans are copied verbatim.
    static func inline(_ text: String, styled: Bool) -> String {
        let text = TerminalText.clean(text, singleLine: true)
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            if rest.hasPrefix("`"), let close = rest.dropFirst().firstIndex(of: "`") {
                let code = String(rest[rest.index(after: rest.startIndex)..<close])
                // Plain text keeps the backticks of a span with a space in it: without them a
                // command ("`wsdot ferries --route sea-bi`") runs into the sentence around it. A
                // single word needs none (an id in a table, `snake_case`).
                output += styled ? Style.cyan(code) : code.contains(" ") ? "`" + code + "`" : code
                index = text.index(after: close)
            } else if rest.hasPrefix("**"), let close = rest.dropFirst(2).range(of: "**") {
                let inner = inline(String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close.lowerBound]), styled: styled)
                output += styled ? Style.bold(inner) : inner
                index = close.upperBound
            } else if let marker = rest.first, marker == "*" || marker == "_", isEmphasisStart(text, index),
                      let close = rest.dropFirst().firstIndex(of: marker), close > rest.index(after: rest.startIndex),
                      isEmphasisEnd(text, close) {
                let inner = String(rest[rest.index(after: rest.startIndex)..<close])
                output += styled ? Style.italic(inner) : inner
                index = text.index(after: close)
            } else {
                output.append(text[index])
                index = text.index(after: index)
            }
        }
        return output
    }

    // `_` and `*` inside words (snake_case, 2*3) are not emphasis.
    private static func isEmphasisStart(_ text: String, _ index: String.Index) -> Bool {
        let next = text.index(after: index)
        guard next < text.endIndex, !text[next].isWhitespace else { return false }
        return index == text.startIndex || !text[text.index(before: index)].isLetter && !text[text.index(before: index)].isNumber
    }

    private static func isEmphasisEnd(_ text: String, _ index: String.Index) -> Bool {
        guard !text[text.index(before: index)].isWhitespace else { return false }
        let next = text.index(after: index)
        return next == text.endIndex || !text[next].isLetter && !text[next].isNumber
    }
}

import Foundation
