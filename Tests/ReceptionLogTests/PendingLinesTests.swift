import Foundation
@testable import ReceptionLog
import ReceptionTestSupport
import Testing

/// Reading a pending file line by line holds at most one line of bounded length, however the
/// file is cut into reads.
@Suite("Reading pending files line by line")
struct PendingLinesTests {
    static func lines(of bytes: Data, limit: Int) throws -> [String] {
        let path = Scratch.root.appendingPathComponent("pending-lines-\(UUID().uuidString)").path
        try bytes.write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        var seen: [String] = []
        try ConversationLog.forEachLine(in: path, limit: limit) { seen.append(String(decoding: $0, as: UTF8.self)) }
        return seen
    }

    @Test func linesAcrossReadsComeWholeAndTheLastOneWithoutItsNewlineToo() throws {
        // Lines of 100 KB cross the 64 KB reads.
        let long = String(repeating: "a", count: 100_000), other = String(repeating: "b", count: 70_000)
        let read = try Self.lines(of: Data("\(long)\n\(other)\nshort\nlast".utf8), limit: 1 << 20)
        #expect(read.map(\.count) == [100_000, 70_000, 5, 4])
        #expect(read[2] == "short" && read[3] == "last")
    }

    @Test func aLineOverTheLimitIsSkippedWholeAndTheNextOneRead() throws {
        let huge = String(repeating: "x", count: 300_000)
        let read = try Self.lines(of: Data("first\n\(huge)\nafter\n\(huge)".utf8), limit: 200_000)
        #expect(read == ["first", "after"])
    }
}
