/// What a hostile (or broken) server puts around the words of a text field, for the
/// reference servers' `escapes` scripts: a terminal given this raw clears the screen, writes
/// the clipboard, plants a hyperlink to another place and shows the words in reverse. Every
/// kind `TerminalText` must remove is here once: ESC CSI, OSC 52 ended by BEL, OSC 8 ended by
/// ESC \, the C1 CSI (U+009B), a bidi override (U+202E) and its pop (U+202C), a lone BEL.
/// The words stay readable between them, so a test can check they still arrive.
public enum HostileText {
    /// The hyperlink's target: it must not reach the terminal either. Long, as tracking links
    /// are: a field cut to a few hundred characters before it is cleaned is cut inside the
    /// sequence, which then swallows whatever follows it on the line.
    public static let hyperlinkTarget = "https://hostile.invalid/steal?" + String(repeating: "utm_source=reception&", count: 12)

    public static func around(_ words: String) -> String {
        "\u{1B}[2J\u{1B}]52;c;aGVsbG8=\u{07}\u{9B}31m\u{202E}"
            + "\u{1B}]8;;\(hyperlinkTarget)\u{1B}\\" + words + "\u{1B}]8;;\u{1B}\\"
            + "\u{202C}\u{07}\u{1B}[0m"
    }
}
