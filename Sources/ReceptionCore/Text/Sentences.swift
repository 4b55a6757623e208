/// Splits prose into sentences without Foundation's linguistic APIs (not available on
/// Linux). A sentence ends at `.`, `!` or `?` (plus closing quotes or brackets) followed by
/// whitespace; common abbreviations, initials and decimals do not end one.
public enum Sentences {
    /// `text` ended as a sentence: a full stop added unless it ends in one already (or in
    /// `!`, `?`, `…`), so a message that quotes a server's own sentence does not read "url..".
    public static func ended(_ text: String) -> String {
        guard let last = text.last, !".!?…".contains(last) else { return text }
        return text + "."
    }

    /// Abbreviations whose full stop never ends a sentence: a title or an initial before a
    /// name ("Prof. Lee", "J. Smith"), "e.g.", "vs.".
    static let continuing: Set<String> = [
        "e.g", "i.e", "vs", "cf", "viz", "mr", "mrs", "ms", "dr", "prof", "st", "sr", "jr", "rev", "hon", "gen", "sen", "rep", "gov",
        "capt", "lt", "col", "sgt", "mt", "ft", "fig", "approx", "ca", "incl", "nr",
    ]
    /// Abbreviations that often close a sentence ("we open at 9 a.m. Tickets cost $3.", "a
    /// garage on 5th Ave. It costs"): their full stop ends one before a capitalised word.
    static let closing: Set<String> = [
        "etc", "a.m", "p.m", "ave", "blvd", "rd", "ln", "ext", "inc", "ltd", "corp", "co", "dept", "vol", "est", "min", "hrs",
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    ]

    /// Whether a full stop after `word` (lowercased, without its full stop) ends a sentence
    /// when `next` begins what follows (nil: nothing follows). One rule for every splitter
    /// (the soul's limits, the local backend's passages, the rewrite's sentence buffer):
    /// - "No." abbreviates "number" only before one ("No. 5"); as an answer it is a sentence;
    /// - a title, an initial or "e.g." never ends one;
    /// - a closing abbreviation ("a.m.", "Ave.", "ext.", "U.S.") ends one before a capital only
    ///   ("in the U.S. by volunteers", "call ext. 42" go on).
    /// Any other full stop ends one, whatever follows: text written in lowercase has sentences too.
    public static func fullStopEnds(after word: String, before next: Character?) -> Bool {
        guard let next else { return true }
        if word.unicodeScalars.count > longestAbbreviation + 2, !word.contains(".") { return true }
        let word = word.lowercased().trimmingCharacters(in: "(\"'“‘[")
        if word == "no" { return !(next.isNumber || next == "#") }
        if word.count == 1, word.first?.isLetter == true { return false }  // an initial
        if continuing.contains(word) { return false }
        if closing.contains(word) || isDotted(word) { return next.isUppercase }
        return true
    }

    /// The longest word `fullStopEnds` treats as an abbreviation without a full stop inside it:
    /// a longer one ends its sentence, so a caller may skip the look-up.
    public static let longestAbbreviation = 6

    /// "u.s", "u.k", "ph.d": letters with full stops between them.
    static func isDotted(_ word: String) -> Bool {
        word.contains(".") && word.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { $0.count >= 1 && $0.count <= 2 && $0.allSatisfy(\.isLetter) }
    }

    public static func split(_ text: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            current.append(character)
            if character == "." || character == "!" || character == "?" {
                var end = index + 1
                while end < characters.count, "\"')]”’".contains(characters[end]) { current.append(characters[end]); end += 1 }
                let atBoundary = end >= characters.count || characters[end].isWhitespace
                var next = end
                while next < characters.count, characters[next].isWhitespace { next += 1 }
                let following = next < characters.count ? characters[next] : nil
                if atBoundary && !(character == "." && !fullStopEnds(after: lastWord(of: current, before: end - index - 1), before: following)) {
                    let sentence = current.trimmingWhitespace
                    if !sentence.isEmpty { sentences.append(sentence) }
                    current = ""
                }
                index = end
                continue
            }
            index += 1
        }
        let rest = current.trimmingWhitespace
        if !rest.isEmpty { sentences.append(rest) }
        return sentences
    }

    /// The word before the full stop that ends `text` (closers after it counted off).
    static func lastWord(of text: String, before closers: Int) -> String {
        let body = text.dropLast(closers + 1)  // the closers and the full stop
        let start = body.lastIndex(where: \.isWhitespace).map(body.index(after:)) ?? body.startIndex
        return String(body[start...])
    }
}

extension String {
    var trimmingWhitespace: String { trimmingWhitespaceAndNewlines }

    func trimmingCharacters(in set: String) -> String {
        var result = Substring(self)
        while let first = result.first, set.contains(first) { result.removeFirst() }
        while let last = result.last, set.contains(last) { result.removeLast() }
        return String(result)
    }
}
