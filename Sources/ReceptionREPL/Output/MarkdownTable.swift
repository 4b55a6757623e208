import ReceptionCore
/// Markdown tables as aligned columns: the Loop Symphony commands answer with tables, and
/// raw `| a | b |` text with a `|---|` line is hard to read.
enum MarkdownTable {
    /// True for a line that belongs to a table (`| a | b |`).
    static func isRow(_ trimmed: String) -> Bool { trimmed.hasPrefix("|") && trimmed.count > 1 }

    /// The rows drawn with padded columns; the header (the row before a `|---|` line) is bold
    /// and underlined by a rule when styled. With a `width` (the terminal's), the widest
    /// columns give up room, their cells cut with "…", until a row fits: a wider table wrapped
    /// every row onto a second line under nothing. Padding counts display columns (a CJK
    /// character takes two).
    static func render(_ lines: [String], styled: Bool, width: Int = 0) -> [String] {
        var rows: [[String]] = []
        var headerCount = 0
        for line in lines {
            let cells = split(line)
            if cells.allSatisfy(isSeparator) {
                if headerCount == 0 { headerCount = rows.count }
                continue
            }
            rows.append(cells)
        }
        guard let columns = rows.map(\.count).max(), columns > 0 else { return [] }
        let plain = rows.map { $0.map { MarkdownText.inline($0, styled: false) } }
        var widths = Array(repeating: 0, count: columns)
        for row in plain {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], TerminalWidth.of(cell)) }
        }
        if width > 0 {
            var total = widths.reduce(0, +) + 2 * (columns - 1)
            while total > width - 1, let widest = widths.indices.filter({ widths[$0] > 8 }).max(by: { widths[$0] < widths[$1] }) {
                widths[widest] -= 1
                total -= 1
            }
        }
        var output: [String] = []
        for (rowIndex, row) in rows.enumerated() {
            let padded = (0..<columns).map { index -> String in
                guard index < row.count else { return String(repeating: " ", count: widths[index]) }
                let text = plain[rowIndex][index]
                let cut = TerminalWidth.of(text) > widths[index]
                // A cut cell is shown plain: its styling's escape sequences cannot be cut.
                let cell = cut ? TerminalWidth.truncate(text, to: widths[index]) : MarkdownText.inline(row[index], styled: styled)
                let pad = String(repeating: " ", count: max(0, widths[index] - TerminalWidth.of(cut ? cell : text)))
                return cell + pad
            }
            var line = padded.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            let isHeader = rowIndex < headerCount
            output.append(isHeader && styled ? Style.bold(line) : line)
            if rowIndex == headerCount - 1 {
                let rule = widths.map { String(repeating: "─", count: max($0, 1)) }.joined(separator: "  ")
                output.append(styled ? Style.dim(rule) : rule)
            }
        }
        return output
    }

    /// The cells of `| a | b \| c |`: outer bars dropped, `\|` kept as a bar inside a cell.
    static func split(_ line: String) -> [String] {
        var trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("|") { trimmed.removeFirst() }
        if trimmed.hasSuffix("|") && !trimmed.hasSuffix("\\|") { trimmed.removeLast() }
        var cells: [String] = []
        var current = ""
        var escaped = false
        for character in trimmed {
            if escaped { current.append(character); escaped = false; continue }
            if character == "\\" { escaped = true; continue }
            if character == "|" { cells.append(current.trimmingCharacters(in: .whitespaces)); current = ""; continue }
            current.append(character)
        }
        cells.append(current.trimmingCharacters(in: .whitespaces))
        return cells
    }

    static func isSeparator(_ cell: String) -> Bool {
        !cell.isEmpty && cell.allSatisfy { $0 == "-" || $0 == ":" } && cell.contains("-")
    }
}
