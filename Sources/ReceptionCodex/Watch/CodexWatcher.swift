import Foundation
import ReceptionCore
import Synchronization

/// What watching a worker brings, in order.
public enum CodexWatchUpdate: Sendable, Hashable {
    /// The worker's state: first when watching starts, then whenever a reconciliation (or a
    /// stale-cursor recovery) finds its status or heartbeat changed.
    case snapshot(CodexWorker)
    /// A new event: each `seq` once, in increasing order, whatever the stream repeats.
    case event(CodexEvent)
    /// A frame that was not a readable event (its id still moves the cursor).
    case unreadable(seq: Int?, reason: String)
    /// The stream failed; the watcher waits `delay` and reconnects from the same cursor.
    case reconnecting(attempt: Int, delay: Duration, reason: String)
    /// The cursor was older than the server keeps: events `from...through` were not seen;
    /// watching resumed after the fresh snapshot's `latest_seq` (`through`).
    case missed(from: Int, through: Int, requestID: String)
    /// The worker's ledger now ends before the cursor (the server's store was reset or the
    /// worker recreated): everything up to `latest` would otherwise be taken for repeats, so
    /// watching goes on from `latest`.
    case rewound(cursor: Int, latest: Int)
}

/// Watches one worker for as long as its consumer reads: long polls of the stream looped
/// with the next cursor (the real stream closes after `tail_ms`, so that is the normal case,
/// not an error), reconnects with exponential backoff and jitter after failures, drops every
/// event whose `seq` it already passed (a proxy that retried the GET repeats them), takes a
/// fresh snapshot every `reconcileEvery`, and recovers from a stale cursor by starting again
/// at a fresh snapshot and saying what was missed. Memory: the cursor, the last snapshot and
/// a capped timeline.
public final class CodexWatcher: Sendable {
    public struct Options: Sendable {
        public var tailMS: Int?
        public var reconcileEvery: Duration = .seconds(30)
        public var backoff = CodexBackoff()
        /// Consecutive failures after which watching gives up with the last error (nil: never).
        public var maxConsecutiveFailures: Int?
        public var timelineCapacity = 200
        /// Fixes the jitter (tests); nil draws from the system.
        public var seed: UInt64?
        /// The shortest time between two polls that brought nothing, so a server that closes
        /// every poll at once is not hammered.
        public var minimumPollInterval: Duration = .milliseconds(200)

        public init() {}
    }

    /// What the watcher counted, for tests and `/worker`'s closing line.
    public struct Statistics: Sendable, Hashable {
        public var delivered = 0
        public var duplicatesSuppressed = 0
        public var reconnects = 0
        public var polls = 0
        public var reconciliations = 0
        public var missed = 0
    }

    public let client: CodexClient
    public let workerID: String
    public let options: Options
    private let state = Mutex<(timeline: CodexTimeline, statistics: Statistics, cursor: Int)>((CodexTimeline(), Statistics(), 0))

    public init(client: CodexClient, workerID: String, options: Options = Options()) {
        self.client = client
        self.workerID = workerID
        self.options = options
        state.withLock { $0.timeline = CodexTimeline(capacity: options.timelineCapacity) }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }
    public var timeline: CodexTimeline { state.withLock { $0.timeline } }
    /// The `seq` of the last event delivered (or skipped to).
    public var cursor: Int { state.withLock { $0.cursor } }

