/// The classifier's lookup structures, keyed by 64-bit token hashes: no `String`, no
/// `Dictionary`, no reference counting or bounds checks in the hot path. Filled while the model
/// is built, read-only afterwards.
///
/// Both tables are bucketized cuckoo hash tables (`CuckooTable`): a key lives in one of the two
/// slots of one of its two buckets, so a lookup compares four slots and picks the match with
/// bit operations. Whether a word is known, or a phrase goes on, depends on the message; a
/// probe loop that branches on it mispredicts several times per message, which cost more than
/// the four comparisons.

/// A slot's key: the token hash, with 0 (the mark of an empty slot) moved elsewhere.
@inline(__always)
func slotKey(_ key: UInt64) -> UInt64 { key == 0 ? 0x9e37_79b9_7f4a_7c15 : key }

/// A record a `CuckooTable` stores: its `key` (0 when empty) and what an empty slot holds.
protocol CuckooRecord {
    var key: UInt64 { get set }
    /// The empty record, which is also what a lookup of a missing key reads.
    init()
}

/// Records in buckets of two slots (a bucket never straddles a cache line); each key in one of
/// its two buckets. One more, empty record sits past the last slot: what a missing key reads.
final class CuckooTable<Record: CuckooRecord>: @unchecked Sendable {
    let reader: Reader
    private let memory: UnsafeMutableRawPointer

    /// `records` with distinct keys (as given: `slotKey` is applied here). Filled to at most 80%;
    /// the buckets double until every record finds a place.
    init(_ records: [Record]) {
        precondition(64 % (2 * MemoryLayout<Record>.stride) == 0, "a bucket must fit in one cache line")
        var buckets = 8
        while buckets * 2 * 4 < records.count * 5 { buckets <<= 1 }
        var placed = Self.place(records, buckets: buckets)
        while placed == nil {
            buckets <<= 1
            placed = Self.place(records, buckets: buckets)
        }
        let size = buckets * 2
        memory = UnsafeMutableRawPointer.allocate(byteCount: (size + 1) * MemoryLayout<Record>.stride, alignment: 64)
        let slots = memory.bindMemory(to: Record.self, capacity: size + 1)
        slots.initialize(from: placed!, count: size)
        (slots + size).initialize(to: Record())
        reader = Reader(slots: slots, bucketMask: buckets - 1, size: size)
    }

    deinit {
        reader.slots.deinitialize(count: reader.size + 1)
        memory.deallocate()
    }

    /// Cuckoo insertion: a record takes a free slot in its first bucket, else evicts one there,
    /// which moves to its other bucket, and so on; nil when a chain runs too long.
    /// Deterministic: the same records in the same order give the same layout.
    private static func place(_ records: [Record], buckets: Int) -> [Record]? {
        var slots = [Record](repeating: Record(), count: buckets * 2)
        let mask = buckets - 1
        for record in records {
            var item = record
            item.key = slotKey(record.key)
            var bucket = Reader.first(item.key, mask)
            var evictions = 0
            while true {
                if slots[bucket * 2].key == 0 { slots[bucket * 2] = item; break }
                if slots[bucket * 2 + 1].key == 0 { slots[bucket * 2 + 1] = item; break }
                if evictions == 500 { return nil }
                swap(&item, &slots[bucket * 2 + (evictions & 1)])
                let home = Reader.first(item.key, mask)
                bucket = home == bucket ? Reader.second(item.key, mask) : home
                evictions += 1
            }
        }
        return slots
    }

    /// The table's memory for lookups, without a reference to the table: the hot path reads it
    /// with no reference counting. Valid while the table is alive (its owner keeps it).
    struct Reader: @unchecked Sendable {
        fileprivate let slots: UnsafeMutablePointer<Record>
        fileprivate let bucketMask: Int
        /// The number of slots, and the index of the empty record.
        let size: Int

        @inline(__always)
        fileprivate static func first(_ key: UInt64, _ mask: Int) -> Int {
            // The finaliser of MurmurHash3.
            var x = key
            x ^= x >> 33
            x = x &* 0xff51_afd7_ed55_8ccd
            x ^= x >> 33
            return Int(truncatingIfNeeded: x) & mask
        }

        @inline(__always)
        fileprivate static func second(_ key: UInt64, _ mask: Int) -> Int {
            Int(truncatingIfNeeded: (key &* 0x9e37_79b9_7f4a_7c15) >> 32) & mask
        }

