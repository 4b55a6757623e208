import Foundation
import ReceptionCore
import ReceptionREPL
import ReceptionTesting
import Synchronization
import Testing

/// Plays typed lines to the REPL, then end of input.
final class ScriptedLineReader: LineReader {
    private let lines: Mutex<[String]>
    init(_ lines: [String]) { self.lines = Mutex(lines) }
    func readLine(prompt: String) async -> LineInput {
        lines.withLock { $0.isEmpty ? .endOfInput : .line($0.removeFirst()) }
    }
    func remember(_ line: String) {}
}

/// Everything the REPL printed.
final class Transcript: Sendable {
    private let text = Mutex("")
    func append(_ chunk: String) { text.withLock { $0 += chunk } }
    var all: String { text.withLock { $0 } }
}

/// Runs the REPL library (no binary, no terminal) on a scripted backend and returns what it printed.
func runREPL(_ lines: [String], backend: ScriptedBackend, mode: OutputMode = .plain, middleware: [any Middleware] = [],
             commands: [BackendCommand] = [],
             afterTask: (@Sendable (BackendResult) async -> BackendQuestion?)? = nil) async -> (output: String, state: SessionState, status: Int32) {
    let plugin = BackendPlugin(kind: "scripted", summary: "test", connect: { _, _ in
        BackendConnection(backend: backend, commands: commands, afterTask: afterTask)
    })
    let catalog = BackendCatalog(plugins: [plugin], environment: .standard(["HOME": "/nonexistent"]))
    let transcript = Transcript()
    let repl = REPL(configuration: .init(mode: mode, trustLevel: 1, initialBackend: "scripted"),
                    reader: ScriptedLineReader(lines), console: Console(mode: mode, sink: { transcript.append($0) }),
                    middleware: middleware, catalog: catalog, souls: nil)
    let status = await repl.run()
    return (transcript.all, await repl.snapshot, status)
}

@Suite("REPL sessions through the library seams")
struct REPLSessionTests {
    @Test func aStreamedAnswerIsShownOnceAndKeptInHistory() async throws {
        let backend = ScriptedBackend(capabilities: [.textStreaming]) { _ in
            [.event(.textDelta("The Nozomi ")), .event(.textDelta("takes 2 h 15 min.")),
             .event(.result(BackendResult(text: "The Nozomi takes 2 h 15 min.", textWasStreamed: true)))]
        }
        let (output, state, status) = await runREPL(["how long to Kyoto?", "/history"], backend: backend)
        #expect(status == 0)
        #expect(output.components(separatedBy: "takes 2 h 15 min.").count == 2, "printed exactly once:\n\(output)")
        #expect(state.turns.map(\.summary) == ["The Nozomi takes 2 h 15 min."])
        #expect(output.contains("1. how long to Kyoto?"))
    }

    /// An HTTP error thrown by a backend names the backend: a bare "HTTP 500: Internal Server
    /// Error" did not say which server said it.
    @Test func anHTTPErrorNamesTheBackendThatAnsweredIt() async throws {
        let backend = ScriptedBackend { _ in [.fail(BackendError.http(status: 500, detail: "Internal Server Error"))] }
        let (output, _, _) = await runREPL(["crash now"], backend: backend)
        #expect(output.contains("error: The scripted server answered HTTP 500: Internal Server Error"), "\(output)")
    }

    /// On a backend that makes no plans, level 0 promises none and /help offers no /approve
    /// (it said "a plan first, /approve runs it", and the message ran at once).
    @Test func trustAndHelpOfferOnlyWhatTheBackendDoes() async throws {
        let backend = ScriptedBackend(capabilities: []) { _ in [.event(.result(BackendResult(text: "ran at once")))] }
        let (output, _, _) = await runREPL(["/trust 0", "/help"], backend: backend)
        #expect(output.contains("Trust level 0 — supervised: the scripted backend makes no plans, so messages still run at once."), "\(output)")
        #expect(!output.contains("/approve") && !output.contains("/reject") && !output.contains("/cancel"), "\(output)")
        let planning = ScriptedBackend(capabilities: [.planApproval, .cancellation]) { _ in [.event(.result(BackendResult(text: "x")))] }
        let (offered, _, _) = await runREPL(["/trust 0", "/help"], backend: planning)
        #expect(offered.contains("a plan first, /approve runs it") && offered.contains("  /approve") && offered.contains("  /cancel"), "\(offered)")
    }

