/// An append-only view of scratch memory of fixed capacity. The hot path appends tokens here
/// (feature ids go to a `FeatureSet`) instead of to an `Array`, whose uniqueness and growth
/// checks cost more than the work per token. Appending to a full buffer drops the element and sets
/// `overflowed`: the caller retries with a buffer sized from a safe bound.
struct FixedBuffer<Element> {
    let base: UnsafeMutablePointer<Element>
    let capacity: Int
    private(set) var count = 0
    private(set) var overflowed = false

    init(_ memory: UnsafeMutableBufferPointer<Element>) {
        base = memory.baseAddress!
        capacity = memory.count
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        guard count < capacity else { overflowed = true; return }
        (base + count).initialize(to: element)
        count &+= 1
    }

    @inline(__always)
    subscript(index: Int) -> Element {
        get { base[index] }
        nonmutating set { base[index] = newValue }
    }

    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }
}

/// Runs `body` on uninitialised scratch memory for `count` trivial values: on the stack
/// when small (up to 1 KiB on Linux), else on the heap (the standard library decides).
@inline(__always)
func withScratch<Element, Result>(of type: Element.Type, count: Int, _ body: (inout FixedBuffer<Element>) throws -> Result) rethrows -> Result {
    try withUnsafeTemporaryAllocation(of: type, capacity: max(count, 1)) { memory in
        var buffer = FixedBuffer(memory)
        return try body(&buffer)
    }
}

/// 256 zeroed 64-bit words (2 KiB): a feature set's bits, on the stack. `withUnsafeTemporaryAllocation`
/// puts anything over 1 KiB on the heap, and the shipped model's ~9,000 features need more.
private struct StackBits {
    var words: (SIMD64<UInt64>, SIMD64<UInt64>, SIMD64<UInt64>, SIMD64<UInt64>) = (.zero, .zero, .zero, .zero)
    static let capacity = 256
}

/// Runs `body` on `count` zeroed 64-bit words: on the stack up to 2 KiB, else on the heap.
@inline(__always)
func withZeroedBits<Result>(count: Int, _ body: (UnsafeMutableBufferPointer<UInt64>) throws -> Result) rethrows -> Result {
    if count <= StackBits.capacity {
        var bits = StackBits()
        return try withUnsafeMutableBytes(of: &bits) { raw in
            try body(raw.bindMemory(to: UInt64.self))
        }
    }
    return try withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { bits in
        bits.initialize(repeating: 0)
        return try body(bits)
    }
}