        /// The slot holding `key`, or `size` (the empty record) when it is missing.
        @inline(__always)
        func find(_ key: UInt64) -> Int {
            let key = slotKey(key)
            let a = Self.first(key, bucketMask) << 1, b = Self.second(key, bucketMask) << 1
            var slot = size
            // Masks rather than conditions, so the compiler cannot turn them into branches.
            @inline(__always) func take(_ candidate: Int) {
                let match = 0 &- Int(truncatingIfNeeded: UInt64(slots[candidate].key == key ? 1 : 0))
                slot ^= (slot ^ candidate) & match
            }
            take(a)
            take(a &+ 1)
            take(b)
            take(b &+ 1)
            return slot
        }

        /// The record in a slot from `find`.
        @inline(__always)
        subscript(slot: Int) -> Record { slots[slot] }
    }
}

/// A token hash (or a trie edge, `combine`) and a small integer.
struct KeyValue: CuckooRecord {
    var key: UInt64 = 0
    var value: Int32 = -1
}

/// A map from 64-bit keys to small integers. Filled with `set` while the model is built; the
/// first `reader` freezes it into a `CuckooTable` for the hot path.
final class HashTable: @unchecked Sendable {
    private var entries: [UInt64: Int32] = [:]
    private var frozen: CuckooTable<KeyValue>?

    init(capacity: Int) { entries.reserveCapacity(capacity) }

    /// The stored (key, value) pairs, sorted by key.
    var pairs: [(UInt64, Int32)] { entries.keys.sorted().map { ($0, entries[$0]!) } }

    /// Inserts or replaces (only while building, before `reader`).
    func set(_ key: UInt64, _ value: Int32) {
        precondition(frozen == nil, "HashTable is read-only once it has a reader")
        entries[key] = value
    }

    /// The value, or -1.
    func get(_ key: UInt64) -> Int32 { entries[key] ?? -1 }

    /// The table for lookups: valid while this table is alive.
    var reader: Reader {
        if frozen == nil { frozen = CuckooTable(pairs.map { KeyValue(key: $0.0, value: $0.1) }) }
        return Reader(table: frozen!.reader)
    }

    struct Reader: Sendable {
        fileprivate let table: CuckooTable<KeyValue>.Reader

        /// The value, or -1.
        @inline(__always)
        func get(_ key: UInt64) -> Int32 { table[table.find(key)].value }
    }
}

@inline(__always)
func combine(_ node: Int32, _ hash: UInt64) -> UInt64 {
    (hash ^ (UInt64(UInt32(bitPattern: node)) &* 0x9e37_79b9_7f4a_7c15)) &* 0xbf58_476d_1ce4_e5b9
}

/// Everything the extractor knows about one token, in one 32-byte slot: its word classes,
/// its vocabulary and first-word features, its rewrite, its trie node from the root and a
/// signature of that node's children (`childBit`), which spares most trie probes.
struct TokenInfo: CuckooRecord, Sendable {
    var key: UInt64 = 0
    var rootChildren: UInt64 = 0
    var classes: UInt32 = 0
    var word: Int32 = -1
    var root: Int32 = -1
    var first: Int16 = -1
    var rewrite: Int16 = -1
}

/// The bit a token sets in its trie parent's child signature (six high bits of its hash).
@inline(__always)
func childBit(_ hash: UInt64) -> UInt64 { UInt64(1) << (hash >> 58) }

/// The token table: one `TokenInfo` per known token.
typealias TokenTable = CuckooTable<TokenInfo>

extension CuckooTable.Reader where Record == TokenInfo {
    /// The slot of a token (`size` when unknown), as `Token.slot` holds it.
    @inline(__always)
    func slot(_ key: UInt64) -> Int32 { Int32(truncatingIfNeeded: find(key)) }

    /// The record in a slot from `slot(_:)`; -1 (a token made without a lookup) reads the empty
    /// record too, with no branch.
    @inline(__always)
    func info(at slot: Int32) -> TokenInfo { slots[Int(min(UInt32(bitPattern: slot), UInt32(truncatingIfNeeded: size)))] }
}

/// An array copied into memory that never moves, so the hot path can index it through a
/// plain pointer (no bounds checks, no reference counting). Freed with this owner.
final class Frozen<Element>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Element>
    let count: Int

    init(_ array: [Element]) {
        count = array.count
        pointer = .allocate(capacity: max(array.count, 1))
        array.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { pointer.initialize(from: base, count: source.count) }
        }
    }

    deinit {
        pointer.deinitialize(count: count)
        pointer.deallocate()
    }
}
