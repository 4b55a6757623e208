import CReadline
import Foundation
import ReceptionCore
import Synchronization

/// How the REPL writes: styled for a terminal, plain for pipes, or JSON lines for machines.
public enum OutputMode: String, Sendable {
    case styled, plain, json
}

/// Serialises everything written to standard output, and owns the spinner line so that
/// output never lands in the middle of it.
public final class Console: Sendable {
    public let mode: OutputMode
    private let sink: @Sendable (String) -> Void
    private let errorSink: @Sendable (String) -> Void
    private let state = Mutex(SpinnerState())

    struct SpinnerState {
        var label: String?
        var frame = 0
        var visible = false
        /// While holding (`hold()`): what would have been written, in order (true: an error line).
        var held: [(error: Bool, text: String)]?
    }

    // MARK: holding output back

    /// Keeps what is written from now on instead of showing it, and draws no spinner, until
    /// `release()` shows it or `discard()` drops it: a quiet retry in the background says
    /// nothing when nothing changed.
    public func hold() {
        state.withLock { $0.held = $0.held ?? [] }
    }

    /// Shows what was held, in order, and writes through again.
    public func release() {
        state.withLock { spinner in
            guard let held = spinner.held else { return }
            spinner.held = nil
            for (error, text) in held { (error ? errorSink : sink)(text) }
        }
    }

    /// Drops what was held, and writes through again.
    public func discard() {
        state.withLock { $0.held = nil }
    }

    public var isHolding: Bool { state.withLock { $0.held != nil } }

    /// `sink` receives every write (standard output by default; a buffer in tests), and
    /// `errorSink` error lines (standard error by default; the same buffer when only `sink`
    /// is given).
    public init(mode: OutputMode, sink: @escaping @Sendable (String) -> Void = { StandardStreams.write($0) },
                errorSink: (@Sendable (String) -> Void)? = nil) {
        self.mode = mode
        self.sink = sink
        self.errorSink = errorSink ?? sink
    }

    /// The standard console: output to stdout, errors to stderr.
    public static func standard(mode: OutputMode) -> Console {
        Console(mode: mode, sink: { StandardStreams.write($0) },
                errorSink: { StandardStreams.writeError($0) })
    }

    /// An error line: on standard error, so a script's output holds only answers, except in
    /// JSON mode, where an error is one more event of the stream on standard output.
    public func errorLine(_ text: String) {
        guard mode != .json else { return line(text) }
        let columns = Int(reception_terminal_columns(STDERR_FILENO))
        let wrapped = (columns > 0 ? TextWrap.wrap(text, width: columns - 1) : text) + "\n"
        state.withLock { spinner in
            if spinner.held != nil { spinner.held?.append((true, wrapped)); return }
            if spinner.visible { sink("\r\u{1B}[2K"); spinner.visible = false }
            errorSink(wrapped)
        }
    }

    /// Writes text followed by a newline, clearing the spinner first. On a terminal, long
    /// lines are word-wrapped to its current width (JSON and piped text are left alone).
    /// The terminal's width in columns; 0 when standard output is no terminal (or in JSON mode).
    public var columns: Int { mode == .json ? 0 : Int(reception_terminal_columns(STDOUT_FILENO)) }

    /// `hanging`: where wrapped lines continue (a table's second column).
    public func line(_ text: String = "", hanging: Int? = nil) {
        let columns = mode == .json ? 0 : Int(reception_terminal_columns(STDOUT_FILENO))
        write((columns > 0 ? TextWrap.wrap(text, width: columns - 1, hanging: hanging) : text) + "\n")
    }

    public func write(_ text: String) {
        state.withLock { spinner in
            if spinner.held != nil { spinner.held?.append((false, text)); return }
            if spinner.visible { sink("\r\u{1B}[2K"); spinner.visible = false }
            sink(text)
        }
    }

    // MARK: spinner (styled mode only)

    static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// Shows an animated status line until `stopSpinner()`; a no-op outside styled mode.
    public func startSpinner(_ label: String) -> Task<Void, Never>? {
        guard mode == .styled else { return nil }
        state.withLock { $0.label = TerminalText.line(label, limit: 120) }
        return Task { [self] in
            while !Task.isCancelled {
                state.withLock { draw(&$0) }
                try? await Task.sleep(for: .milliseconds(90))
            }
        }
    }

    /// Draws the spinner's next frame (under the lock), unless it is stopped or held.
    private func draw(_ spinner: inout SpinnerState) {
        guard let label = spinner.label, spinner.held == nil else { return }
        spinner.frame = (spinner.frame + 1) % Self.frames.count
        let columns = Int(reception_terminal_columns(STDOUT_FILENO))
        sink("\r\u{1B}[2K" + Style.dim(Self.spinnerLine(frame: Self.frames[spinner.frame], label: label, columns: columns)))
        spinner.visible = true
    }

    /// The spinner's line, never wider than the terminal: a line that wrapped would leave a
    /// copy of itself above the cursor at every frame, since only the last row is cleared.
    static func spinnerLine(frame: String, label: String, columns: Int) -> String {
        let full = "\(frame) \(label)  (Ctrl-C cancels)"
        guard columns > 0 else { return full }
        let room = columns - 1
        if TerminalWidth.of(full) <= room { return full }
        let short = "\(frame) \(label)"
        if TerminalWidth.of(short) <= room { return short }
        return TerminalWidth.truncate(short, to: room)
    }

    /// A new label for a running spinner. When a line written since has cleared the spinner,
    /// it comes back at once under that line: waiting for the next tick would leave the
    /// screen without it for as long as a busy machine keeps the ticking task waiting.
    public func updateSpinner(_ label: String) {
        let label = TerminalText.line(label, limit: 120)
        state.withLock { spinner in
            guard spinner.label != nil else { return }
            spinner.label = label
            if !spinner.visible { draw(&spinner) }
        }
    }

    public func stopSpinner(_ task: Task<Void, Never>?) {
        task?.cancel()
        state.withLock { spinner in
            spinner.label = nil
            if spinner.visible { sink("\r\u{1B}[2K"); spinner.visible = false }
        }
    }
}

/// ANSI styles.
enum Style {
    static func bold(_ text: String) -> String { "\u{1B}[1m\(text)\u{1B}[22m" }
    static func dim(_ text: String) -> String { "\u{1B}[2m\(text)\u{1B}[22m" }
    static func italic(_ text: String) -> String { "\u{1B}[3m\(text)\u{1B}[23m" }
    static func underline(_ text: String) -> String { "\u{1B}[4m\(text)\u{1B}[24m" }
    static func color(_ code: Int, _ text: String) -> String { "\u{1B}[\(code)m\(text)\u{1B}[39m" }
    static func cyan(_ text: String) -> String { color(36, text) }
    static func yellow(_ text: String) -> String { color(33, text) }
    static func red(_ text: String) -> String { color(31, text) }
    static func green(_ text: String) -> String { color(32, text) }
    static func magenta(_ text: String) -> String { color(35, text) }
}
