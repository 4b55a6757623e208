import Foundation
import ReceptionCodex
import ReceptionCore
import ReceptionReferenceServers
import Testing

/// Watching a worker over a flaky network: every event exactly once and in order, whatever
/// the stream does (cut at random points, events repeated by a retrying proxy, frames without
/// their blank line, cursors the server no longer keeps).
@Suite("Codex stream resilience")
struct StreamResilienceTests {
    @Test("a stream cut five times at random points delivers every event exactly once, in order", arguments: [UInt64(7), 42, 2026])
    func fiveDropsLoseAndRepeatNothing(seed: UInt64) async throws {
        var options = CodexReferenceOptions(port: 0)
        options.drops = 5
        options.seed = seed
        try await withCodexServer(options) { server, client in
            let before = await appendEvents(server, worker: "wrk-hosted", count: 30, label: "before")
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: quickWatch(seed: seed))
            // More events arrive while the watcher is being cut off.
            let producer = Task {
                for index in 1...20 {
                    try await Task.sleep(for: .milliseconds(40))
                    await server.server.append("wrk-hosted", payload: .object(["method": .string("codex/event"), "n": .number(Double(index))]))
                }
            }
            let target = before + 20
            let updates = try await collectUpdates(watcher, from: 0) { seqs($0).last == target }
            try await producer.value
            #expect(seqs(updates) == Array(1...target), "every seq once, in order")
            #expect(await server.server.streamsCut() == 5, "the server cut five streams")
            let reconnects = updates.filter { if case .reconnecting = $0 { true } else { false } }.count
            #expect(reconnects >= 5, "each cut is a reconnect the watcher reports")
            #expect(watcher.statistics.delivered == target)
        }
    }

    /// A burst of 5xx: the gateway answers the stream 502/503 four times while the
    /// runtime restarts, then the burst ends. The watcher reports each as a reconnect and still
    /// delivers every seq exactly once.
    @Test func aBurstOfGatewayErrorsIsWaitedOutAndLosesNothing() async throws {
        var options = CodexReferenceOptions(port: 0)
        options.gatewayErrors = 4
        try await withCodexServer(options) { server, client in
            let before = await appendEvents(server, worker: "wrk-hosted", count: 10, label: "before")
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: quickWatch(seed: 5))
            let updates = try await collectUpdates(watcher, from: 0) { seqs($0).last == before }
            #expect(seqs(updates) == Array(1...before), "every seq once, in order")
            #expect(await server.server.gatewayErrorsSent() == 4)
            let reconnects = updates.filter { if case .reconnecting = $0 { true } else { false } }.count
            #expect(reconnects >= 4, "each refusal is a reconnect the watcher reports: \(reconnects)")
        }
    }

    @Test func cutsAndRepeatsTogetherWhileTheWorkerKeepsGoing() async throws {
        var options = CodexReferenceOptions(port: 0)
        options.drops = 12
        options.duplicateReplays = 6
        options.seed = 99
        try await withCodexServer(options) { server, client in
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: quickWatch(tailMS: 150, seed: 3))
            let producer = Task {
                for index in 1...80 {
                    try await Task.sleep(for: .milliseconds(15))
                    await server.server.append("wrk-hosted", payload: .object(["method": .string("codex/event"), "n": .number(Double(index))]))
                }
            }
            let updates = try await collectUpdates(watcher, from: 0, deadline: .seconds(60)) { seqs($0).last == 81 }
            try await producer.value
            #expect(seqs(updates) == Array(1...81))
            #expect(await server.server.streamsCut() == 12)
            #expect(await server.server.streamsReplayed() >= 1, "some responses repeated their events")
            #expect(watcher.statistics.duplicatesSuppressed > 0)
        }
    }

    @Test func duplicatesFromARetriedRequestAreSuppressed() async throws {
        var options = CodexReferenceOptions(port: 0)
        options.duplicateReplays = 3
        try await withCodexServer(options) { server, client in
            let before = await appendEvents(server, worker: "wrk-hosted", count: 10)
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: quickWatch())
            let producer = Task {
                for _ in 1...4 {
                    try await Task.sleep(for: .milliseconds(450))  // each in a poll of its own
                    await appendEvents(server, worker: "wrk-hosted", count: 2, label: "live")
                }
            }
            let target = before + 8
            let updates = try await collectUpdates(watcher, from: 0) { seqs($0).last == target }
            try await producer.value
            #expect(seqs(updates) == Array(1...target))
            // The server repeats up to three responses that carry events; how many polls carried
            // events depends on timing, but the first carried the ten already there.
            let replayed = await server.server.streamsReplayed()
            #expect((1...3).contains(replayed), "the server repeated responses' events")
            #expect(watcher.statistics.duplicatesSuppressed >= replayed + 9, "the repeated events were dropped, not shown")
        }
    }

    @Test("a stale cursor resumes from a fresh snapshot and says what was missed", arguments: [false, true])
    func staleCursorIsRecoveredAndReported(asStatus: Bool) async throws {
        var options = CodexReferenceOptions(port: 0)
        options.retention = 5
        options.staleAsStatus = asStatus
        try await withCodexServer(options) { server, client in
            let latest = await appendEvents(server, worker: "wrk-hosted", count: 20)
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: quickWatch())
            // Once the watcher has said what it missed, three more events happen.
            let updates = try await collectUpdates(watcher, from: 2) { updates in
                if case .missed? = updates.last {
                    Task { await appendEvents(server, worker: "wrk-hosted", count: 3, label: "after") }
                }
                return seqs(updates).last == latest + 3
            }
            let missed = updates.compactMap { update -> (Int, Int, String)? in
                if case .missed(let from, let through, let id) = update { (from, through, id) } else { nil }
            }
            #expect(missed.count == 1)
            #expect(missed.first?.0 == 3 && missed.first?.1 == latest, "events 3…\(latest) are named as missed")
            if let id = missed.first?.2 { #expect(await server.server.requestIDs().contains(id), "the report names the call's x-request-id") }
            #expect(seqs(updates) == [latest + 1, latest + 2, latest + 3], "watching goes on after the fresh snapshot")
            #expect(watcher.statistics.missed == latest - 2)
        }
    }

    @Test func framesWithBlankLinesReadTheSame() async throws {
        var options = CodexReferenceOptions(port: 0)
        options.unterminatedFrames = false
        options.drops = 2
        try await withCodexServer(options) { server, client in
            let latest = await appendEvents(server, worker: "wrk-hosted", count: 12)
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: quickWatch())
            let updates = try await collectUpdates(watcher, from: 0) { seqs($0).last == latest }
            #expect(seqs(updates) == Array(1...latest))
        }
    }

    @Test func theLastEventOfALongPollArrivesAtOnceThoughItHasNoBlankLine() async throws {
        try await withCodexServer { server, client in
            let latest = await server.server.latestSeq("wrk-desktop")
            var seen: [Int] = []
            for try await item in client.stream("wrk-desktop", cursor: 0, tailMS: 50) {
                if case .event(let event) = item { seen.append(event.seq) }
            }
            #expect(seen == Array(1...latest), "the unterminated last frame is delivered at the clean end")
        }
    }

    @Test func aPeriodicSnapshotShowsAChangeOfStatus() async throws {
        try await withCodexServer { _, client in
            var options = quickWatch()
            options.reconcileEvery = .milliseconds(200)
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: options)
            let updates = try await collectUpdates(watcher) { updates in
                let snapshots = updates.compactMap { if case .snapshot(let worker) = $0 { worker } else { nil } }
                if snapshots.count == 1, updates.count == 1 {
                    Task { _ = try? await client.stop("wrk-hosted", reason: "reconcile test") }
                }
                return snapshots.count == 2
            }
            let snapshots = updates.compactMap { if case .snapshot(let worker) = $0 { worker } else { nil } }
            #expect(snapshots.map(\.status) == [.running, .stopped], "the reconciliation saw the worker stop")
            #expect(watcher.statistics.reconciliations >= 1)
        }
    }

    @Test func aLedgerThatWentBackIsFollowedFromItsNewEndNotTakenForRepeats() async throws {
        try await withCodexServer { server, client in
            var options = quickWatch()
            options.reconcileEvery = .milliseconds(100)
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: options)
            // A cursor from before the server's store was reset: far past its ledger's end.
            let updates = try await collectUpdates(watcher, from: 500) { updates in
                if case .rewound? = updates.last { Task { await appendEvents(server, worker: "wrk-hosted", count: 2) } }
                return seqs(updates).count == 2
            }
            #expect(updates.contains(.rewound(cursor: 500, latest: 1)))
            #expect(seqs(updates) == [2, 3], "new events are shown, not dropped as repeats")
        }
    }

    @Test func anEventOverTheSizeLimitIsSkippedAndSaidNotAWedge() async throws {
        try await withCodexServer { server, client in
            await appendEvents(server, worker: "wrk-hosted", count: 2)  // seq 2, 3
            let huge = await server.server.append("wrk-hosted", payload: .object(["blob": .string(String(repeating: "x", count: 300_000))]))
            await appendEvents(server, worker: "wrk-hosted", count: 2)  // seq 5, 6
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: quickWatch())
            let updates = try await collectUpdates(watcher, from: 0) { seqs($0).last == 6 }
            #expect(seqs(updates) == [1, 2, 3, 5, 6])
            let skipped = updates.compactMap { if case .unreadable(let seq, let reason) = $0 { (seq, reason) } else { nil } }
            #expect(skipped.count == 1 && skipped.first?.0 == huge, "the oversized event is named once")
            #expect(skipped.first?.1.contains("exceeded") == true, "\(skipped)")
        }
    }

    @Test func theTimelineKeepsOnlyTheLatestEvents() async throws {
        var timeline = CodexTimeline(capacity: 3)
        for seq in 1...10 { timeline.append(CodexEvent(workerID: "w", seq: seq, eventType: "worker.event")) }
        #expect(timeline.events.map(\.seq) == [8, 9, 10])
        #expect(timeline.evicted == 7)
        #expect(timeline.last?.seq == 10)
    }

    @Test func backoffGrowsWithJitterAndIsCapped() {
        let backoff = CodexBackoff(base: .milliseconds(100), maximum: .seconds(1))
        #expect(backoff.delay(attempt: 1, unit: 0) == .milliseconds(50))
        #expect(backoff.delay(attempt: 1, unit: 1) == .milliseconds(100))
        #expect(backoff.delay(attempt: 3, unit: 0.5) == .milliseconds(300))
        #expect(backoff.delay(attempt: 30, unit: 1) == .seconds(1))
        var a = SeededRandom(seed: 9), b = SeededRandom(seed: 9)
        #expect(a.next() == b.next(), "a seed repeats the same jitter")
    }
}
