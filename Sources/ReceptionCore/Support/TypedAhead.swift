import Foundation

/// What was typed at the terminal before a question appeared: discarded before it is asked
/// (as sudo does before its password), so that a "y" typed ahead, meant as the start of a
/// message or a reflex, never answers a question it was not typed for.
public enum TypedAhead {
    /// Discards what is waiting on standard input when it is a terminal; true when something was.
    public static func discard() -> Bool {
        guard isatty(STDIN_FILENO) == 1 else { return false }
        // In a cooked terminal, keys typed without Enter sit in its line buffer, which FIONREAD
        // does not count (so they went without a note). With line editing off for a moment
        // they are readable, and counted.
        var saved = termios()
        let cooked = tcgetattr(STDIN_FILENO, &saved) == 0 && saved.c_lflag & tcflag_t(ICANON) != 0
        if cooked {
            var raw = saved
            raw.c_lflag &= ~tcflag_t(ICANON)
            tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        }
        var waiting: Int32 = 0
        let had = ioctl(STDIN_FILENO, UInt(FIONREAD), &waiting) == 0 && waiting > 0
        tcflush(STDIN_FILENO, TCIFLUSH)
        if cooked { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        return had
    }
}
