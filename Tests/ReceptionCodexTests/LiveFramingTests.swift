import Foundation
import Synchronization
import ReceptionCodex
import ReceptionCore
import ReceptionReferenceServers
import Testing

/// The runtime's frames end without their blank line, and its long poll stays open after an
/// event: each event must come out when its frame's `data:` line has arrived, not when the
/// next frame or the end of the poll shows that the frame was over.
@Suite("Codex live timeline on the runtime's framing")
struct LiveFramingTests {
    /// Events are appended one at a time, each only after the watcher delivered the one before,
    /// on a long poll of two minutes that the server holds open: the only bytes that can
    /// deliver an event are its own frame's. A watcher that waits for the next `id:` line (or
    /// the poll's end) never sees the first event within the limit, so this cannot pass by
    /// chance, and it does not depend on how fast the machine is.
    @Test func eachEventIsDeliveredOnItsOwnFrameWhileThePollStaysOpen() async throws {
        var options = CodexReferenceOptions(port: 0)
        options.unterminatedFrames = true
        try await withCodexServer(options) { server, client in
            var watchOptions = quickWatch(tailMS: 120_000)
            watchOptions.reconcileEvery = .seconds(3_600)
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: watchOptions)
            let start = await server.server.latestSeq("wrk-hosted")
            let framesBefore = await server.server.framesWritten()
            let seen = Mutex<[(event: CodexEvent, at: ContinuousClock.Instant)]>([])
            let reader = Task {
                for try await update in watcher.updates(from: start) {
                    if case .event(let event) = update { seen.withLock { $0.append((event, .now)) } }
                }
            }
            defer { reader.cancel() }
            // The long poll is open before anything happens on the worker.
            let opened = ContinuousClock.now + .seconds(30)
            while await server.server.streamsOpened() == 0, ContinuousClock.now < opened { try await Task.sleep(for: .milliseconds(5)) }
            var latencies: [Duration] = []
            for index in 1...5 {
                let appended = ContinuousClock.now
                let seq = try #require(await server.server.append("wrk-hosted", payload: .object([
                    "method": .string("codex/event"), "params": .object(["msg": .string("live \(index)")]),
                ])))
                // Waited for as long as a loaded machine needs; the poll lasts four times longer.
                let deadline = ContinuousClock.now + .seconds(30)
                while seen.withLock({ $0.count }) < index, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
                let delivered = try #require(seen.withLock { $0.count == index ? $0.last : nil },
                                             "event \(index) (seq \(seq)) was not delivered while the poll stayed open")
                latencies.append(appended.duration(to: delivered.at))
                #expect(delivered.event.seq == seq)
                // Nothing after its frame was needed: the server has written exactly the frames
                // of the events so far, and the poll that carried them has not ended.
                #expect(await server.server.framesWritten() - framesBefore == index)
                #expect(await server.server.streamsEnded() == 0, "the long poll is still open")
            }
            #expect(watcher.statistics.polls == 1, "one poll carried every event")
            #expect(watcher.statistics.delivered == 5)
            let milliseconds = latencies.map { Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
            print("Codex live timeline: append to delivery, 5 events, ms: \(milliseconds)")
        }
    }

    /// The same on the runtime after `f0a1e67a63` (a blank line after each frame): each event
    /// once, and the blank line adds nothing.
    @Test func terminatedFramesAreDeliveredOnceEach() async throws {
        var options = CodexReferenceOptions(port: 0)
        options.unterminatedFrames = false
        try await withCodexServer(options) { server, client in
            let last = await appendEvents(server, worker: "wrk-hosted", count: 6)
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: quickWatch())
            let updates = try await collectUpdates(watcher, from: 0) { seqs($0).last == last }
            #expect(seqs(updates) == Array(1...last))
            #expect(watcher.statistics.duplicatesSuppressed == 0)
        }
    }
}
