import CPseudoTerminal
import Foundation
import ReceptionTestSupport
import Synchronization
import Testing

/// The real `reception` binary on a real pseudo-terminal: what a person at a terminal
/// sees, keystroke by keystroke. ^C typed here reaches the program as SIGINT because the
/// terminal is its controlling tty.
final class TerminalSession: Sendable {
    let pid: pid_t
    private let master: Int32
    private let received = Mutex<[UInt8]>([])
    /// When each read from the terminal arrived, and how many bytes had arrived with it: the
    /// reader thread's clock, not the test's, so when something was shown does not depend on
    /// how soon a busy machine lets the test look.
    private let arrivals = Mutex<[(bytes: Int, at: ContinuousClock.Instant)]>([])
    private let closed = Mutex(false)
    let home: URL

    /// `environment`: variables added to (or replacing) the session's few (`NAME=value`).
    convenience init(arguments: [String], home: URL? = nil, rows: UInt16 = 50, columns: UInt16 = 250,
                     environment: [String] = []) throws {
        let binary = try Binary.reception()
        try self.init(argv: [binary] + arguments, home: home, rows: rows, columns: columns, environment: environment)
    }

    /// A shell command line on the terminal, e.g. to run `stty -a` after `reception` ends.
    convenience init(shell command: String, home: URL? = nil) throws {
        try self.init(argv: ["/bin/sh", "-c", command], home: home)
    }

