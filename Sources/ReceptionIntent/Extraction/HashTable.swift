// The records of the extractor's tables (`KeyValue`, `TokenInfo`; the trie's are in
// `Trie.swift`), the map the small word sets are built with (`HashTable`), and `Frozen`
// arrays for the hot path.

/// A token hash (or a trie edge, `combine`) and a small integer.
struct KeyValue: TableRecord {
    var key: UInt64 = 0
    var value: Int32 = -1
}

/// A map from 64-bit keys to small integers. Filled with `set` while the model is built; the
/// first `reader` freezes it into a `DisplacementTable` for the hot path.
final class HashTable: @unchecked Sendable {
    private var entries: [UInt64: Int32] = [:]
    private var frozen: DisplacementTable<KeyValue>?

    init(capacity: Int) { entries.reserveCapacity(capacity) }

    var count: Int { entries.count }

    /// The stored (key, value) pairs, in no particular order (the extractor sorts the token
    /// records it makes of them once, all tables together).
    var pairs: [(UInt64, Int32)] { entries.map { ($0.key, $0.value) } }

    /// Inserts or replaces (only while building, before `reader`).
    func set(_ key: UInt64, _ value: Int32) {
        precondition(frozen == nil, "HashTable is read-only once it has a reader")
        entries[key] = value
    }

    /// The value, or -1.
    func get(_ key: UInt64) -> Int32 { entries[key] ?? -1 }

    /// The table for lookups: valid while this table is alive.
    var reader: Reader {
        if frozen == nil { frozen = DisplacementTable(pairs.map { KeyValue(key: $0.0, value: $0.1) }) }
        return Reader(table: frozen!.reader)
    }

    struct Reader: Sendable {
        fileprivate let table: DisplacementTable<KeyValue>.Reader

        /// The value, or -1.
        @inline(__always)
        func get(_ key: UInt64) -> Int32 { table[table.find(key)].value }
    }
}

/// Everything the extractor knows about one token, in one 32-byte slot: its word classes,
/// its vocabulary and first-word features, its rewrite, and its first-level trie node (the
/// node's children's signature and cue entries; both empty when no cue starts with it).
struct TokenInfo: TableRecord, Sendable {
    var key: UInt64 = 0
    var rootChildren: UInt64 = 0
    var classes: UInt32 = 0
    var word: Int32 = -1
    var rootCues = CueRange()
    var first: Int16 = -1
    var rewrite: Int16 = -1
}

extension TokenInfo {
    /// Takes the fields `other` sets (those not at their defaults): each table the extractor
    /// builds its records from sets one field of a token, at most once.
    mutating func take(_ other: TokenInfo) {
        if other.rootChildren != 0 { rootChildren = other.rootChildren }
        if other.classes != 0 { classes = other.classes }
        if other.word != -1 { word = other.word }
        if other.rootCues != CueRange() { rootCues = other.rootCues }
        if other.first != -1 { first = other.first }
        if other.rewrite != -1 { rewrite = other.rewrite }
    }
}

/// The token table: one `TokenInfo` per known token.
typealias TokenTable = DisplacementTable<TokenInfo>

extension DisplacementTable.Reader where Record == TokenInfo {
    /// The slot of a token (`size` when unknown), as `Token.slot` holds it.
    @inline(__always)
    func slot(_ key: UInt64) -> Int32 { Int32(truncatingIfNeeded: find(key)) }

    /// The record in a slot from `slot(_:)`; -1 (a token made without a lookup) reads the empty
    /// record too, with no branch.
    @inline(__always)
    func info(at slot: Int32) -> TokenInfo { self[Int(min(UInt32(bitPattern: slot), UInt32(truncatingIfNeeded: size)))] }
}

/// An array copied into memory that never moves, so the hot path can index it through a
/// plain pointer (no bounds checks, no reference counting). Freed with this owner.
final class Frozen<Element>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Element>
    let count: Int

    /// `alignment`: of the first element, in bytes (a power of two), when it must be more than the type's.
    init(_ array: [Element], alignment: Int = MemoryLayout<Element>.alignment) {
        count = array.count
        let bytes = max(array.count, 1) * MemoryLayout<Element>.stride
        pointer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: max(alignment, MemoryLayout<Element>.alignment))
            .bindMemory(to: Element.self, capacity: max(array.count, 1))
        array.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { pointer.initialize(from: base, count: source.count) }
        }
    }

    /// `count` copies of `value`, without building an array first.
    init(repeating value: Element, count: Int, alignment: Int = MemoryLayout<Element>.alignment) {
        self.count = count
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Element>.stride,
                                                   alignment: max(alignment, MemoryLayout<Element>.alignment))
            .bindMemory(to: Element.self, capacity: max(count, 1))
        pointer.initialize(repeating: value, count: count)
    }

    deinit {
        pointer.deinitialize(count: count)
        UnsafeMutableRawPointer(pointer).deallocate()
    }
}
