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

    static let abbreviations: Set<String> = ["e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "st", "no", "approx", "cf", "fig",
                                             "a.m", "p.m"]
    /// Abbreviations that often close a sentence ("we open at 9 a.m. Tickets cost $3."): they
    /// end one before a capitalised word.
    static let closing: Set<String> = ["etc", "a.m", "p.m"]

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
                if atBoundary && !(character == "." && continuesAfterAbbreviation(current, next: following)) {
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

    /// Whether `text` ends with an abbreviation whose full stop does not end the sentence before
    /// `next` (the next word's first character). "No." abbreviates "number" only before one
    /// ("No. 5"); as an answer ("Is there parking? No.") it is a sentence.
    private static func continuesAfterAbbreviation(_ text: String, next: Character?) -> Bool {
        let word = text.dropLast().reversed().prefix { !$0.isWhitespace }.reversed()
        let lowered = String(word).lowercased().trimmingCharacters(in: "(\"'")
        if lowered.count == 1, lowered.first?.isLetter == true { return true }  // an initial: "J. Smith"
        guard abbreviations.contains(lowered) else { return false }
        guard let next else { return false }
        if lowered == "no" { return next.isNumber || next == "#" }
        if closing.contains(lowered) { return !next.isUppercase }
        return true
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
