/// Markdown tables as aligned columns: the Loop Symphony commands answer with tables, and
/// raw `| a | b |` text with a `|---|` line is hard to read (issue 21, point 8).
enum MarkdownTable {
    /// True for a line that belongs to a table (`| a | b |`).
    static func isRow(_ trimmed: String) -> Bool { trimmed.hasPrefix("|") && trimmed.count > 1 }

    /// The rows drawn with padded columns; the header (the row before a `|---|` line) is bold
    /// and underlined by a rule when styled.
    static func render(_ lines: [String], styled: Bool) -> [String] {
        var rows: [[String]] = []
        var headerCount = 0
        for line in lines {
            let cells = split(line)
            if cells.allSatisfy(isSeparator) {
                if headerCount == 0 { headerCount = rows.count }
                continue
            }
            rows.append(cells.map { MarkdownText.inline($0, styled: styled) })
        }
        guard let columns = rows.map(\.count).max(), columns > 0 else { return [] }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], TextWrap.visibleLength(cell)) }
        }
        var output: [String] = []
        for (rowIndex, row) in rows.enumerated() {
            let padded = (0..<columns).map { index -> String in
                let cell = index < row.count ? row[index] : ""
                let pad = String(repeating: " ", count: widths[index] - TextWrap.visibleLength(cell))
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
