import Testing
import ReceptionTestSupport
@testable import ReceptionIntent

/// The static hash table behind the token and trie tables: every key where it belongs, no
/// false hit for a missing key, and the same layout for the same records.
@Suite("Lookup tables", .onTheCPULane)
struct LookupTableTests {
    /// Distinct, reproducible keys (a 64-bit LCG), with 0 among them (it is stored remapped).
    static func keys(_ count: Int, seed: UInt64) -> [UInt64] {
        var state = seed, seen: Set<UInt64> = [0], keys: [UInt64] = count > 0 ? [0] : []
        while keys.count < count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if seen.insert(state).inserted { keys.append(state) }
        }
        return keys
    }

    @Test(arguments: [0, 1, 3, 4, 100, 5_000])
    func everyKeyIsFoundAndNoOther(count: Int) {
        let keys = Self.keys(count, seed: UInt64(count))
        let table = DisplacementTable(keys.enumerated().map { KeyValue(key: $0.element, value: Int32($0.offset)) })
        // A reader points into the table's memory: the table must outlive its use.
        withExtendedLifetime(table) {
            let reader = table.reader
            for (index, key) in keys.enumerated() {
                #expect(reader[reader.find(key)].value == Int32(index), "key \(index) of \(count)")
            }
            let present = Set(keys)
            for missing in Self.keys(2_000, seed: 99).dropFirst() where !present.contains(missing) {
                #expect(reader.find(missing) == reader.size)
            }
            #expect(reader[reader.size].value == -1)
        }
    }

    @Test func theSameRecordsGiveTheSameLayout() {
        let records = Self.keys(3_000, seed: 7).map { KeyValue(key: $0, value: Int32(truncatingIfNeeded: $0 >> 40)) }
        let tables = (DisplacementTable(records), DisplacementTable(records))
        withExtendedLifetime(tables) {
            let a = tables.0.reader, b = tables.1.reader
            #expect(a.size == b.size)
            #expect(records.allSatisfy { a.find($0.key) == b.find($0.key) })
        }
    }
}
