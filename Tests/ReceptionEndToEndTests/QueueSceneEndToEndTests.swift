import Foundation
import ReceptionTestSupport
import Synchronization
import Testing

/// The offline queue when several sessions meet it at once. One message was queued while the
/// Loop Symphony server was down; the server came back; five sessions start at once and each
/// sends a message, then `/quit`. A server that answers is never called unreachable, `/quit`
/// never waits for a message another session queued, and every message reaches the engine
/// exactly once.
@Suite("Offline queue: five sessions at once", .serialized)
struct QueueSceneEndToEndTests {
    let queueTests = OfflineQueueEndToEndTests()

    /// Runs `reception ARGUMENTS` with `input` on stdin, returning its output and how long it ran.
    final class Session: Sendable {
        let process = Process()
        let output = Mutex("")
        let started = ContinuousClock.now
        let ended = Mutex<ContinuousClock.Instant?>(nil)
        /// Set by the reading thread at the end of the output.
        let readToTheEnd = Atomic(false)

        init(_ arguments: [String], input: String, home: URL) throws {
            process.executableURL = URL(fileURLWithPath: try Binary.reception())
            process.arguments = arguments
            process.environment = ["HOME": home.path, "XDG_STATE_HOME": home.path + "/state", "XDG_CONFIG_HOME": home.path + "/config", "TERM": "xterm"]
            process.currentDirectoryURL = Binary.repositoryRoot
            let stdin = Pipe.forChild(), stdout = Pipe.forChild()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stdout
            process.terminationHandler = { [weak self] _ in self?.ended.withLock { $0 = .now } }
            try process.run()
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = stdout.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    output.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
                }
                readToTheEnd.store(true, ordering: .releasing)
            }
            try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }

        /// Waits for the process to end (nil after `limit`), then for its output to be read to
        /// the end (a fixed pause could end before a busy machine's reading thread did).
        func finished(within limit: Duration) async throws -> String? {
            let deadline = ContinuousClock.now + limit
            while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            guard !process.isRunning else { return nil }
            while !readToTheEnd.load(ordering: .acquiring), ContinuousClock.now < deadline + .seconds(30) {
                try await Task.sleep(for: .milliseconds(20))
            }
            return output.withLock { $0 }
        }

        var seconds: Double {
            guard let ended = ended.withLock({ $0 }) else { return .infinity }
            let took = started.duration(to: ended)
            return Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        }
    }

    @Test func fiveSessionsThatStartTogetherAreNotToldAnAnsweringServerIsUnreachable() async throws {
        let port = try unusedLoopbackPort()
        let home = try queueTests.home(url: "http://127.0.0.1:\(port)")
        let arguments = ["--backend", "ls-queue", "--trust", "1"]
        // 1. The server is down: the message is queued.
        let older = "slow research on tide pools, queued while the server was down"
        let (queued, status) = try await PipedREPL.run(arguments, input: older + "\n", home: home)
        #expect(status == 0 && queued.contains("your message is queued (1 waiting)"), "\(queued)")

        // 2. The server comes back. Its research takes about 30 s for a "slow" query (8
        //    iterations of 10 steps of 400 ms): far longer than /quit may take.
        let (server, _) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "400"], url: #"http://127\.0\.0\.1:\d+"#, port: port)
        defer { server.stop() }

        // 3. Five sessions at once, each a message and /quit.
        let messages = (1...5).map { "what is note number \($0) about" }
        let sessions = try messages.map { try Session(arguments, input: "\($0)\n/quit\n", home: home) }
        var outputs: [String] = []
        for session in sessions {
            let output = try #require(try await session.finished(within: .seconds(90)), "a session did not leave")
            outputs.append(output)
        }
        // Nobody waited for the older message's delivery: it is still queued (its task still
        // runs on the server), so whichever session was sending it left without waiting.
        let (listed, _) = try await PipedREPL.run(["queue"], input: "", home: home)
        #expect(listed.contains(String(older.prefix(30))), "the older message was not waited for, and is not lost: \(listed)\nsessions:\n\(outputs.joined(separator: "\n----\n"))")
        for (index, output) in outputs.enumerated() {
            #expect(!output.contains("unreachable"), "session \(index + 1) was told an answering server is unreachable:\n\(output)")
            #expect(!output.contains("error:"), "session \(index + 1):\n\(output)")
        }
        // One session was delivering the older message when its own came: that one waited
        // behind it, said why, and was still queued when /quit came (with a reminder).
        let waited = outputs.filter { $0.contains("Your message waits behind 1 older queued message, which is being delivered to ls-queue now") }
        #expect(waited.count <= 1, "\(outputs)")
        for output in waited { #expect(output.contains("still queued"), "the reminder at /quit: \(output)") }
        print("Five sessions at once: seconds each ran: \(sessions.map { String(format: "%.1f", $0.seconds) })")

        // 4. A later session delivers what waits (following the task the server already has),
        //    then every message has reached the engine exactly once.
        let (later, laterStatus) = try await PipedREPL.run(arguments, input: "/queue\n", home: home)
        #expect(laterStatus == 0 && later.contains("The offline queue is empty."), "\(later)")
        let (tasks, _) = try await PipedREPL.run(arguments, input: "/tasks recent\n", home: home)
        // `/tasks recent` lists the server's tasks, one row each, the query last.
        let rows = tasks.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for message in messages + [older] {
            #expect(rows.filter { $0.hasSuffix(message) && !$0.contains("ago:") }.count == 1, "“\(message)” reached the engine once: \(tasks)")
        }
    }

    /// A script's own commands run while older queued messages are delivered, and `/quit`
    /// leaves at once: the message being delivered stays queued, and the session says so.
    @Test func aScriptsCommandsAreNotHeldBehindTheDeliveryOfOlderMessages() async throws {
        let port = try unusedLoopbackPort()
        let home = try queueTests.home(url: "http://127.0.0.1:\(port)")
        let arguments = ["--backend", "ls-queue", "--trust", "1"]
        let older = (1...3).map { "slow research number \($0) queued while the server was down" }
        _ = try await PipedREPL.run(arguments, input: older.joined(separator: "\n") + "\n", home: home)
        let (server, _) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "400"], url: #"http://127\.0\.0\.1:\d+"#, port: port)
        defer { server.stop() }
        let session = try Session(arguments, input: "/health\n/quit\n", home: home)
        let output = try #require(try await session.finished(within: .seconds(90)), "the session did not leave")
        #expect(output.contains("Sending 3 queued messages to ls-queue"), "\(output)")
        #expect(output.contains("ok, version"), "the command ran while the first message was delivered: \(output)")
        #expect(output.contains("3 messages are still queued (3 for ls-queue)"), "the reminder: \(output)")
        let (listed, _) = try await PipedREPL.run(["queue"], input: "", home: home)
        #expect(listed.contains("3 queued messages") && older.allSatisfy { listed.contains(String($0.prefix(24))) }, "none was waited for, none was lost: \(listed)")
        print("A script's /health and /quit during the delivery of 3 slow queued messages: left after \(String(format: "%.1f", session.seconds)) s")
    }
}
