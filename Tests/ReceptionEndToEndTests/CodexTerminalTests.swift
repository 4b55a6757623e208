import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ReceptionTestSupport
import Testing

/// `reception serve codex` and the `reception` binary on a pseudo-terminal: `/worker ID`
/// shows a worker's events as they happen, and Ctrl-C gives the prompt back.
@Suite("Codex workers through the binary", .serialized)
struct CodexTerminalTests {
    static let prompt = "› "

    /// Posts an event into the worker's ledger, as the desktop would (over the same public API).
    func post(_ text: String, to base: String, worker: String) async throws {
        var request = URLRequest(url: URL(string: "\(base)/api/runtime/codex/workers/\(worker)/events")!)
        request.httpMethod = "POST"
        request.setValue("Bearer reception-dev-token", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"event":{"event_type":"worker.event","payload":{"source":"autopilot-desktop","method":"turn/started","note":"\#(text)"}}}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 202)
    }

    @Test func workerShowsEventsLiveAndCtrlCReturnsToThePrompt() async throws {
        // No cuts (other tests cut the stream): here the only end of a watch's poll before its
        // minute is up is the client letting go.
        let (server, base) = try await ReferenceServerProcess.start(["codex", "--tick-ms", "700"],
                                                              url: #"http://127\.0\.0\.1:\d+"#)
        defer { server.stop() }
        // The session reaches the server through a relay that notes every request and when each
        // connection ends: what the server was asked, and when the watch let go of it.
        let relay = try RequestRelay(to: Int(base.split(separator: ":").last!)!)
        defer { relay.close() }
        let home = Scratch.root.appendingPathComponent("reception-codex-e2e-\(UUID().uuidString)")
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        // A long poll of a minute: the watch holds one stream open (the desktop's ticks arrive
        // in it), so its end is the client letting go, not the poll running out.
        try #"{"profiles":[{"name":"cdx","kind":"codex","url":"http://127.0.0.1:\#(relay.port)","tail_ms":60000}]}"#
            .write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        let terminal = try TerminalSession(arguments: ["--backend", "cdx"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("/worker wrk-desktop")
        at = try await terminal.waitFor("wrk-desktop · running", after: at)
        at = try await terminal.waitFor("Live timeline", after: at)
        // The recent events first (which ones depends on how many ticks the desktop made by now).
        at = try await terminal.waitFor("worker.event", after: at)
        // Something happens on the worker now: it shows while /worker runs.
        let marker = "live-\(UUID().uuidString.prefix(8))"
        try await post(marker, to: base, worker: "wrk-desktop")
        at = try await terminal.waitFor(marker, after: at)
        #expect(!terminal.screen[at...].contains(Self.prompt), "the prompt is not back while watching")
        // The desktop keeps working (a tick every 700 ms): more lines arrive on their own.
        at = try await terminal.waitFor("codex/event", after: at)
        terminal.type("\u{3}")
        at = try await terminal.waitFor("Watched wrk-desktop for", after: at)
        at = try await terminal.waitFor("Stopped /worker (Ctrl-C). Back at the prompt.", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        let stopped = at
        // At the server's door: the watch's stream was closed by the client.
        let stream = "/workers/wrk-desktop/stream"
        let lastPoll = try #require(relay.requests(containing: stream).last, "the watch read the stream")
        try await eventually("the watch's long poll to be closed by the client", seen: { "\(relay.all)" }) {
            relay.isClosed(lastPoll.connection, byClient: true)
        }
        let pollsWhenStopped = relay.requests(containing: stream).count
        let requestsWhenStopped = relay.requests(containing: "/api/runtime/codex/workers").count
        // The prompt works again: a command answers, and no event lines are printed any more,
        // though the desktop goes on working and something more happens on the worker.
        terminal.enter("/workers")
        at = try await terminal.waitFor("wrk-hosted", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        let after = "after-\(UUID().uuidString.prefix(8))"
        try await post(after, to: base, worker: "wrk-desktop")
        // The worker stays selected: a message goes to it as a request, classified on the way.
        terminal.enter("please run the checks again")
        at = try await terminal.waitFor("Worker wrk-desktop took the request (turn/start", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        // The requests of both commands passed the relay after the watch had stopped: no stream
        // was asked for among them or since, and no event reached the screen.
        #expect(relay.requests(containing: "/api/runtime/codex/workers").count > requestsWhenStopped, "the later requests went through the relay")
        #expect(relay.requests(containing: stream).count == pollsWhenStopped, "watching stopped with Ctrl-C: \(relay.all)")
        #expect(!terminal.screen[stopped...].contains("codex/event") && !terminal.screen[stopped...].contains(after),
                "no event line after Ctrl-C: \(terminal.screen[stopped...])")
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }
}
