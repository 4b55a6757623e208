import Synchronization

/// When the last frame that moved the answer on arrived, and whether the query waits for the
/// person (then silence is expected and does not count).
///
/// Only news resets it (`touch`): a frame that shows nothing new (an empty chunk, the same
/// thinking label again) is `heartbeat`, counted but not resetting. A person judges a stalled
/// answer by what they see: text that stopped and a spinner label that no longer changes look
/// the same whether the socket is silent or carries empty frames, so both end at the idle
/// timeout. Otherwise a server dripping empty frames every few seconds would keep the turn
/// open for ever. A changing label is visible progress and does reset it.
final class IdleClock: Sendable {
    private struct State {
        var last: ContinuousClock.Instant
        var paused = false
        /// Frames since the last news that showed nothing new.
        var heartbeats = 0
    }

    private let state: Mutex<State>

    init() { state = Mutex(State(last: ContinuousClock.now)) }

    func touch() { state.withLock { $0 = State(last: ContinuousClock.now) } }
    func heartbeat() { state.withLock { $0.heartbeats += 1 } }
    func pause() { state.withLock { $0.paused = true } }

    /// How many frames arrived since the last news without showing anything new.
    var heartbeats: Int { state.withLock { $0.heartbeats } }

    /// Silence left before `limit` is reached; nil while paused.
    func remaining(of limit: Duration) -> Duration? {
        state.withLock { $0.paused ? nil : limit - $0.last.duration(to: .now) }
    }

    /// Returns when `limit` of silence has passed; throws when cancelled.
    func expiry(after limit: Duration) async throws {
        while true {
            guard let left = remaining(of: limit) else {
                // Waiting for the person; look again soon after they answer.
                try await Task.sleep(for: .milliseconds(500))
                continue
            }
            if left <= .zero { return }
            try await Task.sleep(for: left)
        }
    }
}
