/// Word-wraps terminal text to a width, counting only visible characters (ANSI escape
/// sequences take no room). Continuation lines keep the indent of the list item or
/// paragraph they belong to.
enum TextWrap {
    static func wrap(_ text: String, width: Int) -> String {
        guard width >= 20 else { return text }
        return text.components(separatedBy: "\n").map { wrapLine($0, width: width) }.joined(separator: "\n")
    }

    static func wrapLine(_ line: String, width: Int) -> String {
        guard visibleLength(line) > width else { return line }
        let indent = hangingIndent(line)
        var lines: [String] = []
        var current = ""
        var currentLength = 0
        for word in line.split(separator: " ", omittingEmptySubsequences: false) {
            let length = visibleLength(word)
            if currentLength > 0 && currentLength + 1 + length > width {
                lines.append(current)
                current = String(repeating: " ", count: indent) + word
                currentLength = indent + length
            } else {
                current += (currentLength > 0 || !current.isEmpty ? " " : "") + word
                currentLength += (currentLength > 0 ? 1 : 0) + length
            }
        }
        lines.append(current)
        return lines.joined(separator: "\n")
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
