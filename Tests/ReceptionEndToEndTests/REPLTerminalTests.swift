import Foundation
import ReceptionSoul
import ReceptionTestSupport
import Testing

/// A person at a terminal, using the real binary.
@Suite("REPL on a pseudo-terminal", .serialized)
struct REPLTerminalTests {
    static let prompt = "› "

    @Test func classifiesAMessageAndRendersTheResultInTheDefaultSoul() async throws {
        let terminal = try TerminalSession(arguments: ["--trust", "1", "--local-step-ms", "10"])
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("should I take the train or fly to Seattle next month?")
        at = try await terminal.waitFor("decision / planning · confidence ", after: at)
        let line = terminal.screen[at...].prefix { $0 != "\n" }
        #expect(line.range(of: #"^\d+% / \d+%"#, options: .regularExpression) != nil, "confidence shown: \(line)")
        // Nothing about trains is in the built-in knowledge: said plainly, in the soul's framing
        // for an answer no more searching would change (not "as far as I could get").
        at = try await terminal.waitFor(DefaultSoul.saturatedFraming, after: at)
        try await terminal.waitFor("connect a real backend", after: at)
        try await terminal.waitFor(Self.prompt, after: at)
    }

    /// A soul's name is the file's text: the start-up line shows it without the escape
    /// sequences a YAML string can spell (`\e`), which would retitle the window or clear it.
    @Test func theStartUpLineShowsASoulsNameWithoutItsEscapeSequences() async throws {
        let folder = Scratch.root.appendingPathComponent("reception-soul-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let soul = folder.appendingPathComponent("evil.md")
        try "---\nname: \"Evil \\e]0;pwned\\a \\e[2J Name\"\n---\n\nShort and warm.\n".write(to: soul, atomically: true, encoding: .utf8)
        let terminal = try TerminalSession(arguments: ["--soul", soul.path, "--trust", "1", "--local-step-ms", "10"])
        let at = try await terminal.waitFor(Self.prompt)
        let banner = terminal.rawOutput
        #expect(terminal.screen[..<at].contains("soul Evil"), "\(terminal.screen)")
        #expect(!banner.contains("\u{1B}]0;") && !banner.contains("\u{1B}[2J"), "\(banner.debugDescription)")
    }

    @Test func atTrustZeroAPlanWaitsAndApproveRunsIt() async throws {
        let terminal = try TerminalSession(arguments: ["--trust", "0", "--local-step-ms", "10"])
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("how do trust levels and plans work?")
        at = try await terminal.waitFor("Plan", after: at)
        let hint = try await terminal.waitFor("/approve", after: at)
        at = try await terminal.waitFor(Self.prompt, after: hint)
        // Checked once the prompt is back, when a run that started anyway would have printed.
        #expect(!terminal.screen[hint...].contains("Trust levels and plans"), "nothing runs before approval")
        terminal.enter("/approve")
        at = try await terminal.waitFor("searched", after: at)
        try await terminal.waitFor("trust level 0", after: at)
        try await terminal.waitFor(Self.prompt, after: at)
    }

    @Test func ctrlCDuringASlowTaskReturnsToThePromptAndTheREPLLivesOn() async throws {
        let terminal = try TerminalSession(arguments: ["--trust", "1", "--local-step-ms", "60000"])
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("what can reception do?")
        at = try await terminal.waitFor("curiosity", after: at)
        try await terminal.waitUntil("the spinner") { _ in terminal.rawOutput.contains("(Ctrl-C cancels)") }
        let pressed = ContinuousClock.now
        terminal.type("\u{03}")
        at = try await terminal.waitFor("Cancelled", after: at)
        #expect(pressed.duration(to: .now) < .seconds(30), "cancel does not wait for the 60 s step")
        at = try await terminal.waitFor(Self.prompt, after: at)
        #expect(terminal.isRunning)
        terminal.enter("/trust")
        try await terminal.waitFor("Trust level 1", after: at)
    }

    @Test func ctrlCAtThePromptDiscardsTheLineAndCtrlDLeaves() async throws {
        let terminal = try TerminalSession(arguments: [])
        var at = try await terminal.waitFor(Self.prompt)
        terminal.type("half a thought")
        try await terminal.waitFor("half a thought", after: at)
        terminal.type("\u{03}")
        at = try await terminal.waitFor("^C", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.type("\u{04}")
        #expect(try await terminal.exitStatus() == 0)
    }

    @Test func historyPersistsAcrossSessionsAndTabCompletes() async throws {
        let first = try TerminalSession(arguments: [])
        let at = try await first.waitFor(Self.prompt)
        first.enter("/goal remember this line")
        try await first.waitFor("Goal set", after: at)
        first.enter("/quit")
        #expect(try await first.exitStatus() == 0)
        let history = try String(contentsOf: first.home.appendingPathComponent("state/reception/history"), encoding: .utf8)
        #expect(history.contains("/goal remember this line"))
        let attributes = try FileManager.default.attributesOfItem(atPath: first.home.appendingPathComponent("state/reception/history").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let second = try TerminalSession(arguments: [], home: first.home)
        let mark = try await second.waitFor(Self.prompt)
        second.type("\u{1B}[A")  // up arrow recalls the previous session's lines, newest first
        try await second.waitFor("/quit", after: mark)
        second.type("\u{1B}[A")
        try await second.waitUntil("the recalled /goal line") { $0.hasSuffix("/goal remember this line") }
        second.type("\u{15}")  // ^U clears it
        second.type("/fol\t")
        try await second.waitUntil("/fol completed to /followups") { $0.hasSuffix("/followups ") }
    }

    /// The prompt is drawn when Reception waits for a line, and only then: not flashed under
    /// each line typed before the answer overwrites it, nor drawn again after Ctrl-D.
    @Test func thePromptIsDrawnOnlyWhenALineIsAwaited() async throws {
        let terminal = try TerminalSession(arguments: [])
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("/trust")
        at = try await terminal.waitFor("Trust level 1", after: at)
        try await terminal.waitFor(Self.prompt, after: at)
        terminal.type("\u{04}")
        #expect(try await terminal.exitStatus() == 0)
        let raw = terminal.rawOutput
        #expect(raw.components(separatedBy: "›").count - 1 == 2, "one prompt at start, one after the answer: \(raw.debugDescription)")
        #expect(!raw.hasSuffix("\r\n\r\n"), "Ctrl-D leaves no blank line: \(raw.suffix(40).debugDescription)")
    }

    /// A soul file edited while the prompt waits applies to the very next answer: the reload
    /// is said before the message is sent, not after its answer.
    @Test func aSoulEditedAtThePromptVoicesTheNextAnswer() async throws {
        let home = Scratch.root.appendingPathComponent("reception-soul-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let soul = home.appendingPathComponent("live.md")
        try "# Plainy\n\nA plain helper.\n".write(to: soul, atomically: true, encoding: .utf8)
        let terminal = try TerminalSession(arguments: ["--soul", soul.path, "--local-step-ms", "1"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        try "# Jeeves\n\nA butler.\n".write(to: soul, atomically: true, encoding: .utf8)
        // A modification time of its own, set rather than waited for (a second's sleep).
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: soul.path)
        terminal.enter("what can reception do?")
        at = try await terminal.waitFor("curiosity", after: at)
        let before = terminal.screen[..<at]
        #expect(before.contains("reloaded Jeeves"), "the reload comes before the message's answer: \(terminal.screen)")
        terminal.enter("/quit")
        _ = try await terminal.exitStatus()
    }

    /// After an edit with errors, `/soul show` shows the file as it is and says that the soul
    /// in use is the one last read without them.
    @Test func soulShowAfterABrokenEditSaysTheSoulInUseIsTheLastGoodOne() async throws {
        let home = Scratch.root.appendingPathComponent("reception-soul-broken-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let soul = home.appendingPathComponent("live.md")
        try "# Plainy\n\nA plain helper.\n".write(to: soul, atomically: true, encoding: .utf8)
        let terminal = try TerminalSession(arguments: ["--soul", soul.path, "--local-step-ms", "1", "--no-log"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        try "---\nformality: formall\n---\n# Plainy\n".write(to: soul, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: soul.path)
        terminal.enter("/soul show")  // the edit is read first
        at = try await terminal.waitFor("Kept Plainy", after: at)
        at = try await terminal.waitFor("This file has errors since it was last read: Plainy speaks on as last read without them.", after: at)
        at = try await terminal.waitFor("formality: formall", after: at)
        terminal.enter("/quit")
        _ = try await terminal.exitStatus()
    }

    @Test func aTrailingBackslashContinuesTheMessageOnTheNextLine() async throws {
        let terminal = try TerminalSession(arguments: ["--trust", "1", "--local-step-ms", "1"])
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("what can\\")
        at = try await terminal.waitFor("… ", after: at)
        terminal.enter("reception do?")
        at = try await terminal.waitFor("curiosity", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/history")
        try await terminal.waitFor("1. what can\n   reception do?", after: at)
    }

    @Test func slashCommandsExplainThemselvesAndUnknownOnesSuggest() async throws {
        let terminal = try TerminalSession(arguments: [])
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("/help")
        at = try await terminal.waitFor("/followups", after: at)
        terminal.enter("/folowups")
        at = try await terminal.waitFor("Did you mean /followups?", after: at)
        terminal.enter("/intent set decison")
        try await terminal.waitFor("Unknown intent", after: at)
        #expect(terminal.isRunning)
    }
}

/// The default soul, read through the soul module as the binary reads it.
enum DefaultSoul {
    static var saturatedFraming: String {
        let soul = try? SoulParser.load(contentsOf: Binary.repositoryRoot.appendingPathComponent("Souls/default.md"))
        return soul?.outcomeFraming["saturated"] ?? "(no saturated framing in Souls/default.md)"
    }
}

@Suite("A narrow terminal", .serialized)
struct NarrowTerminalTests {
    /// A spinner line wider than the screen wraps, and clearing only the last row
    /// leaves a copy of every frame behind. Every frame written must fit in 79 columns.
    @Test func spinnerFramesFitAnEightyColumnTerminal() async throws {
        let notes = Scratch.root.appendingPathComponent("reception-narrow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: notes) }
        let heading = "Roses and the many hours of sun they need in a temperate garden through the whole long summer season"
        try "# \(heading)\nRoses need six hours of sun and deep watering once a week.\n"
            .write(to: notes.appendingPathComponent("a-rather-long-file-name-about-gardening.md"), atomically: true, encoding: .utf8)
        let terminal = try TerminalSession(arguments: ["--trust", "1", "--local-step-ms", "600", "--knowledge", notes.path], columns: 80)
        var at = try await terminal.waitFor(REPLTerminalTests.prompt)
        terminal.enter("how much sun do roses need?")
        at = try await terminal.waitFor("six hours of sun", after: at)
        try await terminal.waitFor(REPLTerminalTests.prompt, after: at)
        let frames = terminal.rawOutput.components(separatedBy: "\r\u{1B}[2K").dropFirst()
            .map { TerminalSession.stripANSI(String($0.prefix { !$0.isNewline })) }
            .filter { $0.contains("Ctrl-C") || $0.contains("best match") || $0.contains("searched") }
        #expect(frames.contains { $0.contains("best match") }, "the long label was shown: \(frames.suffix(3))")
        for frame in frames {
            #expect(frame.count <= 79, "a spinner frame of \(frame.count) columns: \(frame.debugDescription)")
        }
    }

    /// On an 80-column terminal a summary that wraps goes on under the summaries: its
    /// continuation began at column 2, under the commands, and the table read as a jumble.
    @Test func helpWrapsItsSummariesUnderTheSummaryColumn() async throws {
        let terminal = try TerminalSession(arguments: ["--trust", "1"], columns: 80)
        var at = try await terminal.waitFor(REPLTerminalTests.prompt)
        terminal.enter("/help")
        at = try await terminal.waitFor("/help", after: at)
        let end = try await terminal.waitFor("Ctrl-D leaves.", after: at)
        let table = terminal.screen[at..<end].split(separator: "\n").map { $0.replacingOccurrences(of: "\r", with: "") }.prefix { !$0.hasPrefix("Type a message") }
        let rows = table.filter { $0.hasPrefix("  /") }
        let column = try #require(rows.first.flatMap { row in row.range(of: #"\S  +\S"#, options: .regularExpression).map { row.distance(from: row.startIndex, to: $0.upperBound) - 1 } })
        let continuations = table.filter { !$0.hasPrefix("  /") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(!continuations.isEmpty, "nothing wrapped at 80 columns: \(table)")
        for line in continuations {
            #expect(line.prefix(column).allSatisfy { $0 == " " } && line.count <= 80, "\(line) (the summaries start at column \(column))")
        }
    }
}
