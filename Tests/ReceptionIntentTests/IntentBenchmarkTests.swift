import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionIntent

@Suite("Intent benchmark", .onTheCPULane)
struct IntentBenchmarkTests {
    /// The figures `reception bench` prints hang together: the overall median lies within the
    /// range of the rounds' medians, explanations cost more than the plain call, and the loop
    /// figures come from the rounds that ran.
    @Test func theTimingFiguresAreConsistent() {
        let texts = ["should i take the job or stay", "book a table for two tonight", "why is the sky blue",
                     "my friend says tomatoes are fruit, right?", "what are the options for solar panels"]
        let timing = IntentBenchmark.classification(texts, classifier: IntentClassifier(), rounds: 3)
        #expect(timing.median > 0)
        #expect(timing.roundMedians.contains(timing.median))
        #expect(timing.p90 >= timing.median)
        #expect(timing.medianExplained > timing.median)
        #expect(timing.messagesPerSecond > 0 && timing.messagesPerSecond.isFinite)
        #expect(timing.cpuPerMessage > 0)
        let result = IntentBenchmark.Result(messages: texts.count, maxWords: 8, timing: timing, evalMessages: 0, evalSeconds: 0)
        #expect(result.lowestRoundMedianNanoseconds <= result.medianNanoseconds)
        #expect(result.medianNanoseconds <= result.highestRoundMedianNanoseconds)
    }
}