    init(argv: [String], home: URL?, rows: UInt16 = 50, columns: UInt16 = 250, environment extra: [String] = []) throws {
        let binary = argv[0]
        let home = home ?? Scratch.root.appendingPathComponent("reception-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        self.home = home
        let environment = [
            "HOME=\(home.path)", "XDG_STATE_HOME=\(home.path)/state", "XDG_CONFIG_HOME=\(home.path)/config",
            "TERM=xterm-256color", "LANG=C.UTF-8", "PATH=/usr/bin:/bin",
            // No looking for model servers on this machine's usual ports: a developer's running
            // Ollama must not change what a test sees. Tests of that look name their own ports.
            "RECEPTION_LOCAL_SERVERS=",
        ].filter { variable in !extra.contains { $0.prefix { $0 != "=" } == variable.prefix { $0 != "=" } } } + extra
        var master: Int32 = -1
        let pid = withCStrings(argv) { argvPointers in
            withCStrings(environment) { envPointers in
                reception_spawn_on_pty(binary, argvPointers, envPointers, rows, columns, &master)
            }
        }
        guard pid > 0 else { throw HarnessError("could not start \(binary) on a pseudo-terminal") }
        self.pid = pid
        self.master = master
        let fd = master
        // The program writes to the terminal; read everything it shows on a thread.
        // It polls rather than blocking in read: a read in progress would keep the terminal
        // open after `hangUp` closes it, and the program would never see the hang-up.
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !hangingUp.withLock({ $0 }) {
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 50) >= 0 || errno == EINTR else { break }
                if ready.revents == 0 { continue }
                let count = read(fd, &buffer, buffer.count)
                // A read a signal interrupted is no hang-up: taken for one, the screen would stop
                // growing while the program still ran. (Not EAGAIN: a master whose other side is
                // gone keeps answering it, and the loop would spin.)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                let total = received.withLock { received in
                    received += buffer[0..<count]
                    return received.count
                }
                arrivals.withLock { $0.append((total, .now)) }
            }
            // The reader closes what it reads: closed under it by `hangUp`, the number could be
            // another test's descriptor by its next poll, and it would read that test's bytes.
            closeMaster()
            closed.withLock { $0 = true }
        }
    }

    /// When `text` was first on the screen after position `start` (as `waitFor` returns it), by
    /// the reader's clock; nil if it has not been.
    func firstShown(_ text: String, after start: String.Index? = nil) -> ContinuousClock.Instant? {
        let current = screen
        let offset = start.map { current.utf8.distance(from: current.startIndex, to: min($0, current.endIndex)) } ?? 0
        let bytes = received.withLock { $0 }
        for arrival in arrivals.withLock({ $0 }) {
            let shown = Self.stripANSI(Self.settled(String(decoding: bytes[..<arrival.bytes], as: UTF8.self)))
            guard shown.utf8.count > offset else { continue }
            if String(decoding: shown.utf8.dropFirst(offset), as: UTF8.self).contains(text) {
                return arrival.at
            }
        }
        return nil
    }

    /// Everything shown so far, with ANSI escape sequences removed.
    var screen: String { Self.stripANSI(Self.settled(String(decoding: received.withLock { $0 }, as: UTF8.self))) }

    /// The output less a tail still arriving (an escape sequence cut before its final letter,
    /// a "\r" whose "\n" may follow): read with it, the text would shrink once the rest came,
    /// and an index `waitFor` returned earlier would point past what it found.
    static func settled(_ raw: String) -> String {
        var text = raw
        if let escape = text.lastIndex(of: "\u{1B}"),
           text[escape...].range(of: "^\u{1B}(\\[[0-9;?]*)?$", options: .regularExpression) != nil {
            text = String(text[..<escape])
        }
        if text.hasSuffix("\r") { text.removeLast() }
        return text
    }
    var rawOutput: String { String(decoding: received.withLock { $0 }, as: UTF8.self) }

    func type(_ text: String) {
        let bytes = Array(text.utf8)
        masterOpen.withLock { open in
            guard open else { return }
            _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, bytes.count) }
        }
    }

    /// Gives the terminal a new size, as a person dragging its window does (the program gets
    /// SIGWINCH and reads the new size).
    func resize(rows: UInt16, columns: UInt16) {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    /// The terminal's line settings as the program sees them (its local modes: ICANON, ECHO).
    var localModes: tcflag_t? {
        withSlave { fd in
            var settings = termios()
            return tcgetattr(fd, &settings) == 0 ? settings.c_lflag : nil
        } ?? nil
    }

    /// Line editing and echo by the terminal itself, as a shell sets them when it takes the
    /// terminal back from a stopped job.
    func setCooked() {
        _ = withSlave { fd in
            var settings = termios()
            guard tcgetattr(fd, &settings) == 0 else { return }
            settings.c_lflag |= tcflag_t(ICANON | ECHO)
            tcsetattr(fd, TCSANOW, &settings)
        }
    }

    private func withSlave<T>(_ body: (Int32) -> T) -> T? {
        var name = [CChar](repeating: 0, count: 64)
        guard reception_pty_slave_name(master, &name, UInt(name.count)) == 0 else { return nil }
        let fd = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return body(fd)
    }

    /// Types a line and presses Enter.
    func enter(_ line: String) { type(line + "\r") }

    /// Waits until `text` appears after position `after` of the screen; returns the position after it.
    @discardableResult
    func waitFor(_ text: String, after start: String.Index? = nil, timeout: Duration = .seconds(120),
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> String.Index {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            // Whether the program has closed the terminal is read before the screen: the reader
            // appends the last output before it marks the terminal closed, so a screen read after
            // seeing "closed" holds everything. Read the other way round, the last output could
            // arrive between the two reads and a text that is there be reported missing.
            let ended = closed.withLock { $0 }
            let current = screen
            let from = start.map { min($0, current.endIndex) } ?? current.startIndex
            if let range = current.range(of: text, range: from..<current.endIndex) { return range.upperBound }
            if ended { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("Timed out waiting for \"\(text)\". Screen:\n\(screen)", sourceLocation: sourceLocation)
        throw HarnessError("timed out")
    }

    /// Waits until the screen satisfies `condition`.
    func waitUntil(_ what: String, timeout: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation,
                   _ condition: (String) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(screen) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("Timed out waiting for \(what). Screen:\n\(screen)", sourceLocation: sourceLocation)
        throw HarnessError("timed out")
    }

    /// Waits for the process to end; nil if it is still running after `timeout`.
    func exitStatus(timeout: Duration = .seconds(60)) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            // A process a signal ended reads as 128 + the signal, as a shell shows it (a crash
            // is then 132 or 139, not 0).
            if waitpid(pid, &status, WNOHANG) == pid { return status & 0x7f != 0 ? 128 + (status & 0x7f) : (status >> 8) & 0xff }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    var isRunning: Bool { kill(pid, 0) == 0 }

    /// The processes this one started (a shell's command), from /proc.
    var children: [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0) }
    }

    /// Closes the terminal, as closing its window does: the program gets SIGHUP, and every
    /// write to the terminal fails from then on.
    func hangUp() {
        hangingUp.withLock { $0 = true }
        // The reader stops within one poll interval and closes the terminal; a machine too
        // loaded to run it for half a minute gets it closed here.
        for _ in 0..<3_000 where !closed.withLock({ $0 }) { usleep(10_000) }
        closeMaster()
    }

    private func closeMaster() {
        masterOpen.withLock { open in
            if open { close(master) }
            open = false
        }
    }

    private let masterOpen = Mutex(true)
    private let hangingUp = Mutex(false)

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        hangUp()
    }

    /// Removes escape sequences and applies backspaces, as the terminal would show it
    /// (readline redraws an edited line by backing up over it).
    static func stripANSI(_ text: String) -> String {
        let plain = text.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
            .replacingOccurrences(of: "\u{1}", with: "").replacingOccurrences(of: "\u{2}", with: "")
            .replacingOccurrences(of: "\r\n", with: "\n")
        var shown: [Character] = []
        for character in plain {
            if character == "\u{8}" { if shown.last.map({ $0 != "\n" }) == true { shown.removeLast() } } else { shown.append(character) }
        }
        return String(shown)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum Binary {
    /// The `reception` built by `swift build`/`swift test` in this checkout (or $RECEPTION_BINARY).
    static func reception() throws -> String {
        if let override = ProcessInfo.processInfo.environment["RECEPTION_BINARY"] { return override }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("reception"),
                          Bundle.main.bundleURL.appendingPathComponent("reception"),
                          root.appendingPathComponent(".build/debug/reception")]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw HarnessError("the reception binary is not built; looked at \(candidates.map(\.path))")
        }
        return found.path
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
