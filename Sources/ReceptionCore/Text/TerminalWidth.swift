/// How many terminal columns text takes: East Asian wide characters and most emoji take two,
/// combining marks none. An estimate good enough to keep a status line on one row.
public enum TerminalWidth {
    public static func of<S: StringProtocol>(_ text: S) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width($1) }
    }

    /// The longest prefix that fits in `columns`, ending in "…" when something was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard of(text) > columns, columns > 1 else { return text }
        var result = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            let w = width(scalar)
            if used + w > columns - 1 { break }
            result.append(scalar)
            used += w
        }
        return String(result) + "…"
    }

    public static func width(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.value {
        case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: 0
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1FAFF, 0x20000...0x3FFFD: 2
        default: 1
        }
    }
}
