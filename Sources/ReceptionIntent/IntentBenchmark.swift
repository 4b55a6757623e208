import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `reception bench`: classification latency and throughput, and eval wall time at scale.
public enum IntentBenchmark {
    /// What `reception bench --json` prints.
    public struct Result: Sendable, Codable {
        public var messages: Int
        public var maxWords: Int
        public var medianNanoseconds: Double
        public var p90Nanoseconds: Double
        /// The lowest and the highest median of a single round: how much the machine moved
        /// during the run.
        public var lowestRoundMedianNanoseconds: Double
        public var highestRoundMedianNanoseconds: Double
        public var messagesPerSecond: Double
        /// Median over rounds of the thread's CPU time per message, in the untimed loop.
        public var cpuNanosecondsPerMessage: Double
        /// `classify(_:explain: true)`, as `/intent` and `classify --explain` call it.
        public var medianNanosecondsWithExplanations: Double
        /// What reading the clock twice costs, measured in the same run and taken out of the
        /// per-call figures above (the clock is read around every call).
        public var timerOverheadNanoseconds: Double
        public var evalMessages: Int
        public var evalSeconds: Double

        public init(messages: Int, maxWords: Int, timing: Timing, evalMessages: Int, evalSeconds: Double) {
            self.messages = messages
            self.maxWords = maxWords
            medianNanoseconds = timing.median
            p90Nanoseconds = timing.p90
            lowestRoundMedianNanoseconds = timing.roundMedians.lowerBound
            highestRoundMedianNanoseconds = timing.roundMedians.upperBound
            messagesPerSecond = timing.messagesPerSecond
            cpuNanosecondsPerMessage = timing.cpuPerMessage
            medianNanosecondsWithExplanations = timing.medianExplained
            timerOverheadNanoseconds = timing.timerOverhead
            self.evalMessages = evalMessages
            self.evalSeconds = evalSeconds
        }
    }

    /// The figures of `classification`, in nanoseconds per message unless named otherwise.
    public struct Timing: Sendable {
        /// Median and 90th percentile over all single timed calls, less the clock's own cost.
        public var median: Double
        public var p90: Double
        /// The lowest and the highest median of one round's timed calls.
        public var roundMedians: ClosedRange<Double>
        /// The median of single calls with explanations.
        public var medianExplained: Double
        /// One thread classifying in a loop with no clock around each call (wall time).
        public var messagesPerSecond: Double
        /// Median over rounds of the thread's CPU time per message in that loop.
        public var cpuPerMessage: Double
        /// What reading the clock twice costs (taken out of `median`, `p90`, `medianExplained`).
        public var timerOverhead: Double
    }

    static func cpuNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The median time between two clock readings with nothing in between: what each timed call
    /// also pays (tens of nanoseconds under a hypervisor).
    static func timerOverhead(samples: Int = 20_000) -> Double {
        var gaps: [UInt64] = []
        gaps.reserveCapacity(samples)
        for _ in 0..<samples {
            let start = now()
            gaps.append(now() - start)
        }
        gaps.sort()
        return Double(gaps[gaps.count / 2])
    }

