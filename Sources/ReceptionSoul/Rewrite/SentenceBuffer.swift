/// Streamed text held until a sentence is complete, so each sentence can be rewritten whole.
///
/// A sentence ends at `.`, `!`, `?` or `…` (and closing quotes or brackets) followed by
/// whitespace, at `。！？`, or at a line break; not after an abbreviation or an initial, not
/// inside a code span. Text that runs past `maximumHold` characters without an end is
/// released anyway, so one endless sentence cannot stall the stream or fill memory.
struct SentenceBuffer {
    static let abbreviations: Set<String> = ["e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "st", "no", "approx", "cf", "fig", "ca", "incl"]
    var maximumHold = 1_500
    private(set) var held = ""

    /// Adds a chunk; returns the complete sentences it finished (with the whitespace after
    /// them), or nil while the text so far ends mid-sentence.
    mutating func feed(_ chunk: String) -> String? {
        held += chunk
        let characters = Array(held)
        if let end = Self.lastSentenceEnd(characters) {
            let complete = String(characters[..<end])
            held = String(characters[end...])
            return complete
        }
        if characters.count > maximumHold {
            defer { held = "" }
            return held
        }
        return nil
    }

    /// Whatever is held (the stream ended).
    mutating func finish() -> String? {
        defer { held = "" }
        return held.isEmpty ? nil : held
    }

    /// The offset just after the last sentence end and the whitespace that follows it.
    static func lastSentenceEnd(_ characters: [Character]) -> Int? {
        var end: Int?
        var inCode = false
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "`" { inCode.toggle() }
            defer { index += 1 }
            guard !inCode else { continue }
            if character == "\n" || "。！？".contains(character) {
                var after = index + 1
                while after < characters.count, characters[after].isWhitespace { after += 1 }
                if after < characters.count { end = after }
                continue
            }
            guard ".!?…".contains(character) else { continue }
            var after = index + 1
            while after < characters.count, "\"')]”’»".contains(characters[after]) { after += 1 }
            guard after < characters.count, characters[after].isWhitespace else { continue }
            if character == ".", endsWithAbbreviation(characters, before: index) { continue }
            while after < characters.count, characters[after].isWhitespace { after += 1 }
            // The whitespace may go on in the next chunk: wait until something follows it.
            if after < characters.count { end = after }
        }
        return end
    }

    static func endsWithAbbreviation(_ characters: [Character], before index: Int) -> Bool {
        var start = index
        while start > 0, !characters[start - 1].isWhitespace, index - start < 12 { start -= 1 }
        let word = String(characters[start..<index]).lowercased().trimmingScalars(in: "(\"'“‘")
        if word.count == 1, word.first?.isLetter == true { return true }  // an initial: "J. Smith"
        return abbreviations.contains(word)
    }
}
