import Foundation
import ReceptionTestSupport
import Synchronization
import Testing

/// Messages sent while the engine is unreachable are queued on
/// disk; the REPL is killed with SIGKILL while they wait; after a restart against the server,
/// every one of them reaches the engine exactly once, in order, and the queue is empty.
@Suite("Offline queue end to end", .serialized)
struct OfflineQueueEndToEndTests {
    static let messages = ["alpha queued note", "bravo queued note", "charlie queued note"]

    func home(url: String) throws -> URL {
        let home = Scratch.root.appendingPathComponent("reception-queue-e2e-\(UUID().uuidString)")
        try point(home, at: url)
        return home
    }

    /// Writes (or rewrites) the `ls-queue` profile in `home`'s backends.json.
    func point(_ home: URL, at url: String) throws {
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let profiles = #"{"profiles":[{"name":"ls-queue","kind":"loop-symphony","url":"\#(url)","user_id":"e2e","trust_level":1}]}"#
        try profiles.write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
    }

    /// A session at a terminal, retrying every second, whose server is not there yet: `message`
    /// is typed and queued, and the prompt is back. Returns where the screen stands.
    func queuedAtAPrompt(_ message: String) async throws -> (TerminalSession, port: Int, at: String.Index) {
        let port = try unusedLoopbackPort()
        let home = try home(url: "http://127.0.0.1:\(port)")
        let terminal = try TerminalSession(arguments: ["--backend", "ls-queue", "--trust", "1", "--queue-retry", "1"], home: home)
        var at = try await terminal.waitFor("› ")
        terminal.enter(message)
        at = try await terminal.waitFor("queued (1 waiting)", after: at)
        at = try await terminal.waitFor("› ", after: at)
        return (terminal, port, at)
    }

    /// At the prompt, with a message queued: the REPL tries it again while the person is idle
    /// (saying nothing while the server stays down), never while a line is half typed, and
    /// sends it once the server answers, without the person typing anything.
    ///
    /// The port first holds a `ResettingPort`: connections are taken (the REPL's probe finds
    /// something there) and reset (each retry fails as unreachable), and each arrival is noted,
    /// so the test waits for retries that happened rather than for time that passed.
    @Test func aQueuedMessageGoesWhileThePersonIsIdleOnceTheServerAnswers() async throws {
        let (terminal, port, queuedAt) = try await queuedAtAPrompt("idle retry note")
        var at = queuedAt
        let down = try ResettingPort(port: port)
        var downClosed = false
        defer { if !downClosed { down.close() } }
        // A retry asks the server about the queued task first (`GET /task/ID`: it may have
        // arrived before), then sends it (`POST /task`): either is a retry that took the prompt.
        let retries = { down.requests("GET /task/") + down.requests("POST /task ") }
        // Three retries that reached the port and failed: not a word.
        try await eventually("three quiet retries", seen: { "Arrived: \(down.arrivals)" }) { retries() >= 3 }
        // Typed after them, so its echo comes after anything they printed.
        terminal.type("half typed")
        at = try await terminal.waitFor("half typed", after: at)
        let quiet = terminal.screen[queuedAt..<at]
        #expect(!quiet.contains("Sending") && !quiet.contains("unreachable") && !quiet.contains("queued"), "\(quiet)")

        // A half-typed line is never interrupted: the REPL still probes the port (and finds it
        // taking connections) but does not take the prompt to send.
        let retriesWhenTyped = retries()
        let probesWhenTyped = down.probes
        try await eventually("two probes while the line is half typed", seen: { "Arrived: \(down.arrivals)" }) {
            down.probes >= probesWhenTyped + 2
        }
        #expect(retries() == retriesWhenTyped, "a line being typed was interrupted to send: \(down.arrivals)")
        #expect(!terminal.screen[at...].contains("Sending"), "a line being typed was interrupted: \(terminal.screen[at...])")

        // The server comes up; Ctrl-U empties the line, and the next retry sends.
        down.close()
        downClosed = true
        let (server, _) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "5"], url: #"http://127\.0\.0\.1:\d+"#, port: port)
        defer { server.stop() }
        terminal.type("\u{15}")  // Ctrl-U: the line is empty again
        at = try await terminal.waitFor("Sending 1 queued message to ls-queue", after: at)
        at = try await terminal.waitFor("answer to: idle retry note", after: at)
        at = try await terminal.waitFor("› ", after: at)
        terminal.enter("/queue")
        try await terminal.waitFor("The offline queue is empty.", after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }

