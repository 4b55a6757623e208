import Foundation
import ReceptionCore
@testable import ReceptionOpenAI
import Testing

/// The chunk decoder on its own, with the inputs fuzzing (docs/fuzzing.md) and review taught.
@Suite("OpenAI answer reader")
struct AnswerReaderTests {
    /// The length limit used to recount the whole answer for every chunk (`text.count`), so a
    /// long answer in many chunks took time quadratic in its length: these 1,000 chunks of
    /// 1,000 CJK characters (just under the limit) took the old check half a billion
    /// character steps, about 12 s on the shared machine; they now take a fraction of a
    /// second. Few, large chunks keep the test itself cheap beside the timing tests.
    @Test func aLongAnswerInManyChunksReadsInLinearTime() throws {
        var reader = AnswerReader(taskID: "t")
        let chunk = #"{"choices":[{"index":0,"delta":{"content":""# + String(repeating: "日", count: 1_000) + #""}}]}"#
        let started = Date()
        for _ in 0..<1_000 { _ = try reader.read(chunk) }
        #expect(reader.text.unicodeScalars.count == 1_000_000)
        #expect(Date().timeIntervalSince(started) < 5, "reading 1,000 chunks took \(Date().timeIntervalSince(started)) s")
    }

    @Test func theLengthLimitStillStopsAnEndlessAnswer() throws {
        var reader = AnswerReader(taskID: "t")
        let big = String(repeating: "a", count: 1 << 16)
        let chunk = #"{"choices":[{"index":0,"delta":{"content":""# + big + #""}}]}"#
        var stopped = false
        for _ in 0...(OpenAIBackend.maxAnswerCharacters >> 16) {
            do { _ = try reader.read(chunk) } catch { stopped = true; break }
        }
        #expect(stopped)
        #expect(reader.text.count <= OpenAIBackend.maxAnswerCharacters)
    }
}
