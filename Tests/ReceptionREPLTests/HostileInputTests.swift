import Foundation
import ReceptionCore
@testable import ReceptionREPL
import ReceptionSoul
import ReceptionTestSupport
import ReceptionTesting
import Synchronization
import Testing

/// What a hostile server or a script must not be able to do to the person's terminal,
/// files or input: the cases the REPL itself handles.
@Suite("Hostile input at the REPL")
struct HostileInputTests {
    static let clearScreen = "\u{1B}[2J\u{1B}[H"
    static let clipboard = "\u{1B}]52;c;ZWNobyBwd25lZA==\u{07}"
    static let hyperlink = "\u{1B}]8;;https://evil.example\u{1B}\\click here\u{1B}]8;;\u{1B}\\"
    static let bidi = "\u{202E}gnp.exe"
    static let title = "\u{1B}]0;pwned\u{07}"
    static let c1 = "\u{9B}31m"

    @Test func escapeSequencesAreStrippedAndTheTextStays() {
        #expect(TerminalText.clean("a\(Self.clearScreen)b") == "ab")
        #expect(TerminalText.clean("x\(Self.clipboard)y") == "xy")
        #expect(TerminalText.clean(Self.hyperlink) == "click here")
        #expect(TerminalText.clean(Self.bidi) == "gnp.exe")
        #expect(TerminalText.clean("t\(Self.title)t") == "tt")
        #expect(TerminalText.clean("\(Self.c1)red") == "red")
        #expect(TerminalText.clean("bell\u{07} nul\u{00} del\u{7F}") == "bell nul del")
        #expect(TerminalText.clean("two\nlines\tand tab") == "two\nlines\tand tab")
        #expect(TerminalText.clean("two\r\nlines", singleLine: true) == "two  lines")
        #expect(TerminalText.clean("a\ttab", singleLine: true) == "a tab", "one line: a tab becomes a space, as a newline does, even with nothing else to clean")
        #expect(TerminalText.clean("café ✓ 日本") == "café ✓ 日本")
        #expect(TerminalText.line(String(repeating: "x", count: 5_000), limit: 100).count == 100)
    }

