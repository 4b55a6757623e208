import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The terminal of `reception label`, one key at a time: no echo, no line editing, and the
/// screen of its own (the alternate screen), all put back as they were on the way out,
/// including when the program is ended by SIGTERM or SIGHUP. (SIGKILL cannot be caught: the
/// labels are safe on disk by then, and `reset` mends the terminal.)
final class KeyboardTerminal {
    enum Key: Equatable {
        case character(Character)
        case enter, backspace, interrupt, endOfInput, escape
        /// No key: the terminal changed size since the screen was drawn, which must be drawn again.
        case resized
    }

    /// The settings before raw mode, for the signal handlers (which cannot capture).
    nonisolated(unsafe) private static var saved = termios()
    nonisolated(unsafe) private static var active = false

    init() throws {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { throw TerminalProblem("cannot read the terminal's settings") }
        Self.saved = settings
        // Bytes as typed: no line buffering, no echo, ^C and ^D as keys (quit) rather than signals.
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        settings.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings) == 0 else { throw TerminalProblem("cannot set the terminal to read single keys") }
        Self.active = true
        for signal in [SIGTERM, SIGHUP, SIGQUIT] {
            Glibc.signal(signal) { number in
                KeyboardTerminal.restoreNow()
                Glibc.signal(number, SIG_DFL)
                raise(number)
            }
        }
        write("\u{1B}[?1049h\u{1B}[?25l")  // the alternate screen; the cursor hidden
    }

    /// Puts the terminal back (idempotent).
    func restore() {
        Self.restoreNow()
    }

    private static func restoreNow() {
        guard active else { return }
        active = false
        let text = "\u{1B}[?25h\u{1B}[?1049l"
        _ = text.withCString { Glibc.write(STDOUT_FILENO, $0, strlen($0)) }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }

    deinit { restore() }

    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return }
            bytes = bytes.dropFirst(count)
        }
    }

    /// The terminal's size in columns and rows (80 × 24 when it does not say).
    var size: Size {
        var size = winsize()
        let known = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0
        return Size(columns: known && size.ws_col > 0 ? Int(size.ws_col) : 80, rows: known && size.ws_row > 0 ? Int(size.ws_row) : 24)
    }

    struct Size: Equatable {
        var columns: Int
        var rows: Int
    }

    /// The next key; an escape sequence (an arrow, a function key) is read whole and returned
    /// as `.escape`, so its bytes are never taken for letters. `.resized` when the terminal's
    /// size is no longer the one the screen was drawn for (it would wrap or be cut), also when
    /// it changed while the screen was being drawn: looked at four times a second rather than
    /// on SIGWINCH, whose handler could not draw.
    func readKey(drawnFor: Size) -> Key {
        while !waitForInput(milliseconds: 250) {
            if size != drawnFor { return .resized }
        }
        // A key waits, but the screen under it may already be of another size.
        if size != drawnFor { return .resized }
        guard let byte = readByte() else { return .endOfInput }
        switch byte {
        case 13, 10: return .enter
        case 127, 8: return .backspace
        case 3: return .interrupt
        case 4: return .endOfInput
        case 27:
            // A lone Escape, or the start of a sequence: what follows within a moment belongs to it.
            if waitForInput(milliseconds: 30), let next = readByte(), next == 91 || next == 79 {
                while waitForInput(milliseconds: 30), let part = readByte(), !(64...126).contains(part) {}
            }
            return .escape
        default:
            if byte < 0x80 { return .character(Character(UnicodeScalar(byte))) }
            // A multi-byte character: read its continuation bytes, so none is taken for a key.
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            var bytes = [byte]
            for _ in 1..<length { if let next = readByte() { bytes.append(next) } }
            return .character(String(decoding: bytes, as: UTF8.self).first ?? " ")
        }
    }

    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }

    private func waitForInput(milliseconds: Int32) -> Bool {
        var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, milliseconds) > 0
    }
}

struct TerminalProblem: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
