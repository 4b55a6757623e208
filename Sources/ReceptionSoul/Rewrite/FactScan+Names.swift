/// Proper names: runs of capitalised words ("Margaret Hamilton", "Bank of America"),
/// acronyms ("NASA") and words with inner capitals ("iPhone", "GitHub").
///
/// A capital at the start of a sentence says nothing, so a sentence's first word counts
/// only when something else shows it is a name: it is an acronym or has inner capitals,
/// or the same word is capitalised in the middle of a sentence elsewhere in the text. Common
/// words ("The", "This", "However") never start or end a name: "The Hague" keeps "Hague".
extension FactScan {
    static let connectors: Set<String> = ["of", "de", "du", "da", "di", "del", "della", "der", "den", "van", "von", "la", "le", "al", "bin", "&"]

    /// Words that are capitalised for grammar, not because they name something.
    static let commonWords: Set<String> = [
        "the", "a", "an", "this", "that", "these", "those", "it", "its", "it's", "i", "i'm", "i've", "i'll", "i'd", "we", "you", "he", "she",
        "they", "my", "our", "your", "his", "her", "their", "me", "us", "them", "in", "on", "at", "for", "from", "to", "with", "by", "of",
        "as", "if", "when", "while", "but", "and", "or", "so", "then", "also", "yes", "no", "not", "here", "there", "what", "why", "how",
        "who", "where", "which", "some", "many", "most", "all", "each", "every", "any", "please", "note", "now", "after", "before",
        "once", "since", "until", "because", "although", "though", "however", "still", "yet", "just", "only", "even", "both",
        "either", "neither", "do", "does", "did", "is", "are", "was", "were", "be", "will", "would", "can", "could", "should", "may",
        "might", "must", "let", "let's", "okay", "ok", "sure", "well", "oh", "right", "hi", "hello", "hey", "thanks", "thank", "sorry",
        "indeed", "very", "great", "good", "fine", "alright", "first", "second", "next", "finally", "today", "tomorrow", "yesterday",
        "see", "take", "use", "try", "check", "read", "run", "go", "get", "make", "keep", "ask", "tell", "look", "more", "less",
        "about", "into", "over", "under", "than", "instead", "maybe", "perhaps", "probably", "certainly", "of course", "no one",
        "nothing", "everything", "something", "anything", "one", "none", "other", "another", "such", "same", "own", "few", "several",
        "summary", "answer", "result", "results", "findings", "sources", "source", "tip", "warning", "important", "tl;dr",
    ]

    mutating func findNames(_ tokens: [FactToken], consumed: [Bool]) {
        // Which words start a sentence, and which words are capitalised mid-sentence.
        var initial = [Bool](repeating: false, count: tokens.count)
        var atStart = true
        var capitalisedMidSentence = Set<String>()
        for (index, token) in tokens.enumerated() {
            switch token.kind {
            case .word, .number:
                initial[index] = atStart
                atStart = false
                if token.kind == .word, !initial[index], !quoted[token.range.lowerBound], isCapitalised(token) {
                    capitalisedMidSentence.insert(Self.withoutPossessive(text(token)))
                }
            case .hidden: atStart = false
            case .newline: atStart = true
            case .mark(let mark): if ".!?:;…。！？".contains(mark) { atStart = true }
            }
        }
        func nameWord(_ index: Int) -> Bool {
            guard index < tokens.count, !consumed[index], tokens[index].kind == .word, !quoted[tokens[index].range.lowerBound] else { return false }
            let word = text(tokens[index])
            guard word.count > 1, !Self.commonWords.contains(word.lowercased()) || Self.isAcronym(word) && word.count > 2 else { return false }
            return isCapitalised(tokens[index]) || Self.hasInnerCapital(word)
        }
        func standsAlone(_ index: Int) -> Bool {
            let word = text(tokens[index])
            return Self.isAcronym(word) || Self.hasInnerCapital(word) || capitalisedMidSentence.contains(Self.withoutPossessive(word))
        }
        var index = 0
        while index < tokens.count {
            guard nameWord(index) else { index += 1; continue }
            var run = [index]
            var next = index + 1
            // At most as many words as `WordSequences` looks names up by: a longer run (no real
            // name is one) is taken as names of that length, so a text always finds its own.
            while next < tokens.count, run.count < WordSequences.longest {
                if nameWord(next), tokens[next].spaceBefore || text(tokens[next - 1]).hasSuffix("-") {
                    run.append(next)
                    next += 1
                } else if next + 1 < tokens.count, run.count + 2 <= WordSequences.longest,
                          tokens[next].kind == .word || tokens[next].kind == .mark("&"),
                          Self.connectors.contains(text(tokens[next])), tokens[next].spaceBefore, nameWord(next + 1), tokens[next + 1].spaceBefore {
                    run += [next, next + 1]
                    next += 2
                } else {
                    break
                }
            }
            if initial[run[0]], !standsAlone(run[0]) { run.removeFirst() }
            while let first = run.first, Self.connectors.contains(text(tokens[first])) { run.removeFirst() }
            if let first = run.first, let last = run.last {
                let words = run.map { Self.withoutPossessive(text(tokens[$0])) }
                add(.name, tokens[first].range.lowerBound..<tokens[last].range.upperBound, key: words.joined(separator: " "),
                    text: words.joined(separator: " "))
            }
            index = next
        }
    }

    func isCapitalised(_ token: FactToken) -> Bool {
        characters[token.range.lowerBound].isUppercase
    }

    static func isAcronym(_ word: String) -> Bool {
        word.count >= 2 && word.allSatisfy { !$0.isLetter || $0.isUppercase } && word.contains(where: \.isLetter)
    }

    /// "iPhone", "GitHub", "macOS": a capital after a lower-case letter.
    static func hasInnerCapital(_ word: String) -> Bool {
        var sawLower = false
        for character in word {
            if character.isLowercase { sawLower = true } else if character.isUppercase, sawLower { return true }
        }
        return false
    }

    /// "Tokyo's" → "Tokyo".
    static func withoutPossessive(_ word: String) -> String {
        for suffix in ["'s", "’s"] where word.hasSuffix(suffix) && word.count > 3 { return String(word.dropLast(2)) }
        return word
    }
}