    /// "/trust 1 2" set level 1 and dropped the 2 unsaid, and "/followups x" before any answer
    /// said there were no follow-ups yet, not that x is no number: both are usage errors now,
    /// and the level is unchanged.
    @Test func aCommandGivenWordsItDoesNotTakeSaysSo() async throws {
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(text: "x")))] }
        let (output, state, _) = await runREPL(["/trust 2", "/trust 1 2", "/followups x", "/followups 1 2"], backend: backend)
        #expect(output.contains("Trust level must be 0, 1 or 2 (/trust LEVEL)."), "\(output)")
        #expect(state.trustLevel == 2, "unchanged by the refused command")
        #expect(output.components(separatedBy: "Usage: /followups [N]").count == 3 && !output.contains("No answer yet"), "\(output)")
    }

    /// "/new trip to Kyoto" started an empty conversation and dropped the words unsaid, and
    /// "/intent clear please" cleared: a command that takes no words now refuses them and
    /// changes nothing, while "/quit bye" still leaves.
    @Test func aCommandThatTakesNoWordsRefusesThemAndChangesNothing() async throws {
        let backend = ScriptedBackend { request in [.event(.result(BackendResult(text: "answer to \(request.text)")))] }
        let (output, state, status) = await runREPL(["first question", "/new trip to Kyoto", "/history now", "/intent set decision",
                                                     "/intent clear please", "/intent", "second question", "/quit bye", "never sent"], backend: backend)
        #expect(status == 0)
        #expect(output.contains("/new takes no words: type /new alone. Your first message then goes in the new conversation."), "\(output)")
        #expect(output.contains("/history takes no words: type /history alone."), "\(output)")
        #expect(output.contains("Usage: /intent clear (it takes no more words)"), "\(output)")
        let received = backend.received
        #expect(received.map(\.text) == ["first question", "second question"], "/quit bye left before the last line")
        #expect(received.last?.conversation.map(\.query) == ["first question"], "the refused /new kept the conversation")
        #expect(output.contains("Next message: intent decision, urgency (classifier)."), "the refused /intent clear kept the label set by hand:\n\(output)")
        #expect(state.turns.count == 2)
    }

    /// `/save` wrote the screen's rendering: a one-word code span lost its backticks (so
    /// `*_old_*` read as emphasis in the file) and a table became aligned columns. It now
    /// writes the answer's Markdown; the screen still shows it rendered.
    @Test func saveWritesTheAnswersMarkdownNotItsRendering() async throws {
        let answer = "Rename `*_old_*` first.\n\n| step | time |\n|---|---|\n| build | 8 min |"
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(text: answer)))] }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reception-save-\(UUID().uuidString).md")
        defer { try? FileManager.default.removeItem(at: file) }
        let (output, _, _) = await runREPL(["what first?", "/save \(file.path)"], backend: backend)
        #expect(output.contains("Saved 2 entries"), "\(output)")
        #expect(!output.contains("`*_old_*`") && !output.contains("|---|"), "the screen shows it rendered:\n\(output)")
        let saved = try String(contentsOf: file, encoding: .utf8)
        #expect(saved.contains("## Reception\n\n" + answer + "\n"), "\(saved)")
    }

    @Test func blocksBecomeMarkdownWithTheirTitlesBoldAndFindingsListed() {
        let blocks = [DisplayBlock(role: .summary, title: "Answer *now*", markdown: "Use `ls -la`."),
                      DisplayBlock(role: .finding, title: "Findings", markdown: "first line\nsecond line"),
                      DisplayBlock(role: .finding, markdown: "`x` is 2"),
                      DisplayBlock(role: .followups, title: "Next", items: ["why?", "how?"])]
        #expect(BlockPrinter.markdown(for: blocks) == """
        **Answer \\*now\\***

        Use `ls -la`.

        **Findings**

        - first line
          second line
        - `x` is 2

        **Next**

        1. why?
        2. how?
        """)
    }

    /// A backend's commands show their arguments the way the REPL's own do, in the command
    /// column (they were in the summary, or missing), and `/help NAME` shows them too.
    @Test func helpShowsABackendCommandsArgumentsInTheCommandColumn() async throws {
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(text: "x")))] }
        let commands = [
            BackendCommand(name: "/things", arguments: "[list | get ID]", summary: "the server's things", usage: "/things list\n/things get ID") { _ in "" },
            BackendCommand(name: "/everything", arguments: "[a very long list | of arguments | that | will not fit]", summary: "all of it", usage: "u") { _ in "" },
        ]
        let (output, _, _) = await runREPL(["/help", "/help things"], backend: backend, commands: commands)
        let rows = output.split(separator: "\n").map(String.init)
        let own = try #require(rows.first { $0.hasPrefix("  /trust [0 | 1 | 2]") })
        let things = try #require(rows.first { $0.hasPrefix("  /things [list | get ID]") }, "\(output)")
        #expect(things.firstRange(of: "the server's things")?.lowerBound.utf16Offset(in: things) == own.firstRange(of: "show or set")?.lowerBound.utf16Offset(in: own),
                "the backend's summaries line up with the REPL's own:\n\(output)")
        let long = try #require(rows.firstIndex { $0 == "  /everything [a very long list | of arguments | that | will not fit]" }, "\(output)")
        #expect(rows[long + 1].trimmingCharacters(in: .whitespaces) == "all of it", "a long one has its summary on the next line:\n\(output)")
        #expect(output.contains("/things [list | get ID]: the server's things"), "\(output)")
    }

    @Test func everyRequestCarriesTheConversationSoFar() async throws {
        let backend = ScriptedBackend { request in [.event(.result(BackendResult(outcome: .complete, text: "answer to \(request.text)")))] }
        _ = await runREPL(["first question", "/goal plan a trip", "second question"], backend: backend)
        let received = backend.received
        #expect(received.count == 2)
        #expect(received[0].conversation.isEmpty)
        #expect(received[1].conversation == [ConversationTurn(query: "first question", outcome: .complete, summary: "answer to first question")])
        #expect(received[1].goal == "plan a trip" && received[1].trustLevel == 1)
        #expect(received[0].sessionID == received[1].sessionID && !received[0].sessionID.isEmpty)
    }

    @Test func aStreamThatEndsWithoutAResultIsSaidAndItsTextIsKept() async throws {
        let backend = ScriptedBackend(capabilities: [.textStreaming]) { _ in [.event(.textDelta("half an answer"))] }
        let (output, state, _) = await runREPL(["hello"], backend: backend)
        #expect(output.contains("half an answer"))
        #expect(output.contains("ended its answer without a result"), "\(output)")
        #expect(state.turns.first?.summary == "half an answer")
    }

    @Test func aPlanWaitsForApproveAndRunsOnce() async throws {
        let backend = ScriptedBackend(capabilities: [.planApproval]) { request in
            if case .approve = request.action { return [.event(.result(BackendResult(text: "ran the plan")))] }
            return [.event(.planAwaitingApproval(Plan(taskID: request.id, summary: "Search the notes", steps: [PlanStep("search")])))]
        }
        let (output, state, _) = await runREPL(["/trust 0", "find my notes", "/approve", "/approve"], backend: backend)
        #expect(output.contains("Search the notes"))
        #expect(output.contains("ran the plan"))
        #expect(output.contains("No plan is waiting for approval."), "a second /approve has nothing to run:\n\(output)")
        #expect(state.turns.count == 1)
    }

    /// `/history` lists every message sent, however it ended, not only the answered ones.
    @Test func historyListsMessagesThatWereNotAnsweredToo() async throws {
        let backend = ScriptedBackend(capabilities: [.planApproval]) { request in
            if case .approve = request.action { return [.event(.result(BackendResult(outcome: .bounded, text: "ran the plan")))] }
            switch request.text {
            case "answer me": return [.event(.result(BackendResult(outcome: .complete, text: "here")))]
            case "break the transport": return [.fail(BackendError.http(status: 502, detail: "Bad Gateway"))]
            case "fail the task": return [.event(.failure(TaskFailure(message: "the engine gave up")))]
            default: return [.event(.planAwaitingApproval(Plan(taskID: request.id, summary: "Plan for \(request.text)")))]
            }
        }
        let lines = ["answer me", "break the transport", "fail the task", "/trust 0", "plan one", "/reject", "plan two", "/history",
                     "/approve", "/history"]
        let (output, state, _) = await runREPL(lines, backend: backend)
        #expect(state.turns.count == 2, "the conversation engines see holds the answered ones only")
        let listed = output.split(separator: "\n").filter { $0.first?.isNumber == true && $0.contains(" → ") }
        #expect(listed.count == 10, "two listings of five:\n\(output)")
        #expect(listed.prefix(5).map { $0.components(separatedBy: " → ").last! } ==
                ["complete", "failed", "failed", "plan rejected", "plan waiting for /approve"], "\(listed)")
        #expect(listed.prefix(5).map { $0.prefix(while: { $0 != " " }) } == ["1.", "2.", "3.", "4.", "5."], "\(listed)")
        #expect(listed[1].hasPrefix("2. break the transport"), "\(listed)")
        #expect(listed[9].hasPrefix("5. plan two") && listed[9].hasSuffix("→ bounded"), "\(listed)")
        #expect(state.messages.map(\.status) == ["complete", "failed", "failed", "plan rejected", "bounded"], "approving updates the same entry")
        #expect(state.messages.count == 5)
    }

    /// A message of several lines is listed as one item: its later lines under its first,
    /// not at the margin where they read as items of their own.
    @Test func historyIndentsTheLaterLinesOfAMessage() async throws {
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(outcome: .complete, text: "ok")))] }
        let (output, _, _) = await runREPL(["how do I write \\", "a soul file?", "/history"], backend: backend)
        #expect(output.contains("1. how do I write \n   a soul file? → complete"), "\(output)")
    }

    /// One plan waits at a time: a second replaces the first, which is said, and /history
    /// does not go on calling the first one waiting.
    @Test func aSecondPlanReplacesTheFirstAndSaysSo() async throws {
        let backend = ScriptedBackend(capabilities: [.planApproval]) { request in
            if case .approve = request.action { return [.event(.result(BackendResult(outcome: .complete, text: "ran \(request.text)")))] }
            return [.event(.planAwaitingApproval(Plan(taskID: request.id, summary: "Plan for \(request.text)")))]
        }
        let (output, state, _) = await runREPL(["/trust 0", "first idea", "second idea", "/approve", "/approve"], backend: backend)
        #expect(output.contains("The plan for “first idea” was not approved and is replaced by this one; it will not run."), "\(output)")
        #expect(output.contains("ran second idea") && !output.contains("ran first idea"), "\(output)")
        #expect(state.messages.map(\.status) == ["plan replaced, not run", "complete"])
        // Leaving with a plan still waiting says it will not run.
        let (left, leftState, _) = await runREPL(["/trust 0", "third idea"], backend: backend)
        #expect(left.contains("The plan for “third idea” was not approved; it will not run."), "\(left)")
        #expect(leftState.messages.map(\.status) == ["plan not approved, not run"])
    }

    /// `/backend` lists the backends in one column, the current one marked.
    @Test func theBackendListMarksTheCurrentOneInItsColumn() async throws {
        let backend = ScriptedBackend { _ in [] }
        let (output, _, _) = await runREPL(["/backend"], backend: backend)
        #expect(output.contains("→ scripted — test"), "\(output)")
        #expect(!output.split(separator: "\n").contains { $0.hasPrefix("- ") || $0.hasPrefix("• ") }, "no list bullet: \(output)")
    }

    @Test func cancelOnAPlanPointsToReject() async throws {
        let backend = ScriptedBackend(capabilities: [.planApproval, .cancellation]) { request in
            [.event(.accepted(taskID: request.id, status: .awaitingApproval)),
             .event(.planAwaitingApproval(Plan(taskID: request.id, summary: "Search the notes")))]
        }
        let (output, _, _) = await runREPL(["/trust 0", "find my notes", "/cancel"], backend: backend)
        #expect(output.contains("is a plan waiting for approval, not a running task: /reject drops it."), "\(output)")
    }

    @Test func requestShowsWhatTheBackendReceived() async throws {
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(text: "ok")))] }
        let (output, _, _) = await runREPL(["what is up?", "/request"], backend: backend)
        #expect(output.contains("\"text\" : \"what is up?\""), "\(output)")
        #expect(output.contains("\"trust_level\" : 1"), "\(output)")
    }

    @Test func anUnknownBackendIsAnErrorWithADidYouMean() async throws {
        let backend = ScriptedBackend { _ in [] }
        let (output, _, _) = await runREPL(["/backend scriptd"], backend: backend)
        #expect(output.contains("Unknown backend \"scriptd\". Did you mean scripted?"), "\(output)")
    }

    /// A switch that fails says where the next message goes: the old backend still answers,
    /// and its answer was taken for the new one's.
    @Test func aFailedSwitchSaysWhichBackendStillAnswers() async throws {
        let backend = ScriptedBackend { _ in [] }
        let (output, _, _) = await runREPL(["/backend scriptd"], backend: backend)
        #expect(output.contains("Known: scripted. Still on the scripted backend."), "\(output)")
    }
}

/// How typed lines become messages, and `/help` as a script reads it.
@Suite("REPL lines and help as scripts read them")
struct REPLLineTests {
    /// A trailing backslash continues the message (a script's way to send several lines); a
    /// doubled one is a backslash that ends the line, so "C:\temp\\" is sent as it reads.
    @Test func aTrailingBackslashContinuesAndADoubledOneEndsTheLine() async throws {
        let backend = ScriptedBackend { request in [.event(.result(BackendResult(outcome: .complete, text: "got [\(request.text)]")))] }
        let (output, _, _) = await runREPL(["first line\\", "second line", #"where is C:\temp\\"#, "what can you do?"], backend: backend)
        #expect(output.contains("got [first line\nsecond line]"), "\(output)")
        #expect(output.contains(#"got [where is C:\temp\]"#), "\(output)")
        #expect(output.contains("got [what can you do?]"), "a message of its own: \(output)")
        // Continued, then the end of the input: still sent, not dropped without a word.
        let (last, _, _) = await runREPL(["hello", "one more\\"], backend: backend)
        #expect(last.contains("got [one more]"), "\(last)")
    }

    /// `--json` makes every line of output one JSON object, `/help` included.
    @Test func helpInJSONModeIsOneEvent() async throws {
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(text: "x")))] }
        let (output, _, _) = await runREPL(["/help"], backend: backend, mode: .json)
        let lines = output.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
        }
        #expect(output.contains("/history"), "\(output)")
    }

    /// `/raw` shows the engine's findings with its text: a terse soul leaves them out and its
    /// note sends the reader there.
    @Test func rawShowsTheFindingsToo() async throws {
        let backend = ScriptedBackend { _ in
            [.event(.result(BackendResult(outcome: .complete, findings: [Finding(content: "Closed on Mondays.", source: "museum.md")],
                                          text: "The museum has changed its hours.")))]
        }
        let (output, _, _) = await runREPL(["is it open on monday?", "/raw"], backend: backend)
        #expect(output.contains("Findings:\n- Closed on Mondays. (museum.md)"), "\(output)")
    }
}
