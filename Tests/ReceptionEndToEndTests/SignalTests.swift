import Foundation
import ReceptionTestSupport
import Synchronization
import Testing

/// SIGTERM and SIGHUP leave the terminal as they found it and end the
/// session cleanly; SIGINT ends a script that waits on its input.
@Suite("Signals", .serialized)
struct SignalTests {
    /// Runs reception on the terminal from a shell that afterwards prints its exit status and
    /// the terminal's settings, as the person's shell would find them.
    func session(_ arguments: String) throws -> TerminalSession {
        let binary = try Binary.reception()
        return try TerminalSession(shell: "'\(binary)' \(arguments); echo \"exit=$?\"; stty -a")
    }

    /// True when a thread of `pid` is blocked reading file descriptor 0 (Linux: the `read`
    /// system call, number 0 on x86-64 and 63 on arm64, with 0 as its first argument).
    static func isReadingStandardInput(_ pid: pid_t) -> Bool {
        #if arch(x86_64)
        let read = "0"
        #else
        let read = "63"
        #endif
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { task in
            let call = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)) ?? ""
            return call.split(separator: " ").prefix(2) == [Substring(read), "0x0"]
        }
    }

    func receptionPID(of terminal: TerminalSession) async throws -> pid_t {
        for _ in 0..<100 {
            if let child = terminal.children.first { return child }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("reception did not start under the shell")
    }

    @Test(arguments: [SIGTERM, SIGHUP])
    func aSignalAtThePromptRestoresTheTerminalAndExitsWithItsStatus(signal: Int32) async throws {
        let terminal = try session("--backend local")
        let at = try await terminal.waitFor("› ")
        kill(try await receptionPID(of: terminal), signal)
        let after = try await terminal.waitFor("exit=\(128 + signal)", after: at)
        try await terminal.waitFor("iexten", after: after)
        let settings = String(terminal.screen[after...])
        // readline turns echo and canonical input off while it reads; they must be back on.
        #expect(settings.contains(" icanon") && !settings.contains("-icanon"), "\(settings)")
        #expect(settings.contains(" echo ") && !settings.contains("-echo "), "\(settings)")
    }

    @Test func aSignalDuringATaskStopsItAndLeaves() async throws {
        // Steps of a minute: the signal lands while the task runs, however slow the machine.
        let terminal = try session("--backend local --trust 1 --local-step-ms 60000")
        var at = try await terminal.waitFor("› ")
        terminal.enter("what can reception do?")
        at = try await terminal.waitFor("→", after: at)
        // The task is running once its spinner is up (its first step is still ahead of it).
        try await terminal.waitUntil("the spinner") { _ in terminal.rawOutput.contains("(Ctrl-C cancels)") }
        kill(try await receptionPID(of: terminal), SIGTERM)
        at = try await terminal.waitFor("Stopped by SIGTERM", after: at)
        let after = try await terminal.waitFor("exit=143", after: at)
        try await terminal.waitFor("iexten", after: after)
        #expect(terminal.screen[after...].contains(" icanon"))
    }

    /// Ctrl-Z, then `fg`: while the REPL was stopped, the shell gave the terminal its own
    /// settings (line editing and echo by the terminal), and readline went on believing its
    /// own were in place: every key was echoed twice and editing keys did not work until the
    /// next prompt. On SIGCONT the reader sets the terminal up again.
    @Test func afterCtrlZAndFgTheLineIsEditedAsBefore() async throws {
        let terminal = try TerminalSession(arguments: ["--backend", "local", "--no-log", "--local-step-ms", "0"])
        var at = try await terminal.waitFor("› ")
        try await eventually("readline's settings") { (terminal.localModes ?? 0) & tcflag_t(ICANON) == 0 }
        kill(terminal.pid, SIGSTOP)
        try await eventually("the REPL to stop") {
            ((try? String(contentsOfFile: "/proc/\(terminal.pid)/stat", encoding: .utf8)) ?? "").contains(") T ")
        }
        terminal.setCooked()
        kill(terminal.pid, SIGCONT)
        try await eventually("readline's settings again", timeout: .seconds(20)) { (terminal.localModes ?? 0) & tcflag_t(ICANON | ECHO) == 0 }
        terminal.type("helo\u{7F}\u{7F}llo there")
        terminal.enter("")
        at = try await terminal.waitFor("Hello.", after: at)
        let typed = terminal.screen.components(separatedBy: "hello there").count - 1
        #expect(typed == 1, "the line shown once: \(terminal.screen)")
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }

    @Test func ctrlCEndsAScriptWaitingOnItsInput() async throws {
        let (process, input, output) = try Self.piped(["--backend", "local", "--trust", "0"])
        let shown = Mutex(Data())
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            shown.withLock { $0 += data }
        }
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data("what can reception do\n".utf8))  // answered (a plan at trust 0); then nobody writes
        // Back at the (silent) prompt: answered, and reading its standard input again.
        try await eventually("the answer, then a read of standard input", seen: { String(decoding: shown.withLock { $0 }, as: UTF8.self) }) {
            String(decoding: shown.withLock { $0 }, as: UTF8.self).contains("/approve") && Self.isReadingStandardInput(process.processIdentifier)
        }
        kill(process.processIdentifier, SIGINT)
        try? await eventually("the script to end on SIGINT") { !process.isRunning }
        #expect(!process.isRunning, "the script ended on SIGINT")
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        #expect(process.terminationStatus == 0)
        try input.fileHandleForWriting.close()
    }

    /// reception with `arguments`, in a home of its own, its input and output on pipes (not
    /// started yet).
    static func piped(_ arguments: [String]) throws -> (process: Process, input: Pipe, output: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Binary.reception())
        process.arguments = arguments
        let home = Scratch.root.appendingPathComponent("reception-sig-\(UUID().uuidString)")
        process.environment = ["HOME": home.path, "XDG_STATE_HOME": home.path + "/state", "XDG_CONFIG_HOME": home.path + "/config"]
        let input = Pipe.forChild(), output = Pipe.forChild()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        return (process, input, output)
    }

    /// A notes folder that takes seconds to read (24 MB in eight files; a debug build reads it
    /// in about ten).
    static func largeNotesFolder() throws -> URL {
        let notes = Scratch.root.appendingPathComponent("reception-large-notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        let paragraph = String(repeating: "The tidepool sync mirrors every bucket to its replica. ", count: 55_000)
        for index in 0..<8 { try ("# Note \(index)\n\n" + paragraph).write(to: notes.appendingPathComponent("n\(index).md"), atomically: true, encoding: .utf8) }
        return notes
    }

    /// A start that takes more than a moment says so on a terminal (the screen stayed blank
    /// for seconds), and Ctrl-C there stops it.
    @Test func aSlowStartSaysItIsWorkingOnATerminal() async throws {
        let notes = try Self.largeNotesFolder()
        let terminal = try session("--knowledge '\(notes.path)'")
        let spinning = try await terminal.waitFor("starting the local backend")
        terminal.type("\u{03}")
        _ = try await terminal.waitFor("Stopped starting the local backend.", after: spinning)
    }

    /// CPU time `pid` has used, in clock ticks (user + system, from /proc/PID/stat).
    static func cpuTicks(_ pid: pid_t) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the name: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13 else { return 0 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    /// A notes folder that takes seconds to read before the first prompt: SIGINT (Ctrl-C)
    /// stops the start at the next file, said in words; it was not heard until all was read.
    @Test func ctrlCWhileANotesFolderIsReadStopsTheStart() async throws {
        let notes = try Self.largeNotesFolder()
        let (process, input, output) = try Self.piped(["--knowledge", notes.path])
        try process.run()
        defer { try? input.fileHandleForWriting.close() }
        // Reading the notes: a second of CPU time spent, long after the signal handlers are set.
        try await eventually("reception to be reading the notes") { Self.cpuTicks(process.processIdentifier) >= 100 || !process.isRunning }
        #expect(process.isRunning, "the notes were read before the test could stop it")
        let signalled = ContinuousClock.now
        kill(process.processIdentifier, SIGINT)
        try? await eventually("reception to stop", timeout: .seconds(60)) { !process.isRunning }
        if process.isRunning { process.stop() }
        process.waitUntilExit()
        let waited = ContinuousClock.now - signalled
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.contains("Stopped starting the local backend."), "\(said)")
        #expect(process.terminationStatus == 1 && waited < .seconds(30), "status \(process.terminationStatus) after \(waited)")
    }
}
