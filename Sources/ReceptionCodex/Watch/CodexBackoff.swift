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

/// A small seedable random generator (SplitMix64): a watcher given a seed backs off the same
/// way on every run, which tests need; without one it draws from the system.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