    /// Starts watching. `cursor` nil starts after the worker's latest event minus `backlog`
    /// (the last few events for context, then live ones). Ends by throwing when the worker
    /// cannot be watched at all (401, 403, 404, an invalid request) or after
    /// `maxConsecutiveFailures`; otherwise it runs until the consumer stops reading.
    public func updates(from cursor: Int? = nil, backlog: Int = 0) -> AsyncThrowingStream<CodexWatchUpdate, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.run(from: cursor, backlog: backlog) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func run(from start: Int?, backlog: Int, emit: (CodexWatchUpdate) -> Void) async throws {
        var random = SeededRandom(seed: options.seed ?? UInt64.random(in: 0...UInt64.max))
        var snapshot = try await client.snapshot(workerID)
        emit(.snapshot(snapshot))
        var cursor = start ?? max(0, snapshot.latestSeq - max(0, backlog))
        state.withLock { $0.cursor = cursor }
        var lastReconciled = ContinuousClock.now
        var failures = 0
        var brokenAtCursor = (cursor: -1, count: 0)
        while true {
            try Task.checkCancellation()
            let pollStarted = ContinuousClock.now
            var delivered = 0
            do {
                state.withLock { $0.statistics.polls += 1 }
                for try await item in client.stream(workerID, cursor: cursor, tailMS: options.tailMS) {
                    switch item {
                    case .event(let event):
                        guard event.seq > cursor else {
                            state.withLock { $0.statistics.duplicatesSuppressed += 1 }
                            continue
                        }
                        cursor = event.seq
                        delivered += 1
                        state.withLock {
                            $0.cursor = cursor
                            $0.timeline.append(event)
                            $0.statistics.delivered += 1
                        }
                        emit(.event(event))
                    case .unreadable(let id, let reason):
                        if let id {
                            guard id > cursor else { continue }
                            cursor = id
                            state.withLock { $0.cursor = cursor }
                        }
                        emit(.unreadable(seq: id, reason: reason))
                    }
                    // An event counts as progress: the next failure starts the backoff again.
                    failures = 0
                }
                failures = 0
            } catch let error as CodexError where error.state == .staleCursor {
                let fresh: CodexWorker
                do {
                    fresh = try await client.snapshot(workerID)
                } catch let failure as CodexError where failure.isTransient {
                    // The snapshot did not come: the next poll meets the stale cursor again.
                    failures += 1
                    if let limit = options.maxConsecutiveFailures, failures >= limit { throw failure }
                    let delay = options.backoff.delay(attempt: failures, unit: Double.random(in: 0..<1, using: &random))
                    state.withLock { $0.statistics.reconnects += 1 }
                    emit(.reconnecting(attempt: failures, delay: delay, reason: failure.brief))
                    try await Task.sleep(for: delay)
                    continue
                }
                let from = cursor + 1
                let through = max(fresh.latestSeq, cursor)
                state.withLock { $0.statistics.missed += max(0, through - cursor) }
                if through >= from { emit(.missed(from: from, through: through, requestID: error.requestID)) }
                cursor = through
                state.withLock { $0.cursor = cursor }
                snapshot = fresh
                emit(.snapshot(fresh))
                lastReconciled = .now
                continue
            } catch let error as CodexError where error.isTransient {
                // The same unreadable answer at the same cursor three times (an event over the
                // size limit, a frame that breaks the contract): skip that one event rather
                // than wedge the watch on it for ever.
                if error.state == .protocolViolation, delivered == 0 {
                    brokenAtCursor = brokenAtCursor.cursor == cursor ? (cursor, brokenAtCursor.count + 1) : (cursor, 1)
                    if brokenAtCursor.count >= 3 {
                        cursor += 1
                        state.withLock { $0.cursor = cursor }
                        emit(.unreadable(seq: cursor, reason: "skipped after three attempts: \(error.message)"))
                        brokenAtCursor = (-1, 0)
                        continue
                    }
                }
                failures += 1
                if let limit = options.maxConsecutiveFailures, failures >= limit { throw error }
                let delay = options.backoff.delay(attempt: failures, unit: Double.random(in: 0..<1, using: &random))
                state.withLock { $0.statistics.reconnects += 1 }
                emit(.reconnecting(attempt: failures, delay: delay, reason: error.brief))
                try await Task.sleep(for: delay)
                continue
            }
            if ContinuousClock.now - lastReconciled >= options.reconcileEvery {
                lastReconciled = .now
                state.withLock { $0.statistics.reconciliations += 1 }
                if let fresh = try? await client.snapshot(workerID) {
                    if fresh.status != snapshot.status || fresh.heartbeatState != snapshot.heartbeatState { emit(.snapshot(fresh)) }
                    snapshot = fresh
                    if fresh.latestSeq < cursor {
                        emit(.rewound(cursor: cursor, latest: fresh.latestSeq))
                        cursor = fresh.latestSeq
                        state.withLock { $0.cursor = cursor }
                    }
                }
            }
            if delivered == 0 {
                let elapsed = ContinuousClock.now - pollStarted
                if elapsed < options.minimumPollInterval { try await Task.sleep(for: options.minimumPollInterval - elapsed) }
            }
        }
    }
}
