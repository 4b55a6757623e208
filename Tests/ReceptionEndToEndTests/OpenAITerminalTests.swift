import Foundation
import ReceptionTestSupport
import Testing

/// `reception serve openai` and the REPL talking to it over 127.0.0.1, piped and on a
/// pseudo-terminal: what a person sees of a streamed answer.
@Suite("OpenAI-compatible server through the REPL", .serialized)
struct OpenAITerminalTests {
    static let prompt = "› "

    /// Starts the reference server on a free port; returns the process and its base URL (`…/v1`).
    static func startServer(chunkMilliseconds: Int = 5) async throws -> (Process, String) {
        try await ReferenceServerProcess.start(["openai", "--chunk-ms", "\(chunkMilliseconds)"], url: #"http://127\.0\.0\.1:\d+/v1"#)
    }

    /// A home whose backends.json has a profile `oai` for the server.
    static func home(for url: String) throws -> URL {
        let home = Scratch.root.appendingPathComponent("reception-oai-e2e-\(UUID().uuidString)")
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try #"{"profiles":[{"name":"oai","kind":"openai","url":"\#(url)"}]}"#
            .write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        return home
    }

    @Test func aPipedMessageGetsTheSoulShapedStreamedAnswerAndRequestShowsTheSoulsPrompt() async throws {
        let (server, url) = try await Self.startServer()
        defer { server.stop() }
        let (output, status) = try await PipedREPL.run(["--backend", "oai", "--soul", "butler"], input: "hello\n/request\n", home: try Self.home(for: url))
        #expect(status == 0, "\(output)")
        // The model said "Okay. You said: hello. …", cut into 3-character chunks ("Oka", "y. "):
        // the butler's replacement still applied across the boundary.
        #expect(output.contains("Very well. You said: hello. We utilize the same words. I am Ambrose. This is message 1 of our conversation."), "\(output)")
        #expect(!output.contains("Okay."))
        #expect(output.contains(#""content" : "You are Ambrose. "#), "/request shows the system prompt sent: \(output)")
        #expect(output.contains(#""role" : "system""#))
    }

    @Test func theJSONModePrintsOneEventPerChunk() async throws {
        let (server, url) = try await Self.startServer()
        defer { server.stop() }
        let (output, status) = try await PipedREPL.run(["--backend", "oai", "--json"], input: "hello\n", home: try Self.home(for: url))
        #expect(status == 0)
        let textEvents = output.split(separator: "\n").filter { $0.contains(#""type":"text""#) }
        // The soul holds a half-word back until it knows whether to replace it, so the 3-character
        // chunks come out word by word: one event per released piece, never one at the end.
        #expect(textEvents.count >= 15, "one per chunk: \(output)")
        #expect(output.split(separator: "\n").contains { $0.contains(#""type":"result""#) })
    }

    @Test func theFirstChunkIsOnScreenBeforeTheLastIsSent() async throws {
        // About 40 chunks 250 ms apart: the answer takes about 10 s to send, so a loaded
        // machine that holds the first chunk back a few seconds still shows it well before.
        let (server, url) = try await Self.startServer(chunkMilliseconds: 250)
        defer { server.stop() }
        let terminal = try TerminalSession(arguments: ["--backend", "oai"], home: try Self.home(for: url))
        let at = try await terminal.waitFor(Self.prompt)
        terminal.enter("hello")
        try await terminal.waitFor("of our conversation.", after: at)
        // Compared by when the terminal received each, not by when this test looked: on a busy
        // machine the test may look only after the whole answer is there.
        let start = try #require(terminal.firstShown("Okay", after: at))
        let end = try #require(terminal.firstShown("of our conversation.", after: at))
        #expect(start.duration(to: end) > .seconds(1), "the start was shown while the rest was still being sent")
    }

    @Test func ctrlCStopsTheStreamAndTheShownPartIsSavedOnce() async throws {
        // 500 ms a chunk (20 s an answer): Ctrl-C lands mid-answer however slow the machine.
        let (server, url) = try await Self.startServer(chunkMilliseconds: 500)
        defer { server.stop() }
        let home = try Self.home(for: url)
        let terminal = try TerminalSession(arguments: ["--backend", "oai"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("hello")
        at = try await terminal.waitFor("You said", after: at)
        terminal.type("\u{03}")
        at = try await terminal.waitFor("Cancelled", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        let transcript = home.appendingPathComponent("saved.md").path
        terminal.enter("/save \(transcript)")
        try await terminal.waitFor("Saved", after: at)
        let saved = try String(contentsOfFile: transcript, encoding: .utf8)
        #expect(saved.components(separatedBy: "Okay. You said").count == 2, "the shown part, exactly once: \(saved)")
        #expect(!saved.contains("of our conversation."), "nothing past the interruption")
        let mode = try FileManager.default.attributesOfItem(atPath: transcript)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
