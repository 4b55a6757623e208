extension Int {
    /// `value` as an Int, clamped to Int's range, NaN as 0. `Int(_: Double)` traps outside the
    /// range, and numbers a server sends (a duration, a percentage, a Retry-After of "1e300")
    /// can be anything: one such number must not end the process.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9_223_372_036_854_775_807.0 {
            self = .max
        } else if value <= -9_223_372_036_854_775_808.0 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}
