import Foundation
import ReceptionTestSupport
import Testing

/// `reception serve friday` and the `reception` binary talking to it over 127.0.0.1: piped,
/// and on a pseudo-terminal.
@Suite("Friday through the binary", .serialized)
struct FridayTerminalTests {
    static let prompt = "› "

    /// Starts the reference server on a free port; returns the process and its WebSocket URL.
    /// A fresh home whose configuration has a profile "fri" for the server at `url`.
    static func home(withProfileFor url: String, idleTimeout: Int? = nil) throws -> URL {
        let home = Scratch.root.appendingPathComponent("reception-friday-e2e-\(UUID().uuidString)")
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let idle = idleTimeout.map { #","idle_timeout":\#($0)"# } ?? ""
        try #"{"profiles":[{"name":"fri","kind":"friday","url":"\#(url)"\#(idle)}]}"#
            .write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        return home
    }

    func startServer(slowMilliseconds: Int = 400) async throws -> (Process, String) {
        try await ReferenceServerProcess.start(["friday", "--step-ms", "10", "--slow-ms", String(slowMilliseconds)], url: #"ws://127\.0\.0\.1:\d+/ws"#)
    }

    /// A task that fails is an error like any other: on standard error, so a script's
    /// standard output holds only answers (it went to standard output as the answer).
    @Test func aFailedTaskGoesToStandardError() async throws {
        let (server, url) = try await startServer()
        defer { server.stop() }
        let (output, errors, _) = try await PipedREPL.run(["--backend", "friday"], input: "please fail\nhello\n", environment: ["FRIDAY_URL": url], separateErrors: true)
        #expect(errors.contains("error: "), "errors: \(errors)")
        #expect(!output.contains("error: "), "output: \(output)")
        #expect(output.contains("Before this you asked: \"please fail\""), "the next answer is still on standard output: \(output)")
    }

    @Test func pipedHelloPrintsTheSoulShapedStreamedAnswer() async throws {
        let (server, url) = try await startServer()
        defer { server.stop() }
        let (output, status) = try await PipedREPL.run(["--backend", "friday"], input: "hello\n", environment: ["FRIDAY_URL": url])
        #expect(status == 0, "\(output)")
        #expect(output.contains("Hi, I'm the Friday reference server. You asked: \"hello\". I use every chunk as it arrives."), "\(output)")
        #expect(!output.contains("utilize"))
    }

    /// Friday down at start: the REPL starts offline, queues the question, and a later start
    /// with the server up delivers it once, before anything new.
    @Test func aQuestionAskedWhileFridayIsDownIsDeliveredWhenItIsUp() async throws {
        let port = try unusedLoopbackPort()
        let probeURL = "ws://127.0.0.1:\(port)/ws"
        let home = Scratch.root.appendingPathComponent("reception-friday-e2e-\(UUID().uuidString)")
        let environment = ["FRIDAY_URL": probeURL]
        let (offline, offlineStatus) = try await PipedREPL.run(["--backend", "friday"], input: "hello while you sleep\n", home: home, environment: environment)
        #expect(offlineStatus == 0, "a queued message is not a failure: \(offline)")
        #expect(offline.contains("Friday at \(probeURL) cannot be reached"), "\(offline)")
        #expect(offline.contains("your message is queued (1 waiting)"), "\(offline)")

        let (server, _) = try await ReferenceServerProcess.start(["friday", "--step-ms", "10"], url: #"ws://127\.0\.0\.1:\d+/ws"#, port: port)
        defer { server.stop() }
        let (online, status) = try await PipedREPL.run(["--backend", "friday"], input: "/queue\n", home: home, environment: environment)
        #expect(status == 0, "\(online)")
        #expect(online.contains("Sending 1 queued message to friday"), "\(online)")
        #expect(online.contains("You asked: \"hello while you sleep\""), "\(online)")
        #expect(online.contains("The offline queue is empty."), "\(online)")
    }

    /// A "y" typed ahead, while a queued question is sent, never grants the tool permission
    /// the answer then asks for: it is discarded, said, and the question waits for its answer.
    @Test func keysTypedAheadNeverAnswerAPermissionQuestion() async throws {
        let port = try unusedLoopbackPort()
        let url = "ws://127.0.0.1:\(port)/ws"
        let home = try Self.home(withProfileFor: url)
        let terminal = try TerminalSession(arguments: ["--backend", "fri", "--queue-retry", "1"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("slow write notes please")
        at = try await terminal.waitFor("queued (1 waiting)", after: at)
        // A second between frames: the permission question comes several seconds after the send.
        let (server, _) = try await ReferenceServerProcess.start(["friday", "--step-ms", "10", "--slow-ms", "1000"], url: #"ws://127\.0\.0\.1:\d+/ws"#, port: port)
        defer { server.stop() }
        at = try await terminal.waitFor("Sending 1 queued message to fri", after: at)
        terminal.type("y\r")
        at = try await terminal.waitFor("What you typed before this question was discarded, so that it cannot answer it.", after: at)
        at = try await terminal.waitFor("Allow? [y] yes, once", after: at)
        terminal.enter("n")
        // The server's own answer to a denial: the question was still open when "n" came, so
        // the typed-ahead "y" answered nothing (had it, the server would have written the
        // file, and "n" would have been a new message).
        let denied = try await terminal.waitFor("Understood: I did not write friday-notes.md", after: at)
        #expect(!terminal.screen[at..<denied].contains("Allowed once") && !terminal.screen[at..<denied].contains("Done. I saved"),
                "the typed-ahead y granted it: \(terminal.screen[at...])")
        #expect(terminal.screen[at..<denied].contains("Denied"), "\(terminal.screen[at...])")
        terminal.enter("/quit")
        _ = try await terminal.exitStatus()
    }

    /// Keys typed during the answer without Enter sit in the cooked terminal's line buffer,
    /// where a count of waiting bytes does not see them: they were discarded before the
    /// question without the note. Now the note is there whether or not Enter was pressed.
    @Test func keysTypedWithoutEnterBeforeAQuestionAreDiscardedAndSaid() async throws {
        let (server, url) = try await startServer(slowMilliseconds: 1000)
        defer { server.stop() }
        let home = try Self.home(withProfileFor: url)
        let terminal = try TerminalSession(arguments: ["--backend", "fri"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("slow write notes please")
        // Typed while the answer streams: after its first chunk, seconds before the question.
        at = try await terminal.waitFor("I'll look at your work", after: at)
        terminal.type("yes please")
        at = try await terminal.waitFor("What you typed before this question was discarded, so that it cannot answer it.", after: at)
        at = try await terminal.waitFor("Allow? [y] yes, once", after: at)
        terminal.enter("n")
        try await terminal.waitFor("Denied", after: at)
        terminal.enter("/quit")
        _ = try await terminal.exitStatus()
    }

    /// A chunk is shown as it arrives, not when the answer ends: to "drip", the server sends
    /// one chunk and then, for ever, frames that say nothing new, so the answer never ends
    /// (and the idle timeout is an hour away). Seeing the chunk is the proof; no clock.
    @Test func aChunkIsOnScreenWhileTheAnswerIsStillComing() async throws {
        let (server, url) = try await startServer()
        defer { server.stop() }
        let home = try Self.home(withProfileFor: url, idleTimeout: 3600)
        let terminal = try TerminalSession(arguments: ["--backend", "fri"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("drip please")
        at = try await terminal.waitFor("Let me look into that.", after: at)
        #expect(!terminal.screen[at...].contains(Self.prompt), "the answer has not ended: \(terminal.screen[at...])")
        terminal.type("\u{3}")
        try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }
}
