import ReceptionCore
/// Word-wraps terminal text to a width, counting only visible characters (ANSI escape
/// sequences take no room). Continuation lines keep the indent of the list item or
/// paragraph they belong to.
enum TextWrap {
    /// `hanging`: the column continuation lines start at, for a two-column table whose second
    /// column must stay one (/help); by default the list item's or paragraph's own indent.
    static func wrap(_ text: String, width: Int, hanging: Int? = nil) -> String {
        guard width >= 20 else { return text }
        return text.components(separatedBy: "\n").map { wrapLine($0, width: width, hanging: hanging) }.joined(separator: "\n")
    }

    static func wrapLine(_ line: String, width: Int, hanging: Int? = nil) -> String {
        guard visibleLength(line) > width else { return line }
        // A column too far right to leave room for words falls back to the line's own indent.
        if let hanging, hanging <= width - 20 {
            let (lead, rest) = splitLeadingSpace(line)
            return wrapWords(lead: lead, rest: rest, continuation: String(repeating: " ", count: hanging), width: width)
        }
        // The line's own indent stays on its first line (a nested item "    • …" used to lose
        // it); continuation lines hang under the item's text, and a card's or a quote's bar is
        // drawn again on each of them.
        let (lead, rest) = splitLeadingSpace(line)
        let continuation = barPrefix(line) ?? String(repeating: " ", count: hangingIndent(line))
        return wrapWords(lead: lead, rest: rest, continuation: continuation, width: width)
    }

    private static func wrapWords(lead: String, rest: Substring, continuation: String, width: Int) -> String {
        let continuationLength = visibleLength(continuation)
        var lines: [String] = []
        var current = lead
        var currentLength = visibleLength(lead)
        var lineHasWord = false
        for word in rest.split(separator: " ", omittingEmptySubsequences: false) {
            let length = visibleLength(word)
            if lineHasWord && currentLength + 1 + length > width {
                lines.append(current)
                current = continuation + word
                currentLength = continuationLength + length
            } else {
                current += (lineHasWord ? " " : "") + word
                currentLength += (lineHasWord ? 1 : 0) + length
            }
            lineHasWord = true
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }

    /// The escape sequences and spaces a line starts with, and the rest.
    static func splitLeadingSpace(_ line: String) -> (lead: String, rest: Substring) {
        var index = line.startIndex
        while index < line.endIndex {
            if line[index] == " " {
                index = line.index(after: index)
            } else if line[index] == "\u{1B}", let end = escapeEnd(line, from: index) {
                index = end
            } else {
                break
            }
        }
        return (String(line[..<index]), line[index...])
    }

    /// For a card ("┃ ") or quote ("│ ", "> ") line: its raw prefix up to and including the bar
    /// and the styling that closes it, to repeat on continuation lines.
    static func barPrefix(_ line: String) -> String? {
        let plain = stripANSI(line)
        let spaces = plain.prefix { $0 == " " }.count
        guard ["┃ ", "│ ", "> "].contains(where: { plain.dropFirst(spaces).hasPrefix($0) }) else { return nil }
        var visible = 0
        var index = line.startIndex
        while index < line.endIndex, visible < spaces + 2 {
            if line[index] == "\u{1B}", let end = escapeEnd(line, from: index) { index = end; continue }
            visible += 1
            index = line.index(after: index)
        }
        while index < line.endIndex, line[index] == "\u{1B}", let end = escapeEnd(line, from: index) { index = end }
        var prefix = String(line[..<index])
        // A style opened before the bar and not closed with it must not run into the text.
        if prefix.contains("\u{1B}"), !prefix.hasSuffix("\u{1B}[0m") { prefix += "\u{1B}[0m" }
        return prefix
    }

    /// The index after an escape sequence that starts at `start` (ends at its first letter).
    static func escapeEnd(_ text: String, from start: String.Index) -> String.Index? {
        var index = text.index(after: start)
        while index < text.endIndex {
            if text[index].isLetter { return text.index(after: index) }
            index = text.index(after: index)
        }
        return nil
    }

    /// Where the text of a line starts: after leading spaces and a bullet or number.
    static func hangingIndent(_ line: String) -> Int {
        let plain = stripANSI(line)
        let spaces = plain.prefix { $0 == " " }.count
        let rest = plain.dropFirst(spaces)
        for marker in ["• ", "- ", "┃ ", "· ", "✗ ", "> ", "│ "] where rest.hasPrefix(marker) { return min(spaces + marker.count, 12) }
        let digits = rest.prefix { $0.isNumber }.count
        if digits > 0, rest.dropFirst(digits).hasPrefix(". ") { return min(spaces + digits + 2, 12) }
        return min(spaces, 12)
    }

    /// Columns the text takes once its escape sequences are dropped (wide characters count two).
    static func visibleLength<S: StringProtocol>(_ text: S) -> Int { TerminalWidth.of(stripANSI(String(text))) }

    static func stripANSI(_ text: String) -> String {
        var output = ""
        var inEscape = false
        for character in text {
            if inEscape {
                if character.isLetter { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                output.append(character)
            }
        }
        return output
    }
}
