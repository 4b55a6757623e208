/// Makes text that came from elsewhere (a server, a soul file, a corpus) safe to print. In core
/// because every front end prints such text: the REPL, and the `classify`, `eval` and `soul` tools.
///
/// A terminal obeys escape sequences in whatever it is given: a summary holding `ESC [2J`
/// clears the screen, `ESC ] 52` writes the clipboard, `ESC ] 8` plants a hyperlink whose
/// text says something else, and bidirectional overrides make text read differently from
/// what it is. So every foreign string loses its escape sequences (the whole sequence, not
/// just the ESC), its C0 and C1 control characters but newline and tab, DEL, and the bidi
/// override and isolate marks, before Reception adds its own styling.
public enum TerminalText {
    /// The text without escape sequences or control characters; newlines and tabs stay
    /// unless `singleLine`, which turns them into spaces.
    public static func clean(_ text: String, singleLine: Bool = false) -> String {
        // The common case, plain printable text, is returned as it is.
        if !text.unicodeScalars.contains(where: { needsCleaning($0) || (singleLine && ($0 == "\n" || $0 == "\r" || $0 == "\t")) }) { return text }
        var output = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar.value {
            case 0x1B:
                skipEscapeSequence(&scalars)
            case 0x9B:  // C1 CSI: a sequence up to its final byte
                skipUntilFinal(&scalars)
            case 0x9D, 0x90, 0x98, 0x9E, 0x9F:  // C1 OSC, DCS, SOS, PM, APC: up to a terminator
                skipString(&scalars)
            case 0x0A, 0x0D:
                output.append(singleLine ? " " : "\n")
            case 0x09:
                output.append(singleLine ? " " : "\t")
            default:
                if !needsCleaning(scalar) { output.append(scalar) }
            }
        }
        return String(output)
    }

    /// One line of at most `limit` characters, for progress lines and the spinner: a field
    /// of several megabytes must not be printed whole.
    public static func line(_ text: String, limit: Int = 240) -> String {
        let cleaned = clean(text, singleLine: true)
        guard cleaned.count > limit else { return cleaned }
        return String(cleaned.prefix(limit - 1)) + "…"
    }

    /// A line of JSON made safe on a terminal with its values unchanged: JSON escapes the C0
    /// controls (ESC, BEL) but not the C1 ones (U+0080–U+009F, U+009B being CSI) or the bidi
    /// overrides, which are written as `\u009b`, `\u202e` here. They only occur inside strings,
    /// so the value read back is the same.
    public static func jsonSafe(_ json: String) -> String {
        // Almost every line has none: returned as it is, not rebuilt.
        guard json.unicodeScalars.contains(where: { $0.value >= 0x7F && needsCleaning($0) }) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if scalar.value >= 0x7F, needsCleaning(scalar) {
                out.append(contentsOf: String(format: "\\u%04x", scalar.value).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    static func needsCleaning(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x08, 0x0B...0x1F, 0x7F...0x9F: true  // C0 (but tab and newline), DEL, C1; CR is turned into a newline
        case 0x202A...0x202E, 0x2066...0x2069: true         // bidi embeddings, overrides and isolates
        default: false
        }
    }

    /// After ESC: CSI (`[` … final byte), OSC/DCS/SOS/PM/APC (up to BEL or ESC \), or one more character.
    private static func skipEscapeSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        guard let next = scalars.next() else { return }
        switch next {
        case "[": skipUntilFinal(&scalars)
        case "]", "P", "X", "^", "_": skipString(&scalars)
        default: return  // a two-character sequence such as ESC c (reset) or ESC 7
        }
    }

    private static func skipUntilFinal(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            if (0x40...0x7E).contains(scalar.value) { return }
        }
    }

    private static func skipString(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            if scalar.value == 0x07 || scalar.value == 0x9C { return }
            if scalar.value == 0x1B {
                _ = scalars.next()  // ESC \ (ST) ends it
                return
            }
        }
    }
}
