import Foundation
import ReceptionCore
@testable import ReceptionOpenAI
import Testing

/// The chunk decoder on its own, with the inputs fuzzing (docs/fuzzing.md) and review taught.
@Suite("OpenAI answer reader")
struct AnswerReaderTests {
    /// The length limit used to recount the whole answer for every chunk (`text.count`), so a
    /// long answer in many chunks took time quadratic in its length: 1,000 chunks of 1,000 CJK
    /// characters (just under the limit) took the old check half a billion character steps.
    /// Compared inside one run, not against a clock a loaded machine stretches: four times the
    /// chunks take about four times as long when reading is linear, sixteen when quadratic.
    /// Timed in this thread's own CPU time, which other processes and tests cannot stretch
    /// (wall time on a loaded machine gave ratios above 9 for linear reading); each side is the
    /// quickest of three tries.
    @Test func aLongAnswerInManyChunksReadsInLinearTime() throws {
        let chunk = #"{"choices":[{"index":0,"delta":{"content":""# + String(repeating: "日", count: 1_000) + #""}}]}"#
        func read(_ chunks: Int) throws -> Duration {
            var reader = AnswerReader(taskID: "t")
            let start = Self.threadCPUTime()
            for _ in 0..<chunks { _ = try reader.read(chunk) }
            let elapsed = Self.threadCPUTime() - start
            #expect(reader.text.unicodeScalars.count == chunks * 1_000)
            return elapsed
        }
        var short: [Duration] = []
        var long: [Duration] = []
        for _ in 0..<3 {
            short.append(try read(250))
            long.append(try read(1_000))
        }
        let ratio = long.min()! / short.min()!
        #expect(ratio < 8, "4× the chunks took \(ratio)× as long (250 chunks: \(short.min()!), 1,000: \(long.min()!))")
    }

    /// CPU time this thread has used.
    static func threadCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
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
