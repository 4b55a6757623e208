/// Open-addressing table from 64-bit token hashes to small integers: the classifier's
/// only lookup structure (no `String`, no `Dictionary`, no reference counting or bounds
/// checks in the hot path). Filled while the model is built, read-only afterwards.
final class HashTable: @unchecked Sendable {
    /// Key and value side by side: one cache line per probe.
    fileprivate struct Slot { var key: UInt64; var value: Int32 }
    private let slots: UnsafeMutablePointer<Slot>
    private let mask: Int
    private let size: Int
    private(set) var count = 0

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        self.size = size
        slots = .allocate(capacity: size)
        slots.initialize(repeating: Slot(key: 0, value: -1), count: size)
        mask = size - 1
    }

    deinit { slots.deallocate() }

    /// The stored (key, value) pairs, in slot order.
    var pairs: [(UInt64, Int32)] {
        (0..<size).compactMap { slots[$0].key == 0 ? nil : (slots[$0].key, slots[$0].value) }
    }

    @inline(__always)
    fileprivate static func slotKey(_ key: UInt64) -> UInt64 { key == 0 ? 0x9e37_79b9_7f4a_7c15 : key }

    /// Inserts or replaces (only while building).
    func set(_ key: UInt64, _ value: Int32) {
        let key = Self.slotKey(key)
        var slot = hashMix(key) & mask
        while slots[slot].key != 0 && slots[slot].key != key { slot = (slot + 1) & mask }
        if slots[slot].key == 0 { count += 1 }
        slots[slot] = Slot(key: key, value: value)
        precondition(count * 2 <= size, "HashTable over capacity")
    }

    /// The value, or -1.
    func get(_ key: UInt64) -> Int32 { reader.get(key) }
}

@inline(__always)
func combine(_ node: Int32, _ hash: UInt64) -> UInt64 {
    (hash ^ (UInt64(UInt32(bitPattern: node)) &* 0x9e37_79b9_7f4a_7c15)) &* 0xbf58_476d_1ce4_e5b9
}

/// Everything the extractor knows about one token, in one 32-byte slot: its word classes,
/// its vocabulary and first-word features, its rewrite, its trie node from the root and a
/// signature of that node's children (`childBit`), which spares most trie probes.
struct TokenInfo: Sendable {
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

final class TokenTable: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<TokenInfo>
    private let mask: Int
    private static let empty = TokenInfo()

    init(_ infos: [TokenInfo]) {
        // Filled to between a third and two thirds: every message probes this table once per
        // word, so its size (what stays in cache) matters more than a probe or two.
        var size = 16
        while size * 2 < infos.count * 3 { size <<= 1 }
        // One more, empty record past the probed slots: what an unknown token reads (`info(at:)`).
        slots = .allocate(capacity: size + 1)
        slots.initialize(repeating: TokenInfo(), count: size + 1)
        mask = size - 1
        for info in infos {
            let key = HashTable.slotKey(info.key)
            var slot = hashMix(key) & mask
            while slots[slot].key != 0 && slots[slot].key != key { slot = (slot + 1) & mask }
            slots[slot] = info
            slots[slot].key = key
        }
    }

    deinit { slots.deallocate() }
}

/// The finaliser of MurmurHash3: spreads a 64-bit key over the slots of both tables.
@inline(__always)
private func hashMix(_ key: UInt64) -> Int {
    var x = key
    x ^= x >> 33
    x = x &* 0xff51_afd7_ed55_8ccd
    x ^= x >> 33
    return Int(truncatingIfNeeded: x)
}

/// Linear probing from the home slot of `key` (already through `HashTable.slotKey`): the slot
/// holding it, or -1 at the first empty slot. `keyAt` reads a slot's key; both tables share this.
@inline(__always)
private func probe(_ key: UInt64, mask: Int, keyAt: (Int) -> UInt64) -> Int {
    var slot = hashMix(key) & mask
    while true {
        let found = keyAt(slot)
        if found == key { return slot }
        if found == 0 { return -1 }
        slot = (slot &+ 1) & mask
    }
}

extension HashTable {
    /// The table's memory for lookups, without a reference to the table: the hot path reads
    /// it with no reference counting. Valid while the table is alive (its owner keeps it).
    struct Reader: @unchecked Sendable {
        fileprivate let slots: UnsafeMutablePointer<Slot>
        fileprivate let mask: Int

        /// The value, or -1.
        @inline(__always)
        func get(_ key: UInt64) -> Int32 {
            let slot = probe(HashTable.slotKey(key), mask: mask) { slots[$0].key }
            return slot < 0 ? -1 : slots[slot].value
        }
    }

    var reader: Reader { Reader(slots: slots, mask: mask) }
}

extension TokenTable {
    /// As `HashTable.Reader`: lookups without reference counting, valid while the table lives.
    struct Reader: @unchecked Sendable {
        fileprivate let slots: UnsafeMutablePointer<TokenInfo>
        fileprivate let mask: Int

        /// The token's slot, or -1.
        @inline(__always)
        func find(_ key: UInt64) -> Int32 {
            Int32(truncatingIfNeeded: probe(HashTable.slotKey(key), mask: mask) { slots[$0].key })
        }

        /// The record in a slot from `find` (-1: an empty record). -1 reads the record past the
        /// last slot, which is empty: no branch on whether a word is known.
        @inline(__always)
        func info(at slot: Int32) -> TokenInfo { slots[Int(min(UInt32(bitPattern: slot), UInt32(truncatingIfNeeded: mask &+ 1)))] }
    }

    var reader: Reader { Reader(slots: slots, mask: mask) }
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