    @Test func aHostileResultReachesTheTerminalWithoutItsEscapesButWithReceptionsStyling() async throws {
        let evil = BackendResult(outcome: .complete,
                                 findings: [Finding(content: "finding \(Self.clipboard)", source: "src\(Self.title)")],
                                 text: "summary \(Self.clearScreen)\(Self.hyperlink)",
                                 followups: [.plain("follow \(Self.bidi)"), .intervention(Intervention(type: .pushback, message: "card \(Self.c1)"))])
        let backend = ScriptedBackend { _ in
            [.event(.progress(TaskProgress(taskID: "t", message: "step \(Self.title)" + String(repeating: "p", count: 100_000)))),
             .event(.textDelta("chunk \(Self.clearScreen)")),
             .event(.result(evil))]
        }
        for mode in [OutputMode.plain, .styled] {
            let (output, _, _) = await runREPL(["hello"], backend: backend, mode: mode,
                                               middleware: [PersonalityMiddleware(store: SoulStore(Soul(name: "plain")))])
            for sequence in ["\u{1B}[2J", "\u{1B}]52", "\u{1B}]8", "\u{1B}]0", "\u{202E}", "\u{9B}"] {
                #expect(!output.contains(sequence), "\(mode): \(sequence.debugDescription) reached the terminal")
            }
            #expect(output.contains("summary click here") && output.contains("finding") && output.contains("follow gnp.exe"))
            #expect(!output.split(separator: "\n").contains { $0.count > 2_000 }, "a 100 kB progress field is cut")
            if mode == .plain { #expect(!output.contains("\u{1B}"), "plain output has no escape at all") }
            if mode == .styled { #expect(output.contains("\u{1B}[1m") || output.contains("\u{1B}[2m"), "Reception's own styling stays") }
        }
    }

    /// The events the test above does not carry: thinking, tool use, a permission question, a
    /// plan and a failure, each with escape sequences in every text it has, in every mode.
    @Test func everyOtherEventIsCleanedToo() async throws {
        let evil = Self.clearScreen + Self.clipboard + Self.title + Self.c1
        let backend = ScriptedBackend(capabilities: [.planApproval, .permissionRequests]) { request in
            if request.text == "plan" {
                return [.event(.planAwaitingApproval(Plan(taskID: "p", summary: "plan \(evil)", steps: [PlanStep("step \(evil)", detail: "detail \(evil)")])))]
            }
            if request.text == "fail" { return [.event(.failure(TaskFailure(taskID: "t", message: "failed \(evil)")))] }
            return [.event(.thinking("thinking \(evil)")),
                    .event(.toolUse(ToolUse(name: "tool \(evil)", input: .object(["path": .string("in \(evil)")])))),
                    .event(.permissionRequest(PermissionRequest(id: "1", tool: "rm \(evil)", description: "may I \(evil)")))]
        }
        for mode in [OutputMode.plain, .styled, .json] {
            let (output, _, _) = await runREPL(["work", "fail", "/trust 0", "plan"], backend: backend, mode: mode,
                                               middleware: [PersonalityMiddleware(store: SoulStore(Soul(name: "plain")))])
            for sequence in ["\u{1B}[2J", "\u{1B}]52", "\u{1B}]0", "\u{9B}", "\u{07}"] {
                #expect(!output.contains(sequence), "\(mode): \(sequence.debugDescription) reached the terminal:\n\(output)")
            }
            #expect(output.contains("failed"), "\(mode): \(output)")
            #expect(output.contains("plan"), "\(mode): \(output)")
            if mode == .plain { #expect(!output.contains("\u{1B}"), "plain output has no escape at all:\n\(output)") }
        }
    }

    @Test func aScriptIsNeverAskedAndItsNextLineIsStillSent() async throws {
        let backend = ScriptedBackend { request in [.event(.result(BackendResult(outcome: .complete, text: "done: \(request.text)")))] }
        let (output, _, status) = await runREPL(["first message", "second message"], backend: backend, afterTask: { _ in
            BackendQuestion(text: "5 successful tasks in a row. Enable semi-autonomous mode?", trustLevel: 1,
                            answerCommand: "/trust-metrics set 1, then /trust 1") { "accepted" }
        })
        #expect(backend.received.map(\.text) == ["first message", "second message"], "no line was taken as an answer")
        #expect(output.contains("Not asked, because input is not a terminal: 5 successful tasks in a row."), "\(output)")
        #expect(output.contains("To say yes, type: /trust-metrics set 1, then /trust 1"))
        #expect(!output.contains("accepted") && status == 0)
    }

    @Test func anOfferBelowTheSessionsLevelIsNeverMade() async throws {
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(outcome: .complete, text: "done")))] }
        let offer: @Sendable (BackendResult) async -> BackendQuestion? = { _ in
            BackendQuestion(text: "Enable semi-autonomous mode?", trustLevel: 1, answerCommand: "/trust 1") { "lowered" }
        }
        let (atTwo, stateAtTwo, _) = await runREPL(["/trust 2", "hello"], backend: backend, afterTask: offer)
        #expect(!atTwo.contains("semi-autonomous mode"), "at level 2 an offer of 1 would lower the session:\n\(atTwo)")
        #expect(stateAtTwo.trustLevel == 2)
        let (atOne, _, _) = await runREPL(["hello"], backend: backend, afterTask: offer)
        #expect(atOne.contains("Enable semi-autonomous mode?"), "at the session's level it still raises the server's record:\n\(atOne)")
        #expect(atOne.contains("This session already runs at that level; a yes makes the server remember it"), "and says so:\n\(atOne)")
    }

    @Test func aScriptWhoseTaskFailedExitsWithStatusOne() async throws {
        let failing = ScriptedBackend { _ in [.event(.failure(TaskFailure(message: "engine exploded")))] }
        #expect(await runREPL(["hello"], backend: failing).status == 1)
        let broken = ScriptedBackend { _ in [.fail(BackendError.unreachable(url: "http://x", reason: "refused"))] }
        #expect(await runREPL(["hello"], backend: broken).status == 1)
        let fine = ScriptedBackend { _ in [.event(.result(BackendResult(text: "ok")))] }
        #expect(await runREPL(["hello"], backend: fine).status == 0)
    }

    @Test func aStreamThatStallsKeepsWhatArrivedOnItsOwnLineBeforeTheError() async throws {
        // Half a sentence, then the connection goes quiet until the read timeout.
        let stalled = ScriptedBackend { _ in
            [.event(.accepted(taskID: "t", status: .running)), .event(.textDelta("starting...")),
             .fail(BackendError.timedOut(url: "http://x/chat", reason: "no answer within the read timeout"))]
        }
        let (output, _, status) = await runREPL(["hello"], backend: stalled,
                                                middleware: [PersonalityMiddleware(store: SoulStore(Soul(name: "plain")))])
        let lines = output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasSuffix("starting...") }, "what arrived is shown: \(output)")
        #expect(!lines.contains { $0.contains("starting...") && $0.contains("read timeout") }, "the error has its own line: \(output)")
        #expect(status == 1)
    }

    @Test func savedTranscriptsAreReadableByTheirOwnerOnly() async throws {
        let directory = Scratch.root.appendingPathComponent("reception-save-mode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("talk.md")
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(text: "secret plans \(Self.clipboard)")))] }
        _ = await runREPL(["hello", "/save \(file.path)"], backend: backend)
        let mode = (try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("secret plans") && !text.contains("\u{1B}"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["talk.md"], "no temporary file left behind")
    }

    /// `/save FILE --force` renamed the transcript over whatever FILE was (as
    /// root, `/dev/stdout` was replaced), and a dangling link counted as "no file" even without
    /// --force. Now only a regular file is replaced; anything else is named and left as it is.
    @Test func saveNeverReplacesALinkOrAFIFO() async throws {
        let directory = Scratch.root.appendingPathComponent("reception-save-kind-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let shared = directory + "/shared.txt"
        try "someone else's".write(toFile: shared, atomically: false, encoding: .utf8)
        let link = directory + "/link.md", dangling = directory + "/dangling.md", fifo = directory + "/pipe.md"
        #expect(symlink(shared, link) == 0 && symlink(directory + "/nowhere.md", dangling) == 0 && mkfifo(fifo, 0o600) == 0)
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(text: "secret plans")))] }
        let (output, _, _) = await runREPL(["hello", "/save \(link) --force", "/save \(dangling)", "/save \(fifo) --force"], backend: backend)
        #expect(output.contains("\(link) is a symbolic link, not a regular file; /save replaces only a regular file"), "\(output)")
        #expect(output.contains("\(dangling) is a symbolic link, not a regular file"), "\(output)")
        #expect(output.contains("\(fifo) is a named pipe (FIFO), not a regular file"), "\(output)")
        #expect(!output.contains("Saved"), "\(output)")
        func kind(_ path: String) -> mode_t { var info = stat(); return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0 }
        #expect(kind(link) == S_IFLNK && kind(dangling) == S_IFLNK && kind(fifo) == S_IFIFO, "each is still what it was")
        #expect(try String(contentsOfFile: shared, encoding: .utf8) == "someone else's")
        #expect(!FileManager.default.fileExists(atPath: directory + "/nowhere.md"), "nothing written through the dangling link")
    }
}

