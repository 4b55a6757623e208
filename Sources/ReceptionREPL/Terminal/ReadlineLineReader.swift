import CReadline
import Foundation
import ReceptionCore
import Synchronization

/// GNU readline in callback mode: line editing, persistent history, tab completion and
/// Ctrl-C that discards the line instead of killing the program.
///
/// readline is single-threaded C state, so one dedicated thread owns it: it polls stdin
/// and a wake-up pipe (written on SIGINT/SIGWINCH) and feeds readline one key at a time.
public final class ReadlineLineReader: LineReader, @unchecked Sendable {
    public var isInteractive: Bool { true }

    // @unchecked: every readline call happens on `thread`; the Swift state below is
    // guarded by `lock`.
    /// Where typed lines are kept (nil: in memory only). Replaced when it is trimmed.
    private let history: Mutex<HistoryFile?>
    private let lock = NSLock()
    private let wakePipe: (read: Int32, write: Int32)
    private var pendingSignals: [Int32] = []
    /// The terminal's settings from before an idle wake turned echo off (`suppressEcho`).
    private var echoSettings: termios?

    /// Completion candidates for a line typed so far: called on the readline thread.
    public typealias Completer = @Sendable (_ line: String, _ word: String) -> [String]

    /// Why the history file asked for is not used (a FIFO, a link, a device...), for the caller
    /// to say once; the session then keeps its history in memory only.
    public let historyProblem: String?

    public init(historyPath: String?, completer: @escaping Completer) {
        let opened = historyPath.map(HistoryFile.open)
        historyProblem = opened?.problem
        let file = opened?.file
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        wakePipe = (fds[0], fds[1])
        ReadlineGlobals.completer.withLock { $0 = completer }
        reception_rl_configure("reception", readlineCompletion)
        using_history()
        // readline keeps the history in memory only: it would open the file by name at every
        // line (following a link put there meanwhile). The file is read and written here.
        for line in file?.lines().suffix(2000) ?? [] { add_history(line) }
        history = Mutex(file?.trimmed(to: 2000))
        InterruptMonitor.shared.setResizeHandler { [weak self] in self?.wake(with: SIGWINCH) }
        InterruptMonitor.shared.setContinueHandler { [weak self] in self?.wake(with: SIGCONT) }
    }

    public func remember(_ line: String) {
        guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        add_history(line)
        history.withLock { $0?.append(line) }  // every line at once: nothing lost on a crash
    }

