import Foundation
import ReceptionCore
import ReceptionLog

// reception-log-bench: `reception logs -q` over a large conversation log. Builds a log of
// --exchanges N (default 100,000) exchanges with text of realistic length and a Zipf spread
// of words, then times searches: in this process (the query alone, warm) and, when a
// `reception` binary is beside this one (or --binary), as whole `reception logs -q` processes
// (start, open, search, print). Prints figures; asserts nothing (the machine is shared).
//
//   swift build -c release --product reception-log-bench --product reception
//   .build/release/reception-log-bench [--exchanges N] [--runs N] [--binary PATH] [--keep DIR]

struct Options {
    var exchanges = 100_000
    var runs = 20
    var binary: String?
    var keep: String?

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--exchanges": exchanges = Int(iterator.next() ?? "") ?? exchanges
            case "--runs": runs = Int(iterator.next() ?? "") ?? runs
            case "--binary": binary = iterator.next()
            case "--keep": keep = iterator.next()
            case "-h", "--help":
                print("usage: reception-log-bench [--exchanges N] [--runs N] [--binary PATH] [--keep DIR]")
                exit(0)
            default: throw BenchError("unknown argument \(argument) (try --help)")
            }
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Deterministic text: a vocabulary of made-up words whose frequencies follow Zipf's law (as
/// a language's do), and a few words of known frequency to search for.
struct TextMaker {
    var random = SeededRandom(seed: 36)
    let vocabulary: [String]
    let cumulative: [Double]

    init() {
        var random = SeededRandom(seed: 7)
        let syllables = ["ka", "lo", "mi", "ren", "tos", "va", "qui", "del", "sor", "an", "bel", "tur", "nix", "po", "ha", "ge", "rui", "fen"]
        var words = Set<String>()
        while words.count < 20_000 {
            let count = 1 + Int(random.next() % 4)  // up to 4 syllables: 18^4 words to draw from
            words.insert((0..<count).map { _ in syllables[Int(random.next() % UInt64(syllables.count))] }.joined())
        }
        vocabulary = words.sorted()
        var sum = 0.0
        cumulative = vocabulary.indices.map { index in sum += 1 / Double(index + 1); return sum }
    }

    mutating func word() -> String {
        let target = Double(random.next() % 1_000_000) / 1_000_000 * cumulative.last!
        var low = 0, high = cumulative.count - 1
        while low < high { let middle = (low + high) / 2; if cumulative[middle] < target { low = middle + 1 } else { high = middle } }
        return vocabulary[low]
    }

    mutating func sentence(_ words: Int) -> String {
        (0..<words).map { _ in word() }.joined(separator: " ") + "."
    }
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

func summary(_ values: [Double]) -> String {
    let sorted = values.sorted()
    return String(format: "median %6.2f ms  min %6.2f ms  max %6.2f ms", sorted[sorted.count / 2], sorted.first!, sorted.last!)
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let root = options.keep ?? FileManager.default.temporaryDirectory.appendingPathComponent("reception-log-bench-\(getpid())").path
    let path = root + "/reception/conversations.sqlite"
    defer { if options.keep == nil { try? FileManager.default.removeItem(atPath: root) } }
    let log = ConversationLog(path: path)
    let existing = (try? log.statistics().exchanges) ?? 0
    if existing < options.exchanges {
        // 20 exchanges per conversation; a needle word in 1 exchange in 10,000, a medium one in 1 in 100.
        var maker = TextMaker()
        let start = ContinuousClock.now
        let perConversation = 20
        var made = existing
        let base = Date().addingTimeInterval(-Double(options.exchanges) * 60)
        while made < options.exchanges {
            let number = made / perConversation
            let conversation = ConversationRecord(startedAt: base.addingTimeInterval(Double(made) * 60), backend: number % 3 == 0 ? "openai" : "local",
                                                  soul: number % 2 == 0 ? "default" : "butler", title: "")
            try log.save(conversation)
            var batch: [ExchangeRecord] = []
            for index in 0..<perConversation where made < options.exchanges {
                var message = maker.sentence(8 + made % 12)
                if made % 10_000 == 17 { message += " zanzibar" }
                if made % 100 == 3 { message += " ferry" }
                var answer = (0..<(3 + made % 5)).map { _ in maker.sentence(10 + made % 9) }.joined(separator: " ")
                if made % 100 == 51 { answer += " The ferry leaves at nine." }
                batch.append(ExchangeRecord(id: UUID().uuidString.lowercased(), conversationID: conversation.id,
                                            sentAt: conversation.startedAt.addingTimeInterval(Double(index) * 30),
                                            backend: conversation.backend, soul: conversation.soul, message: message,
                                            intent: IntentType.knownCases[made % 5], urgency: UrgencyLevel.knownCases[made % 4],
                                            shown: answer, engineText: answer, ending: .answered, engineOutcome: .complete))
                made += 1
            }
            try log.save(batch)
        }
        print(String(format: "built a log of %d exchanges in %.1f s", options.exchanges, milliseconds(start.duration(to: .now)) / 1000))
    }
    let statistics = try log.statistics()
    print(String(format: "log: %d conversations, %d exchanges, %.1f MB  (%@)", statistics.conversations, statistics.exchanges,
                 Double(statistics.bytes) / 1_048_576, path))

    let queries: [(String, String, LogFilter)] = [
        ("rare word (1 in 10,000)", "zanzibar", LogFilter()),
        ("medium word (2 in 100)", "ferry", LogFilter()),
        ("frequent word", TextMaker().vocabulary[0], LogFilter()),
        ("two words", "ferry nine", LogFilter()),
        ("phrase", "\"ferry leaves\"", LogFilter()),
        ("prefix", "zanz*", LogFilter()),
        ("word + --intent + --soul", "ferry", LogFilter(soul: "butler", intent: .research)),
        ("no match", "xylophone", LogFilter()),
    ]
    print("in process (the query and reading 20 hits; warm cache), \(options.runs) runs each:")
    for (name, query, filter) in queries {
        var times: [Double] = []
        var found = 0
        for _ in 0..<options.runs {
            let start = ContinuousClock.now
            found = try log.search(query, matching: filter, limit: 20).count
            times.append(milliseconds(start.duration(to: .now)))
        }
        print("  \(name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(summary(times))  \(found) hits")
    }

    let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    let binary = options.binary ?? here.appendingPathComponent("reception").path
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        print("(no reception binary at \(binary): whole-process figures skipped; --binary PATH)")
        exit(0)
    }
    print("whole `reception logs -q` processes (\(binary)), \(options.runs) runs each:")
    for (name, query, _) in queries.prefix(3) + [queries[7]] {
        var times: [Double] = []
        var baseline: [Double] = []
        for _ in 0..<options.runs {
            for (arguments, into) in [(["logs", "-q", query], 0), (["--version"], 1)] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = arguments
                process.environment = ["XDG_DATA_HOME": root, "HOME": root, "PATH": "/usr/bin:/bin"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                let start = ContinuousClock.now
                try process.run()
                process.waitUntilExit()
                let elapsed = milliseconds(start.duration(to: .now))
                if into == 0 { times.append(elapsed) } else { baseline.append(elapsed) }
            }
        }
        print("  \(name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(summary(times))   (reception --version: \(summary(baseline)))")
    }
} catch {
    FileHandle.standardError.write(Data("reception-log-bench: \(error)\n".utf8))
    exit(1)
}