    /// Times `classify` on each message, `rounds` times: each call alone (the median is over
    /// all single calls), each call with explanations, and one thread looping over the
    /// messages (throughput).
    ///
    /// Each round runs all three, one after the other, rather than all rounds of one before
    /// the next: on a shared machine the speed moves by half within seconds as other tenants
    /// come and go, and interleaved figures see the same conditions, so they can be compared.
    public static func classification(_ texts: [String], classifier: IntentClassifier, rounds: Int = 20) -> Timing {
        precondition(!texts.isEmpty && rounds > 0, "nothing to time")
        var sink = 0
        for text in texts.prefix(200) { sink &+= classifier.classify(text).intent.rawValue.count } // warm up
        var plain: [UInt64] = [], explained: [UInt64] = [], round: [UInt64] = []
        plain.reserveCapacity(texts.count * rounds)
        explained.reserveCapacity(texts.count * rounds)
        round.reserveCapacity(texts.count)
        var roundMedians: [UInt64] = [], roundCPU: [Double] = []
        var loopNanoseconds: UInt64 = 0
        for _ in 0..<rounds {
            round.removeAll(keepingCapacity: true)
            for text in texts {
                let start = now()
                let c = classifier.classify(text)
                let end = now()
                sink &+= c.intent.rawValue.count
                round.append(end - start)
            }
            plain += round
            round.sort()
            roundMedians.append(round[round.count / 2])
            for text in texts {
                let start = now()
                let c = classifier.classify(text, explain: true)
                let end = now()
                sink &+= c.intentExplanation?.chosen.contributions.count ?? 0
                explained.append(end - start)
            }
            let loopStart = now(), cpuStart = cpuNow()
            for text in texts { sink &+= classifier.classify(text).urgency.rawValue.count }
            roundCPU.append(Double(cpuNow() - cpuStart) / Double(texts.count))
            loopNanoseconds += now() - loopStart
        }
        if sink == 42 { print("") }
        plain.sort()
        explained.sort()
        roundMedians.sort()
        roundCPU.sort()
        let overhead = timerOverhead()
        func call(_ nanoseconds: UInt64) -> Double { max(0, Double(nanoseconds) - overhead) }
        return Timing(median: call(plain[plain.count / 2]), p90: call(plain[plain.count * 9 / 10]),
                      roundMedians: call(roundMedians[0])...call(roundMedians[roundMedians.count - 1]),
                      medianExplained: call(explained[explained.count / 2]),
                      messagesPerSecond: Double(texts.count * rounds) / (Double(loopNanoseconds) / 1e9),
                      cpuPerMessage: roundCPU[roundCPU.count / 2], timerOverhead: overhead)
    }

    /// Thread CPU time per message of each stage of a classification, cumulatively: reading the
    /// message's bytes, the raw word scan, tokenizing (with the token-table lookups), extracting
    /// features (without copying them out), and the whole `classify`.
    public static func stages(_ texts: [String], classifier: IntentClassifier, rounds: Int) -> [(String, Double)] {
        let extractor = classifier.extractor
        var sink = 0
        func time(_ body: (String) -> Int) -> Double {
            let start = cpuNow()
            for _ in 0..<rounds { for text in texts { sink &+= body(text) } }
            return Double(cpuNow() - start) / Double(rounds * texts.count)
        }
        // The raw word scan alone: what tokenizing costs before any table lookup.
        func scan(_ text: String) -> Int {
            var words = 0
            func run(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
                _ = RawTokenizer.scan(bytes) { _, _, _, _, _, _, _ in words &+= 1 }
                return words
            }
            return TextNormalizer.withNormalizedBytes(text, run)
        }
        func bytes(_ text: String) -> Int {
            TextNormalizer.withNormalizedBytes(text) { $0.count }
        }
        let result = [
            ("bytes", time(bytes)),
            ("scan", time(scan)),
            ("tokens", time { extractor.tokenCount($0) }),
            ("features", time { extractor.withFeatures($0, goal: nil) { active, _ in active.count } }),
            ("classify", time { classifier.classify($0).intent.rawValue.count }),
        ]
        if sink == 42 { print("") }
        return result
    }

    /// Writes a JSONL corpus of `count` messages cycling through `messages`.
    public static func writeCorpus(_ messages: [LabelledMessage], count: Int, to url: URL) throws {
        var text = ""
        text.reserveCapacity(count * 150)
        for i in 0..<count {
            var message = messages[i % messages.count]
            message.id = "bench-\(i)"
            message.note = nil
            text += message.jsonLine
            text += "\n"
        }
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// Wall time of reading and evaluating a corpus file, as `reception eval` does it.
    public static func evalSeconds(path: String, classifier: IntentClassifier) throws -> (Double, EvaluationReport) {
        let start = now()
        let read = try CorpusReader().read(path: path)
        let report = EvaluationReport.evaluate(read.messages, classifier: classifier, files: [path], issues: read.issues)
        return (Double(now() - start) / 1e9, report)
    }
}
