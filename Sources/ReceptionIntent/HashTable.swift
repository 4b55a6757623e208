/// Open-addressing table from 64-bit token hashes to small integers: the classifier's
/// only lookup structure (no `String`, no `Dictionary` in the hot path).
struct HashTable: Sendable, Hashable {
    private(set) var keys: [UInt64]
    private(set) var values: [Int32]
    private let mask: Int
    private(set) var count = 0

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keys = Array(repeating: 0, count: size)
        values = Array(repeating: -1, count: size)
        mask = size - 1
    }

    @inline(__always)
    private static func slotKey(_ key: UInt64) -> UInt64 { key == 0 ? 0x9e37_79b9_7f4a_7c15 : key }

    @inline(__always)
    private static func mix(_ key: UInt64) -> Int {
        var x = key
        x ^= x >> 33
        x = x &* 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        return Int(truncatingIfNeeded: x)
    }

    /// Inserts or replaces.
    mutating func set(_ key: UInt64, _ value: Int32) {
        let key = Self.slotKey(key)
        var slot = Self.mix(key) & mask
        while keys[slot] != 0 && keys[slot] != key { slot = (slot + 1) & mask }
        if keys[slot] == 0 { count += 1 }
        keys[slot] = key
        values[slot] = value
        precondition(count * 2 <= keys.count, "HashTable over capacity")
    }

    /// The value, or -1.
    @inline(__always)
    func get(_ key: UInt64) -> Int32 {
        let key = Self.slotKey(key)
        var slot = Self.mix(key) & mask
        return keys.withUnsafeBufferPointer { keys in
            while true {
                let found = keys[slot]
                if found == key { return values[slot] }
                if found == 0 { return -1 }
                slot = (slot + 1) & mask
            }
        }
    }
}

@inline(__always)
func combine(_ node: Int32, _ hash: UInt64) -> UInt64 {
    (hash ^ (UInt64(UInt32(bitPattern: node)) &* 0x9e37_79b9_7f4a_7c15)) &* 0xbf58_476d_1ce4_e5b9
}
