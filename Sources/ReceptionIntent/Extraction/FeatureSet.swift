/// The active features of one message as the extractor collects them: each id once, in the
/// order first added, in scratch memory of fixed capacity.
///
/// `insert` has no branch: whether an id is new depends on the message, and a branch on it
/// mispredicted several times a message. The id is always written just past the last one,
/// and the count moves on only when its bit in `seen` was clear. The `sentinel` id is marked
/// seen from the start, so "no feature" (a negative id) can be inserted too, for nothing.
struct FeatureSet {
    private let seen: UnsafeMutablePointer<UInt64>
    private let base: UnsafeMutablePointer<Int32>
    private let lastIndex: Int
    private let sentinel: Int32
    private(set) var count = 0

    /// `seen`: zeroed bits for ids up to and including `sentinel`; `memory`: the scratch the ids
    /// go to (at least one element).
    init(seen: UnsafeMutableBufferPointer<UInt64>, memory: UnsafeMutableBufferPointer<Int32>, sentinel: Int32) {
        precondition(Int(sentinel) >> 6 < seen.count && memory.count > 0, "FeatureSet scratch too small")
        self.seen = seen.baseAddress!
        base = memory.baseAddress!
        lastIndex = memory.count - 1
        self.sentinel = sentinel
        self.seen[Int(sentinel) >> 6] |= UInt64(1) << UInt64(sentinel & 63)
    }

    /// Adds `id` unless it is already in; a negative id adds nothing.
    @inline(__always)
    mutating func insert(_ id: Int32) {
        // Arithmetic rather than `?:`, which the compiler turned into branches here.
        let negative = id &>> 31                                  // all ones when id < 0
        let id = (id & ~negative) | (sentinel & negative)
        let word = Int(truncatingIfNeeded: id) &>> 6, shift = UInt64(truncatingIfNeeded: id & 63)
        let old = seen[word]
        seen[word] = old | (1 &<< shift)
        base[min(count, lastIndex)] = id
        count &+= Int(truncatingIfNeeded: (~old &>> shift) & 1)
    }

    @inline(__always)
    func contains(_ id: Int32) -> Bool { seen[Int(id) &>> 6] & (UInt64(1) &<< UInt64(id & 63)) != 0 }

    /// Whether any id of `ids` (all below 64) is in.
    @inline(__always)
    func containsAny(of ids: ClosedRange<Int>) -> Bool {
        assert(ids.lowerBound >= 0 && ids.upperBound < 63, "ids of the first word")
        let mask = (UInt64(1) &<< UInt64(ids.upperBound - ids.lowerBound + 1) &- 1) &<< UInt64(ids.lowerBound)
        return seen[0] & mask != 0
    }

    /// Ids may have been lost: the scratch filled up. (A full scratch counts, as its last slot
    /// is written over by every later insert.)
    var overflowed: Bool { count > lastIndex }

    var elements: UnsafeBufferPointer<Int32> { UnsafeBufferPointer(start: base, count: min(count, lastIndex + 1)) }
}