@Suite("Status line")
struct SpinnerLineTests {
    @Test func theSpinnerLineNeverWrapsOnANarrowTerminal() {
        let long = "best match: a-very-long-knowledge-file-name.md § " + String(repeating: "A heading that goes on ", count: 8)
        for columns in [40, 80, 120] {
            let line = Console.spinnerLine(frame: "⠋", label: long, columns: columns)
            #expect(TerminalWidth.of(line) <= columns - 1, "\(columns): \(line)")
            #expect(line.hasPrefix("⠋ best match"))
        }
        #expect(Console.spinnerLine(frame: "⠋", label: "working…", columns: 80) == "⠋ working…  (Ctrl-C cancels)")
        #expect(TerminalWidth.of(Console.spinnerLine(frame: "⠋", label: String(repeating: "日本", count: 40), columns: 80)) <= 79)
    }

    /// A progress line clears the spinner; with the next step's label it is back at once, not
    /// only at a tick that a busy machine can keep waiting for a second or more.
    @Test func aNewLabelAfterALineRedrawsTheSpinnerAtOnce() async {
        let written = Mutex<[String]>([])
        let console = Console(mode: .styled, sink: { text in written.withLock { $0.append(text) } })
        let ticking = console.startSpinner("working…")
        ticking?.cancel()
        await ticking?.value
        console.line("  · searched 3 passages")
        console.updateSpinner("best match: roses.md § Sun")
        let after = written.withLock { $0.drop { !$0.contains("searched") }.dropFirst().joined() }
        #expect(after.contains("\r\u{1B}[2K") && after.contains("best match: roses.md § Sun"), "\(after.debugDescription)")
        console.updateSpinner("ranking…")
        #expect(!written.withLock { $0.joined() }.contains("ranking"), "a spinner on screen takes a new label at its next tick")
        console.stopSpinner(ticking)
        console.updateSpinner("after the end")
        #expect(!written.withLock { $0.joined() }.contains("after the end"), "a stopped spinner stays stopped")
    }
}

@Suite("Markdown tables")
struct MarkdownTableTests {
    @Test func aTableIsDrawnAsAlignedColumnsNotRawBars() {
        let markdown = """
        Tasks:

        | task | state | query |
        |---|---|---|
        | `e24c96c0` | completed | what is the capital of France? |
        | 75c9 | running | a \\| b |
        after
        """
        let plain = MarkdownText.render(markdown, styled: false)
        #expect(plain == """
        Tasks:

        task      state      query
        ────────  ─────────  ──────────────────────────────
        e24c96c0  completed  what is the capital of France?
        75c9      running    a | b
        after
        """, "\(plain)")
        let styled = MarkdownText.render(markdown, styled: true)
        #expect(!styled.contains("|---|") && styled.contains("\u{1B}[1m"), "the header is bold")
    }

    /// The soul's findings title heads the findings in the REPL as in `soul preview` (the REPL
    /// dropped it, so findings read as more items of the answer's own list).
    @Test func theFindingsTitleHeadsTheFindings() async throws {
        var soul = Soul(name: "titled")
        soul.titles.findings = "What I have found"
        soul.verbosity = .detailed
        let backend = ScriptedBackend { _ in
            [.event(.result(BackendResult(outcome: .complete, findings: [Finding(content: "Six hours a day.", source: "garden.md")], text: "Roses like sun.")))]
        }
        let (output, _, _) = await runREPL(["how much sun?"], backend: backend, middleware: [PersonalityMiddleware(store: SoulStore(soul))])
        #expect(output.contains("What I have found\n  - Six hours a day."), "\(output)")
    }
}
