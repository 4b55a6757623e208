import Foundation
import ReceptionCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EvaluationReport {
    /// Sorted-key, pretty-printed JSON for machines (`eval --json`).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Whether both heads reach `minimum` accuracy (`eval --min-accuracy`).
    public func meets(minAccuracy minimum: Double) -> Bool {
        intent.accuracy >= minimum && urgency.accuracy >= minimum
    }
}

extension IntentClassification {
    /// One JSON object on one line (`classify --json`).
    public func jsonLine(text: String) throws -> String {
        struct Line: Encodable { var text: String; var classification: IntentClassification }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(Line(text: text, classification: self)), as: UTF8.self)
    }
}

/// A one-line progress bar on standard error, drawn only when it is a terminal.
public final class ProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private let label: String
    private let enabled: Bool
    private var lastDrawn = -1

    public init(label: String, enabled: Bool = isatty(STDERR_FILENO) != 0) {
        self.label = label
        self.enabled = enabled
    }

    public func update(_ done: Int, _ total: Int) {
        guard enabled, total > 0 else { return }
        let percent = min(100, done * 100 / total)
        lock.lock(); defer { lock.unlock() }
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let filled = percent * 30 / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
        FileHandle.standardError.write(Data("\r\(label) \(bar) \(percent)%".utf8))
    }

    public func finish() {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        if lastDrawn >= 0 { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}

/// `reception bench`: classification latency and throughput, and eval wall time at scale.
public enum IntentBenchmark {
    public struct Result: Sendable, Codable {
        public var messages: Int
        public var maxWords: Int
        public var medianNanoseconds: Double
        public var p90Nanoseconds: Double
        public var messagesPerSecond: Double
        /// `classify(_:explain: true)`, as `/intent` and `classify --explain` call it.
        public var medianNanosecondsWithExplanations: Double
        /// What reading the clock twice costs, measured in the same run and taken out of the
        /// per-call figures above (the clock is read around every call).
        public var timerOverheadNanoseconds: Double
        public var evalMessages: Int
        public var evalSeconds: Double

        public init(messages: Int, maxWords: Int, medianNanoseconds: Double, p90Nanoseconds: Double, messagesPerSecond: Double,
                    medianNanosecondsWithExplanations: Double, timerOverheadNanoseconds: Double, evalMessages: Int, evalSeconds: Double) {
            self.messages = messages
            self.maxWords = maxWords
            self.medianNanoseconds = medianNanoseconds
            self.p90Nanoseconds = p90Nanoseconds
            self.messagesPerSecond = messagesPerSecond
            self.medianNanosecondsWithExplanations = medianNanosecondsWithExplanations
            self.timerOverheadNanoseconds = timerOverheadNanoseconds
            self.evalMessages = evalMessages
            self.evalSeconds = evalSeconds
        }
    }

    /// Median over rounds of the thread's CPU time per message (insensitive to other processes).
    nonisolated(unsafe) public static var lastMedianCPUPerMessage = 0.0

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

    /// Times `classify` on each message, `rounds` times; the median is over all single calls,
    /// less the clock's own cost (`timerOverhead`). Then the same with explanations, and
    /// throughput: one thread looping over the messages.
    public static func classification(_ texts: [String], classifier: IntentClassifier, rounds: Int = 20)
        -> (median: Double, p90: Double, perSecond: Double, medianExplained: Double, timerOverhead: Double) {
        var sink = 0
        for text in texts.prefix(200) { sink &+= classifier.classify(text).intent.rawValue.count } // warm up
        func time(explain: Bool) -> [UInt64] {
            var samples: [UInt64] = []
            samples.reserveCapacity(texts.count * rounds)
            for _ in 0..<rounds {
                for text in texts {
                    let start = now()
                    let c = classifier.classify(text, explain: explain)
                    let end = now()
                    sink &+= c.intentExplanation?.chosen.contributions.count ?? c.intent.rawValue.count
                    samples.append(end - start)
                }
            }
            return samples.sorted()
        }
        let plain = time(explain: false)
        let explained = time(explain: true)
        let loopStart = now()
        var roundCPU: [Double] = []
        for _ in 0..<rounds {
            let cpuStart = cpuNow()
            for text in texts { sink &+= classifier.classify(text).urgency.rawValue.count }
            roundCPU.append(Double(cpuNow() - cpuStart) / Double(texts.count))
        }
        let loopSeconds = Double(now() - loopStart) / 1e9
        roundCPU.sort()
        lastMedianCPUPerMessage = roundCPU[roundCPU.count / 2]
        if sink == 42 { print("") }
        let overhead = timerOverhead()
        return (max(0, Double(plain[plain.count / 2]) - overhead), max(0, Double(plain[plain.count * 9 / 10]) - overhead),
                Double(texts.count * rounds) / loopSeconds, max(0, Double(explained[explained.count / 2]) - overhead), overhead)
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
