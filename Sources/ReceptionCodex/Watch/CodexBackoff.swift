/// How long to wait before reconnecting after the stream failed `attempt` times in a row:
/// exponential (`base` × 2^(attempt-1), at most `maximum`) with "equal jitter" (half fixed,
/// half random), so clients cut off together do not all come back at the same instant.
public struct CodexBackoff: Sendable, Hashable {
    public var base: Duration
    public var maximum: Duration

    public init(base: Duration = .milliseconds(500), maximum: Duration = .seconds(30)) {
        self.base = base
        self.maximum = maximum
    }

    /// `unit` is a random number in 0..<1.
    public func delay(attempt: Int, unit: Double) -> Duration {
        let exponential = base * (1 << min(max(attempt - 1, 0), 20))
        let capped = min(exponential, maximum)
        return capped / 2 + capped / 2 * min(max(unit, 0), 1)
    }
}

