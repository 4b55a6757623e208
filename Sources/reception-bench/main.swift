import CPseudoTerminal
import Foundation

// reception-bench: cold start to first prompt and peak memory of the real binary, on a
// real pseudo-terminal (readline and all). Prints figures; it asserts nothing, because
// shared machines are noisy: compare the numbers inside one run.
//
//   swift build -c release && swift run -c release reception-bench [--runs N] [--binary PATH] [--against PATH]
//
// Wall times on a shared machine move with its load; the CPU time the program used (user +
// system, from wait4) moves much less, and `--against` runs a second binary interleaved with
// the first so that their ratio is taken under the same load.

struct Options {
    var runs = 15
    var binary: String?
    var against: String?

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--runs": runs = Int(iterator.next() ?? "") ?? runs
            case "--binary": binary = iterator.next()
            case "--against": against = iterator.next()
            case "-h", "--help":
                print("""
                    usage: reception-bench [--runs N] [--binary PATH] [--against PATH]
                    Measures cold start to the first prompt, CPU time and peak memory of `reception` on a
                    pseudo-terminal. --against PATH measures a second binary in the same run, interleaved,
                    and prints each figure's ratio (binary / against).
                    """)
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

struct Sample {
    var startup: Duration
    var peakKiB: Int
    /// User + system CPU time of the whole run (start, the scripted input, exit).
    var cpu: Duration
}

/// Starts `binary` on a pty, waits for `marker` in its output, types `input`, and reaps
/// it: returns the time to the marker and the peak resident set size.
func measure(_ binary: String, arguments: [String], marker: String, input: String, home: String) throws -> Sample {
    let environment = ["HOME=\(home)", "XDG_STATE_HOME=\(home)/state", "XDG_CONFIG_HOME=\(home)/config", "TERM=xterm-256color", "LANG=C.UTF-8"]
    var cStrings = ([binary] + arguments).map { strdup($0) } + [nil]
    var cEnvironment = environment.map { strdup($0) } + [nil]
    defer { (cStrings + cEnvironment).forEach { free($0) } }
    var master: Int32 = -1
    let start = ContinuousClock.now
    let pid = reception_spawn_on_pty(binary, &cStrings, &cEnvironment, 40, 120, &master)
    guard pid > 0 else { throw BenchError("could not start \(binary)") }
    defer { close(master) }
    var seen = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    var elapsed: Duration?
    let needle = Array(marker.utf8)
    while elapsed == nil {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 10_000) > 0 else { kill(pid, SIGKILL); throw BenchError("no prompt within 10 s") }
        let count = read(master, &buffer, buffer.count)
        guard count > 0 else { throw BenchError("the program ended before its prompt: \(String(decoding: seen, as: UTF8.self))") }
        seen += buffer[0..<count]
        if seen.count >= needle.count, (0...(seen.count - needle.count)).contains(where: { seen[$0..<($0 + needle.count)].elementsEqual(needle) }) {
            elapsed = start.duration(to: .now)
        }
    }
    _ = input.withCString { write(master, $0, strlen($0)) }
    // Drain until the program exits so it never blocks on a full terminal buffer.
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, WNOHANG, &usage) == 0 {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, 50) > 0 { _ = read(master, &buffer, buffer.count) }
    }
    let cpu = Duration.seconds(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Duration.microseconds(Int64(usage.ru_utime.tv_usec) + Int64(usage.ru_stime.tv_usec))
    return Sample(startup: elapsed!, peakKiB: usage.ru_maxrss, cpu: cpu)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

struct Summary {
    var medianMilliseconds: Double
    var minimumMilliseconds: Double
    var maximumMilliseconds: Double
    var medianCPUMilliseconds: Double
    var peakMegabytes: Double

    init(_ samples: [Sample]) {
        let times = samples.map { milliseconds($0.startup) }.sorted()
        medianMilliseconds = times[times.count / 2]
        minimumMilliseconds = times.first!
        maximumMilliseconds = times.last!
        medianCPUMilliseconds = samples.map { milliseconds($0.cpu) }.sorted()[samples.count / 2]
        peakMegabytes = Double(samples.map(\.peakKiB).max() ?? 0) / 1024
    }
}

func reportScenario(_ name: String, _ samples: [Sample]) -> Summary {
    let summary = Summary(samples)
    print(String(format: "%@  median %.1f ms  min %.1f ms  max %.1f ms  cpu %.1f ms  peak RSS %.1f MB  (%d runs)",
                 name.padding(toLength: 34, withPad: " ", startingAt: 0), summary.medianMilliseconds, summary.minimumMilliseconds,
                 summary.maximumMilliseconds, summary.medianCPUMilliseconds, summary.peakMegabytes, samples.count))
    return summary
}

/// The three scenarios, for one binary.
struct Scenarios {
    var baseline: [Sample] = []
    var startup: [Sample] = []
    var firstAnswer: [Sample] = []

    mutating func run(_ binary: String, home: String) throws {
        baseline.append(try measure(binary, arguments: ["--version"], marker: "0.", input: "", home: home))
        startup.append(try measure(binary, arguments: ["--no-history"], marker: "›", input: "/quit\r", home: home))
        firstAnswer.append(try measure(binary, arguments: ["--no-history", "--trust", "1", "--local-step-ms", "0"], marker: "›",
                                       input: "what can reception do?\r/quit\r", home: home))
    }

    func report(_ binary: String) -> [Summary] {
        print("binary: \(binary)")
        let summaries = [
            reportScenario("process start (--version)", baseline),
            reportScenario("cold start to first prompt", startup),
            reportScenario("…plus one answered message (RSS)", firstAnswer),
        ]
        print(String(format: "startup / process-start ratio: %.2f   targets: first prompt ≤ 34 ms (quiet machine), peak after one answer < 30 MB",
                     summaries[1].medianMilliseconds / max(0.001, summaries[0].medianMilliseconds)))
        return summaries
    }
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    let binary = options.binary ?? here.appendingPathComponent("reception").path
    guard FileManager.default.isExecutableFile(atPath: binary) else {
        throw BenchError("\(binary) is not built; run `swift build -c release` first or pass --binary")
    }
    if let against = options.against, !FileManager.default.isExecutableFile(atPath: against) {
        throw BenchError("\(against) is not an executable")
    }
    // A new private folder, never one already there: the temporary folder is shared.
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("reception-bench-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false,
                                            attributes: [.posixPermissions: 0o700])
    defer { try? FileManager.default.removeItem(atPath: home) }
    var measured = Scenarios()
    var compared = Scenarios()
    // Warm the page cache, so the first measured run is not the only one reading from disk.
    _ = try measure(binary, arguments: ["--no-history"], marker: "›", input: "/quit\r", home: home)
    if let against = options.against { _ = try measure(against, arguments: ["--no-history"], marker: "›", input: "/quit\r", home: home) }
    for _ in 0..<options.runs {
        try measured.run(binary, home: home)
        if let against = options.against { try compared.run(against, home: home) }
    }
    let mine = measured.report(binary)
    if let against = options.against {
        let theirs = compared.report(against)
        print("ratios (binary / against), medians of the interleaved runs:")
        for (name, (a, b)) in zip(["process start", "first prompt", "one answer"], zip(mine, theirs)) {
            print(String(format: "  %@  wall %.2f  cpu %.2f  peak RSS %.2f", name.padding(toLength: 14, withPad: " ", startingAt: 0),
                         a.medianMilliseconds / b.medianMilliseconds, a.medianCPUMilliseconds / max(0.001, b.medianCPUMilliseconds),
                         a.peakMegabytes / b.peakMegabytes))
        }
    }
} catch {
    FileHandle.standardError.write(Data("reception-bench: \(error)\n".utf8))
    exit(1)
}