    public func readLine(prompt: String) async -> LineInput {
        let previous = InterruptMonitor.shared.push { [weak self] in self?.wake(with: SIGINT) }
        defer { InterruptMonitor.shared.restore(previous) }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(returning: self.readBlocking(prompt: prompt))
            }
        }
    }

    /// Not a signal: the REPL's request for the prompt back (`wakeIfIdle`).
    private static let idleRequest: Int32 = -1

    public func wakeIfIdle() { wake(with: Self.idleRequest) }

    private func wake(with signal: Int32) {
        lock.withLock { pendingSignals.append(signal) }
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    private func readBlocking(prompt: String) -> LineInput {
        // Echo back on if still off: a question asked during an idle retry (the REPL discarded
        // what was typed ahead before asking it).
        restoreEcho()
        if Self.endOfInputTypedAhead() { return .endOfInput }
        ReadlineGlobals.delivered.withLock { $0 = nil }
        rl_callback_handler_install(prompt, readlineLineHandler)
        // The line handler removes itself once a line (or the end) is in; otherwise (Ctrl-C,
        // a signal, an idle wake) it is removed here.
        defer { if ReadlineGlobals.delivered.withLock({ $0 }) == nil { rl_callback_handler_remove() } }
        var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
        while true {
            if let line = ReadlineGlobals.delivered.withLock({ $0 }) { return line }
            guard poll(&fds, 2, -1) >= 0 else {
                if errno == EINTR { continue }
                return .endOfInput
            }
            // Keys first: a wake that arrives with keys not yet read must see them on the line,
            // or an idle retry would take the prompt from a person who had just started typing.
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                rl_callback_read_char()
                if let line = ReadlineGlobals.delivered.withLock({ $0 }) { return line }
            }
            if fds[1].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 64)
                _ = read(wakePipe.read, &buffer, buffer.count)
                let signals = lock.withLock { defer { pendingSignals = [] }; return pendingSignals }
                if signals.contains(SIGCONT) { reception_rl_resume_terminal() }
                if signals.contains(SIGWINCH) { rl_resize_terminal() }
                if signals.contains(SIGINT), InterruptMonitor.shared.terminationSignal != nil {
                    // SIGTERM/SIGHUP: leave as on Ctrl-D; the deferred handler removal gives
                    // the terminal its settings back.
                    StandardStreams.write("\n")
                    return .endOfInput
                }
                if signals.contains(SIGINT) {
                    reception_rl_discard_line()
                    StandardStreams.write("^C\n")
                    return .interrupt
                }
                if signals.contains(Self.idleRequest), (reception_rl_line_buffer().map { $0.pointee == 0 } ?? true) {
                    // Nothing typed: erase the prompt; the REPL prints what it has to say
                    // and prompts again. Echo goes off here, on this thread, the moment readline
                    // gives the terminal back: a key typed from now on waits for the next prompt.
                    StandardStreams.write("\r\u{1B}[2K")
                    rl_callback_handler_remove()
                    ReadlineGlobals.delivered.withLock { $0 = .idle }  // removed: not again in the defer
                    suppressEcho()
                    return .idle
                }
            }
        }
    }

    /// Echo off from an idle wake until `idleWorkFinished()`: keys typed while a queued message
    /// is retried wait in the terminal and appear on the next prompt's line (readline echoes
    /// them there) instead of in the middle of the retry's output. The signal keys still work.
    private func suppressEcho() {
        var settings = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        guard lock.withLock({ () -> Bool in
            guard echoSettings == nil else { return false }  // already off: keep the settings saved first
            echoSettings = settings
            return true
        }) else { return }
        settings.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    /// Gives the terminal its settings from before `suppressEcho()` (nothing when echo is on).
    private func restoreEcho() {
        guard var settings = lock.withLock({ defer { echoSettings = nil }; return echoSettings }) else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    public func idleWorkFinished() { restoreEcho() }

    /// Ctrl-D pressed while an answer ran, when no prompt was up: the cooked terminal holds it
    /// as an end of input that readline, switching to its own mode, never sees, so the REPL
    /// did not leave. Read here before readline starts: a pending end with nothing else
    /// waiting (`FIONREAD` 0) reads as 0 bytes at once; a line typed ahead is left to readline.
    static func endOfInputTypedAhead() -> Bool {
        var settings = termios()
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &settings) == 0, settings.c_lflag & tcflag_t(ICANON) != 0 else { return false }
        var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 0) == 1, ready.revents & Int16(POLLIN) != 0 else { return false }
        var waiting: Int32 = 0
        guard ioctl(STDIN_FILENO, UInt(FIONREAD), &waiting) == 0, waiting == 0 else { return false }
        var byte: UInt8 = 0
        return read(STDIN_FILENO, &byte, 1) == 0
    }

    /// Discards what was typed since the last prompt (like sudo before its password): a "y"
    /// typed ahead as the start of a message must not answer a question shown after it.
    public func discardTypedAhead() -> Bool {
        TypedAhead.discard()
    }
}

/// The C callbacks cannot capture context, so they talk to the reader through these.
enum ReadlineGlobals {
    static let delivered = Mutex<LineInput?>(nil)
    static let completer = Mutex<ReadlineLineReader.Completer?>(nil)
}

private let readlineLineHandler: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { line in
    // Removed here, inside the callback: left installed, readline draws the prompt again for
    // the next line as soon as this returns, which flashed a prompt under every line typed
    // (and a second one after Ctrl-D) before the answer overwrote it.
    rl_callback_handler_remove()
    guard let line else {
        // readline has already moved to a new line; another would leave a blank one.
        ReadlineGlobals.delivered.withLock { $0 = .endOfInput }
        return
    }
    ReadlineGlobals.delivered.withLock { $0 = .line(String(cString: line)) }
    free(line)
}

private let readlineCompletion: @convention(c) (UnsafePointer<CChar>?, Int32, Int32) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = { text, _, _ in
    reception_rl_no_default_completion()
    let word = text.map { String(cString: $0) } ?? ""
    let line = reception_rl_line_buffer().map { String(cString: $0) } ?? ""
    guard let completer = ReadlineGlobals.completer.withLock({ $0 }) else { return nil }
    let matches = completer(line, word).filter { $0.hasPrefix(word) }
    guard !matches.isEmpty else { return nil }
    // readline wants [common prefix, match..., NULL], every string malloc'ed.
    var prefix = matches[0]
    for match in matches.dropFirst() { while !match.hasPrefix(prefix) { prefix.removeLast() } }
    let listed = matches.count == 1 ? [] : matches
    let slots = listed.count + 2
    guard let raw = malloc(MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * slots) else { return nil }
    let array = raw.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: slots)
    array[0] = strdup(matches.count == 1 ? matches[0] : prefix)
    for (index, match) in listed.enumerated() { array[index + 1] = strdup(match) }
    array[listed.count + 1] = nil
    return array
}
