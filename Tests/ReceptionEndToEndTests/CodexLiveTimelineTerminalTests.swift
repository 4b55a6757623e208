import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ReceptionTestSupport
import Testing

/// `/worker ID` on a terminal against `reception serve codex`, whose frames end without their
/// blank line and whose long poll (two minutes here) stays open after each event: every event
/// is on screen while the server has sent nothing after it.
@Suite("Codex live timeline through the binary", .serialized)
struct CodexLiveTimelineTerminalTests {
    static let prompt = "› "

    /// Posts an event as the desktop would: the other Codex terminal tests' helper.
    func post(_ text: String, to base: String, worker: String) async throws {
        try await CodexTerminalTests().post(text, to: base, worker: worker)
    }

    /// Each event is posted only once the one before is on screen, so an event that waited for
    /// the next frame (or for the poll to end, two minutes on) would never show within the
    /// wait: the test cannot pass by chance and does not time anything tightly. How long each
    /// took from its post to the screen is printed, not asserted.
    @Test func eachEventIsOnScreenBeforeTheServerSendsAnythingMore() async throws {
        let (server, base) = try await ReferenceServerProcess.start(["codex", "--tick-ms", "0"], url: #"http://127\.0\.0\.1:\d+"#)
        defer { server.stop() }
        let home = Scratch.root.appendingPathComponent("reception-codex-live-\(UUID().uuidString)")
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try #"{"profiles":[{"name":"cdx","kind":"codex","url":"\#(base)","tail_ms":120000}]}"#
            .write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        let terminal = try TerminalSession(arguments: ["--backend", "cdx"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("/worker wrk-hosted")
        at = try await terminal.waitFor("Live timeline", after: at)
        // The worker's earlier events are listed; give the first poll a moment to be open.
        at = try await terminal.waitFor("worker.started", after: at)
        var milliseconds: [Int] = []
        for index in 1...5 {
            let marker = "live-\(index)-\(UUID().uuidString.prefix(6))"
            let posted = ContinuousClock.now
            try await post(marker, to: base, worker: "wrk-hosted")
            at = try await terminal.waitFor(marker, after: at, timeout: .seconds(40))
            let took = posted.duration(to: .now)
            milliseconds.append(Int(took.components.seconds * 1000 + took.components.attoseconds / 1_000_000_000_000_000))
        }
        #expect(!terminal.screen[at...].contains(Self.prompt), "still watching, on the same long poll")
        print("Codex live timeline through the binary: post to screen, 5 events, ms: \(milliseconds)")
        terminal.type("\u{3}")
        at = try await terminal.waitFor("Back at the prompt.", after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }
}
