import Foundation
import ReceptionTestSupport
import Testing

/// Line editing as the terminal shows it. readline measures the prompt in the C library's
/// character encoding: left at "C", the prompt's "›" (three bytes) counted as three columns,
/// so after ^U the line was redrawn two columns off ("› he/goal" on screen, "/goal" typed).
@Suite("Line editing on a terminal")
struct LineEditingTerminalTests {
    /// The last line as a terminal draws it: characters at the cursor, CR to column 0,
    /// `ESC [ n C` forward, backspace back, `ESC [ K` clears to the end of the line.
    static func lastLine(_ raw: String) -> String {
        // Scalars, not Characters: "\r\n" is one Character.
        var line: [Unicode.Scalar] = []
        var column = 0
        var characters = Array(raw.unicodeScalars)[...]
        while let character = characters.popFirst() {
            switch character {
            case "\r": column = 0
            case "\n": line = []; column = 0
            case "\u{8}": column = max(0, column - 1)
            case "\u{1}", "\u{2}", "\u{7}": break
            case "\u{1B}":
                guard characters.first == "[" else { characters = characters.dropFirst(); continue }
                characters = characters.dropFirst()
                var parameter = ""
                while let next = characters.first, ("0"..."9").contains(next) || next == ";" || next == "?" { parameter.unicodeScalars.append(next); characters = characters.dropFirst() }
                let final = characters.popFirst()
                if final == "C" { column += Int(parameter) ?? 1 }
                if final == "D" { column = max(0, column - (Int(parameter) ?? 1)) }
                if final == "K" { line = Array(line.prefix(column)) }
            default:
                while line.count < column { line.append(" ") }
                if column < line.count { line[column] = character } else { line.append(character) }
                column += 1
            }
        }
        return String(String.UnicodeScalarView(line))
    }

    @Test func aLineClearedAndRetypedIsDrawnWhereItIs() async throws {
        let terminal = try TerminalSession(arguments: ["--trust", "1", "--local-step-ms", "10"])
        try await terminal.waitFor(REPLTerminalTests.prompt)
        terminal.type("hello world")
        try await terminal.waitUntil("the typed line") { _ in terminal.rawOutput.hasSuffix("hello world") }
        terminal.type("\u{15}")  // ^U: forget the line
        terminal.type("/goal")
        try await terminal.waitUntil("the retyped line") { _ in Self.lastLine(terminal.rawOutput).hasSuffix("/goal") }
        #expect(Self.lastLine(terminal.rawOutput) == "› /goal", "\(terminal.rawOutput.suffix(400).debugDescription)")
        terminal.type("\u{1}X")  // ^A, then a letter at the start
        try await terminal.waitUntil("the inserted letter") { _ in Self.lastLine(terminal.rawOutput).contains("X") }
        #expect(Self.lastLine(terminal.rawOutput) == "› X/goal", "\(terminal.rawOutput.suffix(80).debugDescription)")
    }

    /// Ctrl-D pressed while an answer runs (no prompt up, the terminal cooked) leaves once the
    /// answer is shown, as a shell does with a ^D typed during a command; the session went on
    /// waiting, with no prompt.
    @Test func ctrlDDuringAnAnswerLeavesAfterIt() async throws {
        let home = Scratch.root.appendingPathComponent("reception-eof-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try TerminalSession(arguments: ["--trust", "1", "--local-step-ms", "700", "--no-log"], home: home)
        var at = try await terminal.waitFor(REPLTerminalTests.prompt)
        terminal.enter("how do souls work?")
        at = try await terminal.waitFor("(Ctrl-C cancels)", after: at)  // the spinner: the answer is running
        terminal.type("\u{4}")
        #expect(try await terminal.exitStatus(timeout: .seconds(30)) == 0, "\(terminal.screen[at...])")
    }
}
