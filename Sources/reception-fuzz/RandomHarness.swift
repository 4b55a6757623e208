import Foundation
import ReceptionCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fallback when the program is not built with libFuzzer (a plain `swift build`, or a
/// toolchain without `-sanitize=fuzzer`): seeded random mutation of the given corpus, with no
/// coverage feedback. It prints its seed; the same seed, corpus and target replay the same
/// inputs. Files given as arguments, or every file of a directory, are run once first, so
/// `reception-fuzz sse crash-file` replays a crash libFuzzer found.
///
/// Options (libFuzzer's spelling): -max_total_time=S, -runs=N, -seed=N, -max_len=N,
/// -timeout=S (an input slower than that is reported and saved), -artifact_prefix=P.
/// Other `-name=value` options are ignored. Without -max_total_time and -runs, only the
/// given inputs are run.
struct RandomHarness {
    var target: FuzzTarget
    var seconds: Double?
    var runs: Int?
    var seed: UInt64 = UInt64(UInt32(truncatingIfNeeded: time(nil)))
    var maxLength = 4096
    var timeout = 1.0
    var artifactPrefix = "./"
    var inputs: [String] = []

    init(target: FuzzTarget, arguments: [String]) {
        self.target = target
        for argument in arguments {
            guard argument.hasPrefix("-"), let equals = argument.firstIndex(of: "=") else {
                inputs.append(argument)
                continue
            }
            let key = argument[argument.index(after: argument.startIndex)..<equals]
            let value = String(argument[argument.index(after: equals)...])
            switch key {
            case "max_total_time": seconds = Double(value)
            case "runs": runs = Int(value)
            case "seed": seed = UInt64(value) ?? seed
            case "max_len": maxLength = Int(value) ?? maxLength
            case "timeout": timeout = Double(value) ?? timeout
            case "artifact_prefix": artifactPrefix = value
            default: break
            }
        }
    }

    func run() -> Int32 {
        var corpus: [[UInt8]] = []
        for path in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { "\(path)/\($0)" }
                : [path]
            for file in files {
                if let data = FileManager.default.contents(atPath: file) { corpus.append([UInt8](data)) }
            }
        }
        let harness = "reception-fuzz \(target.name) (random harness, no coverage feedback)"
        print("\(harness): seed \(seed), \(corpus.count) corpus inputs, max_len \(maxLength)")
        CrashDump.install(prefix: artifactPrefix + "crash-" + target.name)

        let start = Date()
        var executions = 0
        var slowest = 0.0
        func execute(_ input: [UInt8]) {
            CrashDump.remember(input)
            let began = Date()
            target.run(input)
            let took = Date().timeIntervalSince(began)
            executions += 1
            if took > slowest { slowest = took }
            if took > timeout {
                let path = artifactPrefix + "slow-unit-" + target.name + "-\(executions)"
                _ = FileManager.default.createFile(atPath: path, contents: Data(input))
                print("SLOW: one input took \(String(format: "%.2f", took)) s (> \(timeout) s); written to \(path)")
            }
        }
        for input in corpus { execute(input) }
        print("#\(executions) corpus replayed")

        if seconds != nil || runs != nil {
            var random = SeededRandom(seed: seed)
            let pool = corpus.isEmpty ? [[]] : corpus.map { Array($0.prefix(maxLength)) }
            var reported = 1
            while true {
                if let runs, executions >= runs + corpus.count { break }
                if let seconds, Date().timeIntervalSince(start) >= seconds { break }
                var input = pool[random.below(pool.count)]
                for _ in 0...random.below(4) { Self.mutate(&input, pool: pool, random: &random) }
                if input.count > maxLength { input.removeLast(input.count - maxLength) }
                execute(input)
                if executions >= reported * 2 {
                    reported = executions
                    print("#\(executions) exec/s: \(Int(Double(executions) / max(Date().timeIntervalSince(start), 0.001)))")
                }
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        print("Done \(executions) runs in \(Int(elapsed)) s (\(Int(Double(executions) / max(elapsed, 0.001))) exec/s), slowest input \(String(format: "%.3f", slowest)) s, seed \(seed)")
        return 0
    }

    /// One libFuzzer-like mutation: flip a bit, set a byte, insert or erase a run, copy a run,
    /// splice another corpus input, or insert a token the parsers care about.
    static func mutate(_ input: inout [UInt8], pool: [[UInt8]], random: inout SeededRandom) {
        let tokens: [[UInt8]] = ["\n", "\r", "\r\n", "\n\n", ":", "data:", "event:", "id:", "---\n", "{", "}", "[", "]", "\"", ",",
                                 "\\u0000", "\\ud800", "null", "1e999", "-", "# ", "```", "**", "\t", "\u{7}", "\u{1B}[", "é", "🙂"]
            .map { Array($0.utf8) }
        let position = input.isEmpty ? 0 : random.below(input.count + 1)
        switch random.below(7) {
        case 0 where !input.isEmpty:
            input[min(position, input.count - 1)] ^= UInt8(1) << UInt8(random.below(8))
        case 1 where !input.isEmpty:
            input[min(position, input.count - 1)] = UInt8(truncatingIfNeeded: random.next())
        case 2:
            input.insert(contentsOf: (0..<random.below(8) + 1).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: position)
        case 3 where !input.isEmpty:
            let end = min(input.count, position + random.below(16) + 1)
            input.removeSubrange(min(position, input.count - 1)..<end)
        case 4 where !input.isEmpty:
            let from = random.below(input.count)
            let run = input[from..<min(input.count, from + random.below(64) + 1)]
            input.insert(contentsOf: Array(run), at: position)
        case 5:
            let other = pool[random.below(pool.count)]
            let cut = other.isEmpty ? 0 : random.below(other.count)
            input = Array(input.prefix(position)) + other[cut...]
        default:
            input.insert(contentsOf: tokens[random.below(tokens.count)], at: position)
        }
    }
}

extension SeededRandom {
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
}

/// Writes the input that was running when the process traps, so a crash found by the random
/// harness is kept like libFuzzer's `crash-…` files. Only async-signal-safe calls in the handler.
enum CrashDump {
    nonisolated(unsafe) static var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    nonisolated(unsafe) static var capacity = 1
    nonisolated(unsafe) static var length = 0
    nonisolated(unsafe) static var path: UnsafeMutablePointer<CChar>?

    static func install(prefix: String) {
        path = strdup(prefix)
        for signal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { signal in CrashDump.dump(signal) }
            #else
            action.__sigaction_u.__sa_handler = { signal in CrashDump.dump(signal) }
            #endif
            action.sa_flags = Int32(truncatingIfNeeded: SA_RESETHAND)  // 0x80000000 does not fit an Int32 as a number
            sigaction(signal, &action, nil)
        }
    }

    static func remember(_ input: [UInt8]) {
        if input.count > capacity {
            buffer.deallocate()
            capacity = input.count
            buffer = .allocate(capacity: capacity)
        }
        input.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { buffer.update(from: base, count: input.count) }
        }
        length = input.count
    }

    static func dump(_ signal: Int32) {
        if let path {
            let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            if file >= 0 {
                _ = write(file, buffer, length)
                close(file)
                let note: StaticString = "\nreception-fuzz: the crashing input is written to the crash- file named by -artifact_prefix\n"
                _ = write(2, note.utf8Start, note.utf8CodeUnitCount)
            }
        }
        raise(signal)
    }
}
