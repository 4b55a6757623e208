import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ReceptionTestSupport
import Testing

/// `reception serve loop-symphony` and the REPL on a pseudo-terminal talking to it over
/// 127.0.0.1, through a backend profile in the session's XDG config directory.
@Suite("Loop Symphony through the REPL", .serialized)
struct LoopSymphonyTerminalTests {
    static let prompt = "› "

    /// Starts the reference server on a free port; returns the process and its URL.
    func startServer() async throws -> (Process, String) {
        try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "20", "--keepalive", "1"], url: #"http://127\.0\.0\.1:\d+"#)
    }

    /// A home directory whose backends.json names the server, with the key in a 0600 file.
    func home(for url: String, trustLevel: Int? = nil) throws -> URL {
        let home = Scratch.root.appendingPathComponent("reception-ls-e2e-\(UUID().uuidString)")
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let key = config.appendingPathComponent("ls.key")
        try "dev-key\n".write(to: key, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        let profiles = #"{"profiles":[{"name":"ls-e2e","kind":"loop-symphony","url":"\#(url)","api_key_file":"\#(key.path)","user_id":"e2e"\#(trustLevel.map { ",\"trust_level\":\($0)" } ?? "")}]}"#
        try profiles.write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        return home
    }

    /// The server's room list, as JSON text.
    func rooms(at url: String) async throws -> String {
        let (data, _) = try await URLSession.shared.data(from: URL(string: url + "/rooms")!)
        return String(decoding: data, as: UTF8.self)
    }

    /// The tasks the server has run or is running (its task manager's list), as JSON text. A
    /// plan awaiting approval is not in it: it waits in the database until approved.
    static func tasksRun(at url: String) async throws -> String {
        var request = URLRequest(url: URL(string: url + "/tasks/recent?limit=100")!)
        request.setValue("dev-key", forHTTPHeaderField: "X-Api-Key")
        let (data, _) = try await URLSession.shared.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }

    /// A session at its prompt whose room the server lists; `leave` ends it, and the room must
    /// be gone afterwards, with the exit status `leave` expects.
    func roomIsDeregistered(when leave: (TerminalSession) -> Void, exitStatus expected: Int32) async throws {
        let (server, url) = try await startServer()
        defer { server.stop() }
        let terminal = try TerminalSession(arguments: ["--backend", "ls-e2e"], home: try home(for: url))
        try await terminal.waitFor(Self.prompt)
        let room = "-\(terminal.pid)-"
        var registered = false
        // The room is registered in the background: up to a minute on a loaded machine.
        for _ in 0..<1_200 where !registered {
            registered = try await rooms(at: url).contains(room)
            if !registered { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(registered, "the session registered its room")
        leave(terminal)
        let status = try await terminal.exitStatus()
        #expect(status == expected, "exit status \(status.map(String.init) ?? "none: still running")")
        #expect(try await !rooms(at: url).contains(room), "the room was deregistered on the way out")
    }

    /// Closing the window: SIGHUP, and every write to the terminal fails with EIO. The REPL
    /// crashed on its first such write (Foundation's FileHandle.write traps), so the room was
    /// left registered and the exit status was a signal's; it now leaves as SIGHUP says.
    @Test func closingTheTerminalDeregistersTheRoomAndExits() async throws {
        try await roomIsDeregistered(when: { $0.hangUp() }, exitStatus: 129)
    }

    /// SIGTERM at the prompt still deregisters the session's room.
    @Test func sigtermDeregistersTheRoomAndExits() async throws {
        try await roomIsDeregistered(when: { kill($0.pid, SIGTERM) }, exitStatus: 143)
    }

    /// A slow slash command gives the prompt back on Ctrl-C, and says so.
    /// The session talks to the server through a relay that notes each request and answer,
    /// so the test knows the tick is at the server before Ctrl-C, and that the prompt came
    /// back before the server answered it (without timing either).
    @Test func ctrlCCancelsASlowSlashCommand() async throws {
        let (server, url) = try await startServer()
        defer { server.stop() }
        let relay = try RequestRelay(to: Int(url.split(separator: ":").last!)!)
        defer { relay.close() }
        let terminal = try TerminalSession(arguments: ["--backend", "ls-e2e"], home: try home(for: "http://127.0.0.1:\(relay.port)"))
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("/heartbeats create Slow one | * * * * * | slow report for {date}")
        at = try await terminal.waitFor("Created heartbeat", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/heartbeats tick")
        // The tick is at the server, which takes 30 s over it, when Ctrl-C is pressed.
        try await eventually("the tick at the server", seen: { "\(relay.all)" }) { !relay.requests(containing: "POST /heartbeats/tick").isEmpty }
        let tick = try #require(relay.requests(containing: "POST /heartbeats/tick").last)
        let pressed = ContinuousClock.now
        terminal.type("\u{03}")
        at = try await terminal.waitFor("/heartbeats cancelled by Ctrl-C", after: at)
        try await terminal.waitFor(Self.prompt, after: at)
        // The prompt did not wait for the tick: no answer to it had passed the relay...
        let notes = relay.all
        let asked = try #require(notes.lastIndex(of: .request(connection: tick.connection, line: tick.line)))
        let answered = notes[asked...].contains { if case .response(tick.connection, _) = $0 { true } else { false } }
        #expect(!answered, "the prompt came back only after the server answered the tick: \(notes[asked...])")
        // ...nor for the client's own 30 s limit on it, which ends as the server's 30 s tick
        // does, so no order of events tells them apart: this one bound stays, twenty times what
        // the cancel takes on a loaded machine and short of what waiting would take.
        #expect(pressed.duration(to: .now) < .seconds(20), "the 30 s tick held the prompt")
        #expect(!terminal.screen[at...].contains("Cannot reach"))
        // And the call was let go of, not left waiting in the background.
        try await eventually("the tick's connection to be closed by the client") { relay.isClosed(tick.connection, byClient: true) }
    }

    @Test func planApproveStreamsInterventionCardsAndTrustOffer() async throws {
        let (server, url) = try await startServer()
        defer { server.stop() }
        let terminal = try TerminalSession(arguments: ["--backend", "ls-e2e"], home: try home(for: url))
        var at = try await terminal.waitFor(Self.prompt)

        // Trust 0: the plan comes first; /approve streams the iterations, then the result.
        terminal.enter("research the best hiking trails near Portland")
        at = try await terminal.waitFor("Multi-iteration research with web search and analysis", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        // Asked at the server: the plan is there, and no task has run (the same list holds the
        // task once it is approved, below).
        let beforeApproval = try await Self.tasksRun(at: url)
        #expect(beforeApproval == "[]", "nothing runs before approval: \(beforeApproval)")
        terminal.enter("/approve")
        at = try await terminal.waitFor("iteration 1: 4 new findings", after: at)
        at = try await terminal.waitFor("iteration 3:", after: at)
        at = try await terminal.waitFor("Reference research answer to: research the best hiking trails near Portland", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        let afterApproval = try await Self.tasksRun(at: url)
        #expect(afterApproval.contains("research the best hiking trails near Portland"), "the approved plan ran: \(afterApproval)")

        // Interventions arrive as cards, not as plain follow-ups.
        terminal.enter("tell me everything about rust")
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/approve")
        let card = try await terminal.waitFor("Could we narrow this down?", after: at)  // the default soul's pushback label
        at = try await terminal.waitFor("This request is very broad. Consider focusing on a specific aspect for better results.", after: card)
        at = try await terminal.waitFor(Self.prompt, after: at)
        #expect(!terminal.screen[card...].contains("[pushback]"), "not printed as a plain follow-up")

        // Three more successes make five: the REPL offers the upgrade and changes nothing until yes.
        terminal.enter("/trust 1")
        at = try await terminal.waitFor(Self.prompt, after: at)
        for n in 1...3 {
            terminal.enter("hello number \(n)")
            at = try await terminal.waitFor("Reference note answer to: hello number \(n)", after: at)
        }
        at = try await terminal.waitFor("5 successful tasks in a row. Enable semi-autonomous mode?", after: at)
        // The session already runs at 1 (/trust 1 above): the question says what a yes still does.
        at = try await terminal.waitFor("a yes makes the server remember it for your next sessions.)", after: at)
        // The question is a line of its own and readline's prompt only "[y/N] ": a long question
        // as the prompt wrapped, and its redraw left the tail on screen.
        let prompt = try await terminal.waitFor("[y/N] ", after: at)
        #expect(terminal.screen[at..<prompt] == "\n[y/N] ", "\(terminal.screen[at..<prompt])")
        at = prompt
        terminal.enter("y")
        at = try await terminal.waitFor("Trust level on the server is now", after: at)
        at = try await terminal.waitFor("This session now sends requests at trust level 1", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/trust-metrics")
        at = try await terminal.waitFor("1 (semi-autonomous)", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/rooms")
        try await terminal.waitFor("(this session)", after: at)
    }
}

/// The backend's slash commands, scripted through a pipe against the reference server.
@Suite("Loop Symphony REPL commands")
struct LoopSymphonyCommandTests {
    /// A level the profile sets explicitly wins over the server's record, and the server that
    /// disagrees is named; without one the server's level is used (an upgrade accepted in one
    /// session is where the next starts); `--trust` wins over both.
    @Test func anExplicitTrustLevelWinsAndTheServerThatDisagreesIsNamed() async throws {
        let helper = LoopSymphonyTerminalTests()
        let (server, url) = try await helper.startServer()
        defer { server.stop() }
        let home = try helper.home(for: url, trustLevel: 0)
        let accepting = try await PipedREPL.run(["--backend", "ls-e2e"], input: "/trust-metrics set 1\n", home: home).output
        #expect(accepting.contains("Server trust level set to **1**") || accepting.contains("Server trust level set to 1"), "\(accepting)")
        let explicit = try await PipedREPL.run(["--backend", "ls-e2e"], input: "hello profile\n/trust\n", home: home).output
        #expect(explicit.contains("keeps trust level 1 (semi-autonomous) for this app and user; this session sends level 0 (supervised), as the profile's trust_level ("),
                "the server that disagrees is named: \(explicit)")
        #expect(explicit.contains("/approve to run it") && !explicit.contains("Reference note answer to: hello profile"),
                "the profile's 0 wins: a plan first: \(explicit)")
        let unset = try helper.home(for: url)
        let fromServer = try await PipedREPL.run(["--backend", "ls-e2e"], input: "hello profile\n/trust\n", home: unset).output
        #expect(fromServer.contains("Reference note answer to: hello profile"), "no level in the profile: the server's 1 runs at once: \(fromServer)")
        #expect(fromServer.contains("Trust level 1") && !fromServer.contains("keeps trust level"), "\(fromServer)")
        let chosen = try await PipedREPL.run(["--backend", "ls-e2e", "--trust", "0"], input: "hello profile\n/trust\n", home: unset).output
        #expect(chosen.contains("/approve to run it, /reject to drop it") && !chosen.contains("Type /approve"), "--trust 0 wins over the server: a plan first, its instructions said once")
        #expect(chosen.contains("as you chose (--trust)"), "\(chosen)")
        #expect(!chosen.contains("Reference note answer to: hello profile"))
    }

    @Test func everyCommandGroupAnswers() async throws {
        let helper = LoopSymphonyTerminalTests()
        let (server, url) = try await helper.startServer()
        defer { server.stop() }
        let home = try helper.home(for: url)
        let script = """
        research rust async runtimes
        /tasks recent
        /tasks stats
        /health
        /trust-metrics
        /knowledge capabilities
        /knowledge add patterns Mornings -- Asks for news at seven
        /knowledge entries patterns
        /knowledge learn Prefers tables -- Likes answers as tables
        /knowledge aggregate
        /rooms beat
        /knowledge cached news
        /knowledge sync
        /rooms
        /heartbeats create Morning | 0 7 * * * | News for {date}?
        /heartbeats list
        /heartbeats tick
        /heartbeats status
        /arrangements plan find flights and compare prices
        /loops plan fact check a claim
        /novel research and summarize tides
        /arrangements suggestion
        /interventions evaluate tell me everything about go
        /interventions
        /quit

        """
        let (output, status) = try await PipedREPL.run(["--backend", "ls-e2e", "--plain", "--trust", "1"], input: script, home: home)
        #expect(status == 0)
        let missing = [
            "Reference research answer to: research rust async runtimes", "completed  Completed  research rust async runtimes",
            "0 active, 1 in total", "/health           ok, version 0.1.0", "1 (1 succeeded, 0 did not)", "The research instrument iterates",
            "Added Mornings to patterns", "Mornings (patterns, manual) — Asks for news at seven", "accepted 1 learning ",
            "Aggregated 1 learning: 1 created", "Heartbeat sent; knowledge now at version", "Mornings (patterns, v",
            "Server knowledge version", "(this session)", "Created heartbeat Morning", "runs at `0 7 * * *` UTC", "Ran 1 of 1 active heartbeat:", "ended complete",
            "Morning", "sequential arrangement", "research → synthesis", "reference_loop", "Plan: about 4 iterations",
            "Novel arrangement task submitted", "no arrangement to suggest", "pushback: This request is very broad", "Up to 3 interventions per task",
        ].filter { !output.contains($0) }
        #expect(missing.isEmpty, "missing \(missing) from:\n\(output)")
        #expect(output.components(separatedBy: "Mornings (patterns, v").count == 2, "the cache holds the entry once")
        #expect(FileManager.default.fileExists(atPath: home.path + "/.local/share/reception/loop-symphony/ls-e2e.sqlite"),
                "the knowledge cache is under $HOME/.local/share")
        #expect(!output.contains("dev-key"), "the API key is never printed")
    }

    /// Two sessions on one profile share its knowledge cache file, created by both at once.
    @Test func twoSessionsOnOneProfileShareTheCache() async throws {
        let helper = LoopSymphonyTerminalTests()
        let (server, url) = try await helper.startServer()
        defer { server.stop() }
        let home = try helper.home(for: url)
        let script = "/rooms beat\n/knowledge cached research\n/quit\n"
        async let one = Task.detached { try await PipedREPL.run(["--backend", "ls-e2e", "--plain"], input: script, home: home) }.value
        async let two = Task.detached { try await PipedREPL.run(["--backend", "ls-e2e", "--plain"], input: script, home: home) }.value
        for (output, status) in try await [one, two] {
            #expect(status == 0)
            #expect(output.contains("Research (capabilities, v"), "each session lists the cached entry:\n\(output)")
            #expect(!output.contains("could not be opened"))
        }
    }
}