    /// Keys typed while an idle retry's answer arrives are not echoed into it: they wait, and
    /// appear on the next prompt's line, ready to go on typing.
    @Test func keysTypedDuringAnIdleRetryWaitForTheNextPrompt() async throws {
        let (terminal, port, queuedAt) = try await queuedAtAPrompt("estuary note")
        var at = queuedAt
        let (server, _) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "1500"], url: #"http://127\.0\.0\.1:\d+"#, port: port)
        defer { server.stop() }
        at = try await terminal.waitFor("Sending 1 queued message to ls-queue", after: at)
        terminal.type("next thought")
        let answered = try await terminal.waitFor("answer to: estuary note", after: at, timeout: .seconds(60))
        #expect(!terminal.screen[at..<answered].contains("next thought"), "typed keys were echoed into the answer: \(terminal.screen[at...])")
        try await terminal.waitFor("› next thought", after: answered)
        terminal.type("\u{15}")  // Ctrl-U
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }

    /// While the server stays down, each new message joins the queue without the older ones
    /// being tried again aloud; `/queue` in JSON mode is JSON like every other line.
    @Test func offlineMessagesQueueQuietlyAndJSONModeStaysJSON() async throws {
        let home = try home(url: "http://127.0.0.1:\(try unusedLoopbackPort())")
        let (output, status) = try await PipedREPL.run(["--backend", "ls-queue", "--trust", "1"],
                                                  input: "first offline note\nsecond offline note\nthird offline note\n", home: home)
        #expect(status == 0, "\(output)")
        #expect(output.contains("queued (3 waiting)"), "\(output)")
        #expect(!output.contains("Sending") && !output.contains("still unreachable"), "no retry noise between messages: \(output)")
        let (json, _) = try await PipedREPL.run(["--backend", "ls-queue", "--json"], input: "/queue\n", home: home)
        let lines = json.split(separator: "\n").filter { !$0.isEmpty }
        #expect(!lines.isEmpty)
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
        }
        #expect(json.contains("3 queued messages, oldest first"), "\(json)")
        // The two held behind the first were never tried, and say so rather than a "last attempt".
        #expect(json.components(separatedBy: "not tried yet: it waits behind older messages").count - 1 == 2, "\(json)")
    }

    /// Ctrl-C on a queued message being sent is "not this one": it leaves the queue, and the
    /// person hears how many still wait.
    @Test func aQueuedMessageCancelledWhileSentLeavesTheQueue() async throws {
        let port = try unusedLoopbackPort()
        let home = try home(url: "http://127.0.0.1:\(port)")
        _ = try await PipedREPL.run(["--backend", "ls-queue", "--trust", "1"], input: "slow research of rivers\nwhat is two plus two\n", home: home)
        let (server, _) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "2000"], url: #"http://127\.0\.0\.1:\d+"#, port: port)
        defer { server.stop() }
        let terminal = try TerminalSession(arguments: ["--backend", "ls-queue", "--trust", "1"], home: home)
        var at = try await terminal.waitFor("ago: slow research of rivers")
        try await terminal.waitUntil("the spinner") { _ in terminal.rawOutput.contains("(Ctrl-C cancels)") }
        terminal.type("\u{03}")
        at = try await terminal.waitFor("Dropped from the queue, since you cancelled it. 1 more waits; /queue flush sends it.", after: at)
        at = try await terminal.waitFor("› ", after: at)
        terminal.enter("/queue")
        at = try await terminal.waitFor("1 queued message, oldest first:", after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
        let (listed, _) = try await PipedREPL.run(["queue"], input: "", home: home)
        #expect(listed.contains("what is two plus two") && !listed.contains("slow research of rivers"), "\(listed)")
    }

    /// Dropping, from the shell, a message a running session is sending: allowed, with a warning
    /// that it may already be with the engine.
    @Test func droppingAMessageARunningSessionSendsWarns() async throws {
        let port = try unusedLoopbackPort()
        let home = try home(url: "http://127.0.0.1:\(port)")
        _ = try await PipedREPL.run(["--backend", "ls-queue", "--trust", "1"], input: "slow research of tides\n", home: home)
        let (server, _) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "2000"], url: #"http://127\.0\.0\.1:\d+"#, port: port)
        defer { server.stop() }
        let terminal = try TerminalSession(arguments: ["--backend", "ls-queue", "--trust", "1"], home: home)
        _ = try await terminal.waitFor("ago: slow research of tides")
        try await terminal.waitUntil("the spinner") { _ in terminal.rawOutput.contains("(Ctrl-C cancels)") }
        let (dropped, errors, status) = try await PipedREPL.run(["queue", "drop", "1"], input: "", home: home, separateErrors: true)
        #expect(status == 0 && dropped.contains("Dropped 1 queued message; 0 left."), "\(dropped)\(errors)")
        #expect(errors.contains("warning: “slow research of tides” is being sent by a running Reception (process \(terminal.pid)); dropping it here does not stop it on the server."),
                "\(errors)")
        terminal.type("\u{03}")
        terminal.enter("/quit")
        _ = try await terminal.exitStatus()
    }

    /// A session sends queued messages as it starts, before anything can be typed:
    /// `reception queue` shows and drops them first, without a session and without sending.
    @Test func theQueueIsReadAndDroppedWithoutStartingASession() async throws {
        let url = "http://127.0.0.1:\(try unusedLoopbackPort())"
        let home = try home(url: url)
        let arguments = ["--backend", "ls-queue", "--trust", "1"]
        _ = try await PipedREPL.run(arguments, input: "keep this one\nregret this one\n", home: home)

        let (listed, listStatus, _) = try await run(["queue"], home: home)
        #expect(listStatus == 0)
        #expect(listed.contains("2 queued messages, oldest first:"), "\(listed)")
        #expect(listed.contains("1. ") && listed.contains("ls-queue · keep this one · for \(url)"), "\(listed)")
        #expect(listed.contains("2. ") && listed.contains("ls-queue · regret this one"), "\(listed)")

        let (_, missingStatus, missing) = try await run(["queue", "drop", "3"], home: home)
        #expect(missingStatus == 1 && missing.contains("There is no queued message 3; the queue holds 2"), "\(missing)")
        let (dropped, dropStatus, _) = try await run(["queue", "drop", "2"], home: home)
        #expect(dropStatus == 0 && dropped.contains("Dropped 1 queued message; 1 left."), "\(dropped)")

        let (server, _) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "5"], url: #"http://127\.0\.0\.1:\d+"#,
                                                           port: Int(url.split(separator: ":").last!)!)
        defer { server.stop() }
        let (restarted, _) = try await PipedREPL.run(arguments, input: "/tasks recent\n", home: home)
        #expect(restarted.contains("Sending 1 queued message to ls-queue"), "\(restarted)")
        #expect(restarted.contains("ago: keep this one"), "\(restarted)")
        #expect(!restarted.contains("regret this one"), "the dropped one never left: \(restarted)")

        // Nothing queued, no file: reading an empty queue leaves nothing behind.
        let empty = Scratch.root.appendingPathComponent("reception-queue-empty-\(UUID().uuidString)")
        let (none, noneStatus, _) = try await run(["queue"], home: empty)
        #expect(noneStatus == 0 && none.contains("The offline queue is empty."), "\(none)")
        #expect(!FileManager.default.fileExists(atPath: empty.path + "/state/reception/queue.sqlite"))
    }

    func run(_ arguments: [String], home: URL) async throws -> (output: String, status: Int32, errors: String) {
        let (output, errors, status) = try await PipedREPL.run(arguments, input: "", home: home, separateErrors: true)
        return (output, status, errors)
    }

    /// A message queued for a profile goes to the server the profile named then: pointed at
    /// another server before it was sent, the profile does not deliver it there, says so, and
    /// delivers it once pointed back.
    @Test func aQueuedMessageIsNeverSentToAServerTheProfileNamesLater() async throws {
        let first = "http://127.0.0.1:\(try unusedLoopbackPort())"
        let home = try home(url: first)
        let arguments = ["--backend", "ls-queue", "--trust", "1"]
        let (queued, _) = try await PipedREPL.run(arguments, input: "private note for the first server\n", home: home)
        #expect(queued.contains("your message is queued (1 waiting)"), "\(queued)")

        let (other, otherURL) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "5"], url: #"http://127\.0\.0\.1:\d+"#)
        defer { other.stop() }
        try point(home, at: otherURL)
        // Without a session too: `reception queue` reads where the profile points now.
        let (listed, _) = try await PipedREPL.run(["queue"], input: "", home: home)
        #expect(listed.contains("· written for \(first), not sent to \(otherURL)"), "the REPL's words: \(listed)")
        let profiles = home.appendingPathComponent("config/reception/backends.json")
        let pointed = try String(contentsOf: profiles, encoding: .utf8)
        try pointed.replacingOccurrences(of: "\"ls-queue\"", with: "\"ls-renamed\"").write(to: profiles, atomically: true, encoding: .utf8)
        let (orphaned, _) = try await PipedREPL.run(["queue"], input: "", home: home)
        #expect(orphaned.contains("· no profile is called ls-queue now, so no session sends it"), "\(orphaned)")
        try pointed.write(to: profiles, atomically: true, encoding: .utf8)
        let (elsewhere, status) = try await PipedREPL.run(arguments, input: "/queue\n/tasks recent\n/queue resend 1 2\n/queue drop 1 2\n/queue resend 5\n", home: home)
        #expect(status == 0, "\(elsewhere)")
        // One entry at a time: a second number is no silent no-op, and a number past the list says so.
        #expect(elsewhere.contains("Usage: /queue resend N (/queue lists 1)") && elsewhere.contains("Usage: /queue drop N|all"), "\(elsewhere)")
        #expect(elsewhere.contains("There is no queued message 5; /queue lists 1."), "\(elsewhere)")
        #expect(elsewhere.contains("1 queued message for ls-queue was written for \(first); ls-queue now points at \(otherURL), so it is not sent here."),
                "\(elsewhere)")
        #expect(elsewhere.contains("written for \(first), not sent to \(otherURL)"), "/queue says why it waits: \(elsewhere)")
        #expect(!elsewhere.contains("Sending"), "\(elsewhere)")
        #expect(!elsewhere.split(separator: "\n").contains { $0.hasSuffix("private note for the first server") && !$0.contains("·") },
                "the other server never got it: \(elsewhere)")
        // Asked at the other server: no task there holds the queued message.
        let otherRan = try await LoopSymphonyTerminalTests.tasksRun(at: otherURL)
        #expect(!otherRan.contains("private note"), "the other server got the queued message: \(otherRan)")

        let (own, _) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "5"], url: #"http://127\.0\.0\.1:\d+"#,
                                                        port: Int(first.split(separator: ":").last!)!)
        defer { own.stop() }
        try point(home, at: first)
        let (pointedBack, _) = try await PipedREPL.run(["queue"], input: "", home: home)
        #expect(pointedBack.contains("· for \(first)") && !pointedBack.contains("not sent to"), "\(pointedBack)")
        let (delivered, _) = try await PipedREPL.run(arguments, input: "/queue\n", home: home)
        #expect(delivered.contains("Sending 1 queued message to ls-queue"), "\(delivered)")
        #expect(delivered.contains("The offline queue is empty."), "\(delivered)")
        // The same question, asked at the server it was written for, finds it.
        let ownRan = try await LoopSymphonyTerminalTests.tasksRun(at: first)
        #expect(ownRan.contains("private note for the first server"), "\(ownRan)")
    }

    /// While the engine stays unreachable, each new message first tries the older ones again;
    /// the transcript holds each message once, as typed, not once per attempt.
    @Test func theTranscriptHoldsEachQueuedMessageOnce() async throws {
        let home = try home(url: "http://127.0.0.1:\(try unusedLoopbackPort())")
        let file = home.appendingPathComponent("session.md")
        let input = Self.messages.joined(separator: "\n") + "\n/save \(file.path)\n"
        let (output, status) = try await PipedREPL.run(["--backend", "ls-queue", "--trust", "1"], input: input, home: home)
        #expect(status == 0, "\(output)")
        let saved = try String(contentsOf: file, encoding: .utf8)
        for message in Self.messages {
            #expect(saved.components(separatedBy: "## You\n\n\(message)").count - 1 == 1, "\(message) once in:\n\(saved)")
        }
    }

    @Test func tasksQueuedWhenTheREPLIsKilledAreDeliveredExactlyOnceAfterRestart() async throws {
        let port = try unusedLoopbackPort()
        let url = "http://127.0.0.1:\(port)"
        let home = try home(url: url)
        let arguments = ["--backend", "ls-queue", "--trust", "1"]

        // 1. Nothing listens: the REPL starts offline and queues all three; stdin stays open
        //    (the session is alive, waiting for more) when it is killed.
        let first = Process()
        first.executableURL = URL(fileURLWithPath: try Binary.reception())
        first.arguments = arguments
        first.environment = ["HOME": home.path, "XDG_STATE_HOME": home.path + "/state", "XDG_CONFIG_HOME": home.path + "/config", "TERM": "xterm"]
        first.currentDirectoryURL = Binary.repositoryRoot
        let stdin = Pipe.forChild(), stdout = Pipe.forChild()
        first.standardInput = stdin
        first.standardOutput = stdout
        first.standardError = stdout
        try first.run()
        let output = Mutex("")
        let reader = Thread {
            while true {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                output.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
        }
        reader.start()
        try stdin.fileHandleForWriting.write(contentsOf: Data(Self.messages.map { $0 + "\n" }.joined().utf8))
        let deadline = ContinuousClock.now + .seconds(60)
        while !output.withLock({ $0.contains("queued (3 waiting)") }), ContinuousClock.now < deadline, first.isRunning {
            try await Task.sleep(for: .milliseconds(50))
        }
        let before = output.withLock { $0 }
        #expect(before.contains("cannot be reached"), "the REPL said it is offline: \(before)")
        #expect(before.contains("your message is queued (1 waiting)") && before.contains("queued (3 waiting)"), "\(before)")
        #expect(first.isRunning, "the session is still alive when it is killed")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(first.terminationReason == .uncaughtSignal && first.terminationStatus == SIGKILL)
        try? stdin.fileHandleForWriting.close()

        let queueFile = home.path + "/state/reception/queue.sqlite"
        let attributes = try FileManager.default.attributesOfItem(atPath: queueFile)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        // 2. The server comes up on that port; a new session sends the queue first, in order.
        let (server, _) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "5"], url: #"http://127\.0\.0\.1:\d+"#, port: port)
        defer { server.stop() }
        let (restarted, status) = try await PipedREPL.run(arguments, input: "/queue\n", home: home)
        #expect(status == 0, "\(restarted)")
        #expect(restarted.contains("Sending 3 queued messages to ls-queue, oldest first."), "\(restarted)")
        let shown = Self.messages.map { message in restarted.range(of: "ago: \(message)")?.lowerBound }
        #expect(shown.allSatisfy { $0 != nil }, "each queued message is shown with its answer: \(restarted)")
        let positions = shown.compactMap { $0 }
        #expect(positions == positions.sorted(), "in the order they were queued")
        #expect(restarted.contains("The offline queue is empty."), "\(restarted)")
        #expect(!restarted.contains("error:"), "\(restarted)")

        // 3. What the engine received: each task once, and a third session sends nothing again.
        let (again, _) = try await PipedREPL.run(arguments, input: "/tasks recent\n/queue\n", home: home)
        #expect(!again.contains("Sending"), "nothing is sent twice: \(again)")
        // `/tasks recent` lists the server's tasks newest first, one row each.
        let rows = again.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { row in Self.messages.contains { row.hasSuffix($0) } && !row.contains("ago:") }
        for message in Self.messages {
            #expect(rows.filter { $0.hasSuffix(message) }.count == 1, "\(message) reached the engine exactly once: \(again)")
        }
        #expect(rows.count == 3, "three tasks on the server: \(again)")
        #expect(rows.compactMap { row in Self.messages.first { row.hasSuffix($0) } } == Self.messages.reversed(),
                "the engine got them in the order they were queued (newest listed first): \(again)")
    }
}
