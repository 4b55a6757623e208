// Small string helpers in plain Swift: Foundation's String methods go through NSString on
// Linux and dominate parse and render times otherwise.

import ReceptionCore

extension StringProtocol {
    /// Substring search on UTF-8 bytes (exact, case-sensitive).
    @inline(__always)
    func fastContains(_ needle: String) -> Bool {
        var needle = needle
        return needle.withUTF8 { n -> Bool in
            guard !n.isEmpty else { return true }
            let haystack = self.utf8
            guard haystack.count >= n.count else { return false }
            let first = n[0]
            var index = haystack.startIndex
            let lastStart = haystack.index(haystack.endIndex, offsetBy: -n.count)
            while index <= lastStart {
                if haystack[index] == first {
                    var matched = true
                    var h = haystack.index(after: index)
                    var k = 1
                    while k < n.count {
                        if haystack[h] != n[k] { matched = false; break }
                        h = haystack.index(after: h)
                        k += 1
                    }
                    if matched { return true }
                }
                index = haystack.index(after: index)
            }
            return false
        }
    }

    /// Without leading and trailing spaces and tabs.
    var trimmedSpaces: String { trimmingScalars { $0 == " " || $0 == "\t" } }

    /// Without leading and trailing whitespace, newlines included.
    var trimmedWhitespace: String { trimmingWhitespaceAndNewlines }

    /// Without leading and trailing characters from `set` (compared by scalar).
    func trimmingScalars(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        return trimmingScalars { scalars.contains($0) || $0 == " " || $0 == "\t" }
    }

    /// At most about `limit` characters, cut after a whole word and marked with "…" where
    /// something was left out: a quotation cut mid-word ("Speaks about experien") reads as
    /// the persona's own typo. A cut that falls at the end of a sentence ends there.
    func cutAtWord(_ limit: Int) -> String {
        guard count > limit else { return String(self) }
        let head = prefix(limit)
        let cut = String(head[..<(head.lastIndex(of: " ") ?? head.endIndex)]).trimmingScalars(in: " ,;:—–-")
        return cut.last.map { ".!?".contains($0) } == true ? cut : cut + "…"
    }
}
