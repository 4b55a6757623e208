/// The classifier's lookup structures, keyed by 64-bit token hashes: no `String`, no
/// `Dictionary`, no reference counting or bounds checks in the hot path. Filled while the model
/// is built, read-only afterwards.
///
/// The token table, the trie and the small word sets are `DisplacementTable`s (hash and
/// displace): a lookup reads one small
/// displacement, then exactly one slot, and picks the match with bit operations. One slot is one
/// cache line of records per token, where the bucketized cuckoo tables before read two; and
/// whether a word is known depends on the message, so a probe loop that branched on it
/// mispredicted several times per message.

/// A slot's key: the token hash, with 0 (the mark of an empty slot) moved elsewhere.
@inline(__always)
func slotKey(_ key: UInt64) -> UInt64 { key == 0 ? 0x9e37_79b9_7f4a_7c15 : key }

/// A record a `DisplacementTable` stores: its `key` (0 when empty) and what an empty slot holds.
protocol TableRecord {
    var key: UInt64 { get set }
    /// The empty record, which is also what a lookup of a missing key reads.
    init()
}

/// A static hash table with one place per key (CHD, "hash, displace and compress", without the
/// compression). Keys fall into buckets, about four to a bucket; while building, each bucket,
/// largest first, gets the first displacement that sends all its keys to free slots. A lookup
/// reads the key's bucket's displacement (two bytes, in an array of a quarter as many entries
/// as keys, which stays in the nearest cache) and then the one slot it names: a present key is
/// there, and a missing key finds another key or an empty slot, and reads the empty record.
/// One more, empty record sits past the last slot.
final class DisplacementTable<Record: TableRecord>: @unchecked Sendable {
    let reader: Reader
    private let memory: UnsafeMutableRawPointer
    private let displacements: UnsafeMutablePointer<UInt16>

    /// `records` with distinct keys (as given: `slotKey` is applied here). About 89% of the slots
    /// are filled; more are added when a bucket finds no displacement.
    init(_ records: [Record]) {
        precondition(64 % MemoryLayout<Record>.stride == 0, "a record must not straddle two cache lines")
        // Two records with one key could never get slots of their own: placement would grow forever.
        precondition(Set(records.map { slotKey($0.key) }).count == records.count, "DisplacementTable keys must be distinct")
        let buckets = max(1, records.count / 4)
        var size = max(8, records.count + records.count / 8)
        var placed = Self.place(records, size: size, buckets: buckets)
        while placed == nil {
            size += size / 16
            placed = Self.place(records, size: size, buckets: buckets)
        }
        memory = UnsafeMutableRawPointer.allocate(byteCount: (size + 1) * MemoryLayout<Record>.stride, alignment: 64)
        let slots = memory.bindMemory(to: Record.self, capacity: size + 1)
        slots.initialize(from: placed!.slots, count: size)
        (slots + size).initialize(to: Record())
        displacements = .allocate(capacity: buckets)
        displacements.initialize(from: placed!.displacements, count: buckets)
        reader = Reader(slots: slots, displacements: displacements, buckets: UInt64(buckets), size: size)
    }

    deinit {
        reader.slots.deinitialize(count: reader.size + 1)
        memory.deallocate()
        displacements.deallocate()
    }

    /// Buckets, largest first (ties by index: the same records give the same layout), each at the
    /// first displacement that puts all its keys in free, distinct slots; nil when one finds none.
    private static func place(_ records: [Record], size: Int, buckets: Int) -> (slots: [Record], displacements: [UInt16])? {
        var members = [[Int]](repeating: [], count: buckets)
        for (index, record) in records.enumerated() { members[Reader.bucket(slotKey(record.key), UInt64(buckets))].append(index) }
        let order = (0..<buckets).sorted { (a: Int, b: Int) -> Bool in
            let sizeA = members[a].count, sizeB = members[b].count
            return sizeA != sizeB ? sizeA > sizeB : a < b
        }
        var slots = [Record](repeating: Record(), count: size)
        var displacements = [UInt16](repeating: 0, count: buckets)
        var taken = [Bool](repeating: false, count: size)
        var chosen: [Int] = []
        for bucket in order where !members[bucket].isEmpty {
            var displacement = 0
            search: while true {
                chosen.removeAll(keepingCapacity: true)
                for index in members[bucket] {
                    let slot = Reader.slot(slotKey(records[index].key), UInt16(displacement), size)
                    if taken[slot] || chosen.contains(slot) {
                        displacement += 1
                        if displacement > Int(UInt16.max) { return nil }
                        continue search
                    }
                    chosen.append(slot)
                }
                break
            }
            displacements[bucket] = UInt16(displacement)
            for (index, slot) in zip(members[bucket], chosen) {
                taken[slot] = true
                slots[slot] = records[index]
                slots[slot].key = slotKey(records[index].key)
            }
        }
        return (slots, displacements)
    }

    /// The table's memory for lookups, without a reference to the table: the hot path reads it
    /// with no reference counting. Valid while the table is alive (its owner keeps it).
    struct Reader: @unchecked Sendable {
        fileprivate let slots: UnsafeMutablePointer<Record>
        fileprivate let displacements: UnsafeMutablePointer<UInt16>
        fileprivate let buckets: UInt64
        /// The number of slots, and the index of the empty record.
        let size: Int

        /// `x` scaled to 0..<count by a multiply (the high half), not a division.
        @inline(__always)
        private static func scaled(_ x: UInt64, _ count: UInt64) -> Int { Int(truncatingIfNeeded: x.multipliedFullWidth(by: count).high) }

        /// A key's bucket, from its own high bits (token hashes and trie keys end in a multiply).
        @inline(__always)
        fileprivate static func bucket(_ key: UInt64, _ buckets: UInt64) -> Int { scaled(key, buckets) }

        /// A key's slot under a displacement: the MurmurHash3 finaliser of the displaced key.
        @inline(__always)
        fileprivate static func slot(_ key: UInt64, _ displacement: UInt16, _ size: Int) -> Int {
            var x = key &+ UInt64(displacement) &* 0x9e37_79b9_7f4a_7c15
            x ^= x >> 33
            x = x &* 0xff51_afd7_ed55_8ccd
            x ^= x >> 33
            return scaled(x, UInt64(size))
        }

        /// The slot holding `key`, or `size` (the empty record) when it is missing.
        @inline(__always)
        func find(_ key: UInt64) -> Int {
            let key = slotKey(key)
            let candidate = Self.slot(key, displacements[Self.bucket(key, buckets)], size)
            // A mask rather than a condition, so the compiler cannot turn it into a branch.
            let match = 0 &- Int(truncatingIfNeeded: UInt64(slots[candidate].key == key ? 1 : 0))
            return size ^ ((size ^ candidate) & match)
        }

        /// The record in a slot from `find`.
        @inline(__always)
        subscript(slot: Int) -> Record { slots[slot] }
    }
}
