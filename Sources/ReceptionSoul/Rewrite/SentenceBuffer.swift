import ReceptionCore

/// Streamed text held until a sentence is complete, so each sentence can be rewritten whole.
///
/// A sentence ends at `.`, `!`, `?` or `…` (and closing quotes or brackets) followed by
/// whitespace, at `。！？`, or at a line break; not after an abbreviation or an initial, not
/// inside a code span. Text that runs past `maximumHold` characters without an end is
/// released anyway, so one endless sentence cannot stall the stream or fill memory.
struct SentenceBuffer {
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

    /// The most `hold` keeps; past it the answer is released as `feed` would.
    static let maximumWhole = 64_000

    /// Adds a chunk and releases nothing (the whole answer is rewritten when it ends), unless
    /// the held text grew past `maximumWhole`: then it is released as `feed` releases.
    mutating func hold(_ chunk: String) -> String? {
        held += chunk
        return held.utf8.count > Self.maximumWhole ? feed("") : nil
    }

    /// A whole text cut into its sentences, each with the whitespace after it; none longer
    /// than `maximumHold` characters.
    static func split(_ text: String, maximumHold: Int = 1_500) -> [String] {
        let characters = Array(text)
        var parts: [String] = []
        var start = 0
        for end in sentenceEnds(characters) + [characters.count] where end > start {
            var from = start
            while end - from > maximumHold {
                parts.append(String(characters[from..<(from + maximumHold)]))
                from += maximumHold
            }
            if end > from { parts.append(String(characters[from..<end])) }
            start = end
        }
        return parts
    }

    /// Whatever is held (the stream ended).
    mutating func finish() -> String? {
        defer { held = "" }
        return held.isEmpty ? nil : held
    }

    /// The offset just after the last sentence end and the whitespace that follows it.
    static func lastSentenceEnd(_ characters: [Character]) -> Int? {
        sentenceEnds(characters).last
    }

    /// The offsets just after each sentence end and the whitespace that follows it.
    static func sentenceEnds(_ characters: [Character]) -> [Int] {
        var ends: [Int] = []
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
                if after < characters.count, ends.last != after { ends.append(after) }
                continue
            }
            guard ".!?…".contains(character) else { continue }
            var after = index + 1
            while after < characters.count, "\"')]”’»".contains(characters[after]) { after += 1 }
            guard after < characters.count, characters[after].isWhitespace else { continue }
            var next = after
            while next < characters.count, characters[next].isWhitespace { next += 1 }
            // The next word decides ("U.S. by", "No. 5"): wait for it.
            if character == "." {
                guard next < characters.count else { continue }
                if !Sentences.fullStopEnds(after: Self.word(characters, before: index), before: characters[next]) { continue }
            }
            while after < characters.count, characters[after].isWhitespace { after += 1 }
            // The whitespace may go on in the next chunk: wait until something follows it.
            if after < characters.count, ends.last != after { ends.append(after) }
        }
        return ends
    }

    /// The word before the full stop at `index`.
    static func word(_ characters: [Character], before index: Int) -> String {
        var start = index
        while start > 0, !characters[start - 1].isWhitespace, index - start < 12 { start -= 1 }
        return String(characters[start..<index])
    }
}
