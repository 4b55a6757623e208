import Testing
import ReceptionTestSupport
@testable import ReceptionIntent

/// The branch-free set the extractor collects a message's features in: each id once, in the
/// order first added; "no feature" (negative) adds nothing; a full scratch is reported, and the
/// extractor then starts over in a scratch that cannot fill up.
@Suite("Feature set", .onTheCPULane)
struct FeatureSetTests {
    /// Inserts `ids` into a set over `features` ids with `capacity` slots of scratch.
    static func collect(_ ids: [Int32], features: Int = 200, capacity: Int) -> (ids: [Int32], overflowed: Bool) {
        var seen = [UInt64](repeating: 0, count: features / 64 + 1)
        var memory = [Int32](repeating: 0, count: capacity)
        return seen.withUnsafeMutableBufferPointer { seen in
            memory.withUnsafeMutableBufferPointer { memory in
                var set = FeatureSet(seen: seen, memory: memory, sentinel: Int32(features))
                for id in ids { set.insert(id) }
                return (Array(set.elements), set.overflowed)
            }
        }
    }

    @Test func eachIdOnceInTheOrderFirstAddedAndNegativeIdsAddNothing() {
        let result = Self.collect([5, -1, 130, 5, 0, 63, 64, 130, -7, 199, 0], capacity: 16)
        #expect(result.ids == [5, 130, 0, 63, 64, 199])
        #expect(!result.overflowed)
    }

    @Test func aFullScratchIsReported() {
        #expect(Self.collect([1, 2, 3], capacity: 4).overflowed == false)
        #expect(Self.collect([1, 2, 3, 3, 3], capacity: 4).ids == [1, 2, 3])
        // Filling the last slot counts: later inserts, even repeats, write over it.
        #expect(Self.collect([1, 2, 3, 4], capacity: 4).overflowed)
        #expect(Self.collect([1, 2, 3, 4, 5, 6], capacity: 4).overflowed)
    }

    /// A message with more distinct features than the first scratch holds (256) is extracted
    /// again in full: every vocabulary word in it is found, and no id twice.
    @Test func aMessageWithMoreFeaturesThanTheFirstScratchLosesNone() throws {
        let extractor = IntentClassifier().extractor
        let words = Array(extractor.vocabulary.filter { !$0.contains(" ") }.prefix(400))
        try #require(words.count == 400)
        let ids = extractor.features(words.joined(separator: " "))
        #expect(ids.count > ExtractorTables.stackFeatures)
        #expect(Set(ids).count == ids.count)
        let found = Set(ids.map { extractor.name(of: Int($0)) })
        for word in words { #expect(found.contains("word:\"\(word)\""), "\(word)") }
    }
}
