import Foundation
import ReceptionTestSupport
import Synchronization

/// `reception` with its stdin and stdout on pipes: no terminal, so the REPL reads a script.
enum PipedREPL {
    /// Runs `reception ARGUMENTS` with `input` on stdin, in `home` (`$HOME`, with state and
    /// config below it; `XDG_DATA_HOME` left unset so data follows `$HOME`). Returns all it
    /// printed, stdout and stderr interleaved, and its exit status.
    static func run(_ arguments: [String], input: String, home: URL? = nil,
                    environment extra: [String: String] = [:], executable: String? = nil) async throws -> (output: String, status: Int32) {
        let (output, _, status) = try await run(arguments, input: input, home: home, environment: extra, separateErrors: false, executable: executable)
        return (output, status)
    }

    /// As `run`, with standard error on a pipe of its own when `separateErrors` is true.
    /// `executable` runs instead of the binary (a shell that sets limits, then runs it).
    ///
    /// The process is waited for on a thread of its own: blocking reads on one of the
    /// cooperative pool's threads (two on a 2-core machine) would stall every other test's
    /// async work, and their deadlines would pass while they wait for a thread.
    static func run(_ arguments: [String], input: String, home: URL? = nil, environment extra: [String: String] = [:],
                    separateErrors: Bool, executable: String? = nil) async throws -> (output: String, errors: String, status: Int32) {
        let executable = try executable ?? Binary.reception()
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try runBlocking(arguments, input: input, home: home, environment: extra, separateErrors: separateErrors, executable: executable)
                })
            }
        }
    }

    /// `run` on the calling thread, for a caller that must stay synchronous (one holding a
    /// database lock in a synchronous closure while Reception runs).
    static func runBlocking(_ arguments: [String], input: String, home: URL?, environment extra: [String: String] = [:],
                                    separateErrors: Bool = false, executable: String) throws -> (output: String, errors: String, status: Int32) {
        let home = home ?? Scratch.root.appendingPathComponent("reception-pipe-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ["HOME": home.path, "XDG_STATE_HOME": home.path + "/state", "XDG_CONFIG_HOME": home.path + "/config", "TERM": "xterm"]
            .merging(extra) { _, new in new }
        process.currentDirectoryURL = Binary.repositoryRoot
        let stdin = Pipe.forChild(), stdout = Pipe.forChild(), stderr = Pipe.forChild()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = separateErrors ? stderr : stdout
        try process.run()
        // A program may end without reading its input (a refused argument): the write then
        // meets a closed pipe, which the non-throwing `write(_:)` turns into a crash of the
        // whole test process. What the program printed is the answer either way.
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        // Read standard error beside standard output, so neither pipe fills up and blocks.
        let errors = Mutex(Data())
        let reader = Thread { errors.withLock { $0 = stderr.fileHandleForReading.readDataToEndOfFile() } }
        if separateErrors { reader.start() }
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        if separateErrors { while errors.withLock({ $0.isEmpty }) && !reader.isFinished { usleep(1000) } }
        return (String(decoding: data, as: UTF8.self), String(decoding: errors.withLock { $0 }, as: UTF8.self), process.terminationStatus)
    }
}
