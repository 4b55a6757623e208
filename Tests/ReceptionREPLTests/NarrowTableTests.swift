import Testing
import ReceptionCore
@testable import ReceptionREPL

/// Tables as a narrow terminal shows them (found by a trial of TIMEPOINT's `/scene list`,
/// 135 columns wide on an 80-column screen, every row wrapped onto a second line).
@Suite("Markdown tables on a terminal")
struct NarrowTableTests {
    static let table = [
        "| id | query | year | status |",
        "|---|---|---|---|",
        "| 0c83ca3c-164b-2cb8-5843-b4e8832c6ba4 | Café Müller in Zürich, déjà vu, with a very long title that goes on and on | 1921 | completed |",
        "| 7d1e2f30-0000-4000-8000-000000000001 | 東京の朝 1964 | 1964 | completed |",
    ]

    @Test func aWideTableFitsTheTerminalAndItsColumnsLineUp() {
        let lines = MarkdownTable.render(NarrowTableTests.table, styled: false, width: 80)
        for line in lines { #expect(TerminalWidth.of(line) <= 79, "\(TerminalWidth.of(line)) columns: \(line)") }
        // The status column starts at the same screen column on every data row (wide characters
        // count two).
        let starts = lines.filter { $0.hasPrefix("0c83") || $0.hasPrefix("7d1e") }.map { line -> Int in
            let prefix = line.components(separatedBy: "completed")[0]
            return TerminalWidth.of(prefix)
        }
        #expect(starts.count == 2 && starts[0] == starts[1], "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("…") }, "the long query is cut, not wrapped")
    }

    @Test func withoutAWidthNothingIsCut() {
        let lines = MarkdownTable.render(NarrowTableTests.table, styled: false)
        #expect(lines.contains { $0.contains("goes on and on") })
    }
}
