import ArgumentParser
import Foundation
import ReceptionIntent

/// `reception bench`: classification latency/throughput and eval wall time at 100k messages.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark the intent classifier (build with -c release).",
        discussion: """
        Times classify on every message of the corpus of up to 40 words, --rounds times: \
        each call alone (median, 90th percentile and the range of one round's median, in \
        nanoseconds less the cost of reading the clock, measured in the same run), each call \
        with explanations (as /intent and classify --explain build them), and a loop with no \
        clock around each call (messages per second, thread CPU time per message). Each round \
        runs all three, so on a busy machine they see the same conditions. Then writes a \
        --messages-line JSONL corpus cycling through the same messages and times `eval` on it \
        (read, classify, metrics).
        """)

    @Option(name: .long, help: ArgumentHelp("Labelled corpus to draw messages from.", valueName: "file"))
    var corpus = "Tests/Corpora/test.jsonl"

    @Option(name: .long, help: "Timing rounds over the corpus.")
    var rounds = 20

    @Option(name: .long, help: "Size of the generated corpus for the eval timing.")
    var messages = 100_000

    @Flag(name: .long, help: "Also time the stages of a classification, for profiling: reading the bytes, the raw word scan, tokens (with table lookups), features, and the whole classify.")
    var stages = false

    @Flag(name: .long, help: "Print the figures as JSON.")
    var json = false

    @OptionGroup var model: IntentModelOptions

    func validate() throws {
        guard rounds > 0 else { throw ValidationError("--rounds must be at least 1.") }
        guard messages > 0 else { throw ValidationError("--messages must be at least 1.") }
    }

    func run() throws {
        let classifier: IntentClassifier
        do { classifier = try model.classifier() } catch { printError("error: \(error)"); throw ExitCode.failure }
        let source: [LabelledMessage]
        guard FileManager.default.fileExists(atPath: corpus) else {
            // The default is relative to the repository root: say so.
            printError("error: no corpus at \(corpus). Run from the Reception repository root, or pass --corpus FILE (a labelled JSONL, CSV or TSV corpus).")
            throw ExitCode.failure
        }
        do { source = try CorpusReader().read(path: corpus).messages } catch { printError("error: \(error)"); throw ExitCode.failure }
        let short = source.filter { $0.text.split(whereSeparator: { $0 == " " || $0 == "\n" }).count <= 40 }
        guard !short.isEmpty else { printError("error: no messages of up to 40 words in \(corpus)"); throw ExitCode.failure }
        let maxWords = short.map { $0.text.split(separator: " ").count }.max() ?? 0
        let timing = IntentBenchmark.classification(short.map(\.text), classifier: classifier, rounds: rounds)
        if stages {
            // Cumulative: each stage includes the ones before it.
            print("stages (thread CPU ns/message, each including the stages above it):")
            for (name, nanoseconds) in IntentBenchmark.stages(short.map(\.text), classifier: classifier, rounds: rounds) {
                print("  \(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(Int(nanoseconds))")
            }
        }
        // A new private folder, never one already there: the temporary folder is shared.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reception-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bench.jsonl")
        try IntentBenchmark.writeCorpus(short, count: messages, to: file)
        let (seconds, report) = try IntentBenchmark.evalSeconds(path: file.path, classifier: classifier)
        let result = IntentBenchmark.Result(messages: short.count, maxWords: maxWords, timing: timing,
                                            evalMessages: report.count, evalSeconds: seconds)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
            return
        }
        print("classify: \(short.count) messages (≤ \(maxWords) words) × \(rounds) rounds")
        print("  median \(Int(timing.median)) ns/message (p90 \(Int(timing.p90)) ns; one round's median " +
              "\(Int(timing.roundMedians.lowerBound))–\(Int(timing.roundMedians.upperBound)) ns)")
        print("  with explanations: median \(Int(timing.medianExplained)) ns/message")
        print("  (per-call figures exclude the clock's own cost, \(Int(timing.timerOverhead)) ns, measured in this run)")
        print("  in a loop: \(Int(timing.messagesPerSecond)) messages/s on one thread, " +
              "\(Int(timing.cpuPerMessage)) ns of thread CPU time per message (median over rounds)")
        print("eval: \(report.count) messages in \(String(format: "%.3f", seconds)) s (read + classify + metrics)")
    }
}
