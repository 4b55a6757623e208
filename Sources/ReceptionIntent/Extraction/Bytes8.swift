/// Eight bytes as one integer, and byte-wise tests on it: each answers with the high bit of
/// every byte that passes (SWAR, SIMD within a register).
enum Bytes8 {
    static let high: UInt64 = 0x8080_8080_8080_8080
    static let low7: UInt64 = 0x7f7f_7f7f_7f7f_7f7f
    static let ones: UInt64 = 0x0101_0101_0101_0101

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// Bytes below 0x80 from `lower` through `upper` (0x80 > upper ≥ lower > 0): adding to a
    /// byte of at most 0x7f never carries into the next one.
    @inline(__always)
    static func inRange(_ x: UInt64, _ lower: UInt64, _ upper: UInt64) -> UInt64 {
        let y = x & low7
        let atLeast = y &+ (0x80 &- lower) &* ones
        let above = y &+ (0x7f &- upper) &* ones
        return atLeast & ~above & ~x & high
    }

    /// Bytes equal to `byte`.
    @inline(__always)
    static func equal(_ x: UInt64, _ byte: UInt64) -> UInt64 {
        let z = x ^ (byte &* ones)
        return ~(((z & low7) &+ low7) | z) & high
    }

    /// ASCII letters of either case.
    @inline(__always)
    static func letters(_ x: UInt64) -> UInt64 { inRange(x | (0x20 &* ones), 0x61, 0x7a) }

    @inline(__always)
    static func digits(_ x: UInt64) -> UInt64 { inRange(x, 0x30, 0x39) }

    /// A mask of the first `count` bytes (0...8).
    @inline(__always)
    static func first(_ count: Int) -> UInt64 {
        // Two shifts by half, as one by 64 would be out of range.
        let half = UInt64(truncatingIfNeeded: count &* 4)
        return (UInt64(1) &<< half) &<< half &- 1
    }

    /// `a` when `condition` holds, else `b`, with a mask instead of a branch.
    @inline(__always)
    static func select<T: FixedWidthInteger>(_ condition: Bool, _ a: T, _ b: T) -> T {
        let mask = T(0) &- (condition ? 1 : 0)
        return (a & mask) | (b & ~mask)
    }

}
