import Synchronization

/// When the last frame of a query arrived, and whether the query waits for the person (then
/// silence is expected and does not count).
final class IdleClock: Sendable {
    private let state: Mutex<(last: ContinuousClock.Instant, paused: Bool)>

    init() { state = Mutex((ContinuousClock.now, false)) }

    func touch() { state.withLock { $0 = (ContinuousClock.now, false) } }
    func pause() { state.withLock { $0.paused = true } }

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
