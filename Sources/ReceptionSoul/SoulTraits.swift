/// Derives voice traits from a soul's prose, deterministically, each with the line it came from.
///
/// Two kinds of evidence, in this order:
/// 1. **Statements** about the voice: "Short sentences.", "casual, texts in slang",
///    "Open with `tl;dr:`", "No hedging", "always lowercase". A statement under a
///    never/avoid heading, in a bad example, or negated ("not formal") counts the other way.
/// 2. **Habits** measured on the persona's own words: its good example outputs when it has
///    enough of them, else its prose: words per sentence, contractions and slang, sentences
///    that start in lowercase, emoji, exclamation marks, hedge words.
///
/// One pass over the lines, no regular expressions: it runs on every parse (the REPL's start path).
struct TraitDeriver {
    struct Source {
        var file: String
        var lines: [Substring]
        var firstLine: Int
        var roles: [MarkdownSoulReader.LineRole]
        /// Indices of lines about one venue (a speech, a tweet): no opener or sign-off is taken there.
        var venueLines: Set<Int> = []

        /// A file's lines with what the Markdown reader made of them (each line's role, the venues).
        init(file: String, lines: [Substring], firstLine: Int, read body: MarkdownSoulReader) {
            self.file = file
            self.lines = lines
            self.firstLine = firstLine
            roles = body.roles
            venueLines = body.venueLines
        }
    }

    let sources: [Source]
    /// The soul's language (front matter, rule or detection): how sentences are measured.
    let language: String

    struct Found {
        var value: String
        var file: String
        var line: Int
        var evidence: String
    }

    var verbosity: Found?
    var maxSentences: Int?
    /// The prose states the count ("one sentence when possible"), rather than a length the
    /// limit follows from: it holds even when the front matter sets `verbosity`.
    var maxSentencesStated = false
    var formality: Found?
    var capitalization: Found?
    var emoji: Found?
    var favouriteEmoji: [String] = []
    var punctuation: Found?
    var dashes: Found?
    var hedging: Found?
    var opener: Found?
    var closer: Found?
    var greeting: Found?
    var refusal: Found?
    /// The prose states something about the voice ("Short sentences.", "no slang"), rather
    /// than only having habits measured on it: what lint takes as a persona written down.
    var statesTheVoice = false

    init(sources: [Source], language: String) {
        self.sources = sources
        self.language = language
    }

    /// Lines scanned per file at most (a bound on untrusted input).
    static let maxLines = 4_000

    // MARK: Run

    mutating func derive() {
        var votes: [String: [String: [(Found)]]] = [:]
        func vote(_ trait: String, _ value: String, _ found: Found) {
            votes[trait, default: [:]][value, default: []].append(found)
        }
        var goodStats = Stats()
        var proseStats = Stats()
        for source in sources {
            for (index, line) in source.lines.prefix(Self.maxLines).enumerated() {
                let role = index < source.roles.count ? source.roles[index] : .prose
                if role == .ignored || role == .meta { continue }
                let trimmed = line.trimmedSpaces
                if trimmed.isEmpty { continue }
                let lineNumber = source.firstLine + index
                func found(_ value: String) -> Found { Found(value: value, file: source.file, line: lineNumber, evidence: Self.evidence(trimmed)) }
                let lowered = trimmed.lowercased()
                let avoided = role == .avoided

                // Statements.
                if role != .goodExample {
                    let words = Self.words(lowered)
                    if let (value, negated) = Self.lengthStatement(lowered, words) {
                        if negated == avoided {
                            vote("verbosity", value, found(value))
                        } else {
                            // "Not terse: give the whole answer", "Don't be terse": a stated length
                            // all the same, the measured one must not say the opposite.
                            let opposite = value == "detailed" ? "concise" : "balanced"
                            vote("verbosity", opposite, found(opposite))
                        }
                    }
                    if let (value, negated) = Self.formalityStatement(lowered, words) {
                        let flipped = negated != avoided ? (value == "formal" ? "casual" : "formal") : value
                        vote("formality", flipped, found(flipped))
                    }
                    if let (value, negated) = Self.hedgingStatement(lowered, words) {
                        let flipped = negated != avoided ? (value == "cautious" ? "assertive" : value == "assertive" ? "cautious" : value) : value
                        vote("hedging", flipped, found(flipped))
                    }
                    if !avoided, Self.lowercaseStatement(lowered, words) { vote("capitalization", "lowercase", found("lowercase")) }
                    if let value = Self.dashStatement(words, avoided: avoided) { vote("dashes", value, found(value)) }
                    // A phrase statement quotes its phrase: most lines have no quotation mark. A
                    // line that is a label and its phrase ("Greeting: hi there") need not.
                    if !avoided, !source.venueLines.contains(index) {
                        let quoted = Self.mayQuote(trimmed) ? Self.phraseStatements(trimmed, lowered) : []
                        for (kind, phrase) in quoted { vote(kind, phrase, found(phrase)) }
                        if let (kind, phrase) = Self.labelledPhrase(trimmed), !quoted.contains(where: { $0.0 == kind }) {
                            vote(kind, phrase, found(phrase))
                        }
                    }
                }

                // Habits: the persona's own words.
                guard role == .prose || role == .goodExample, !Self.isRuleLine(trimmed) else { continue }
                let continues = Self.continues(source, at: index, role: role)
                if role == .goodExample {
                    goodStats.add(trimmed, found: found, language: language, continues: continues)
                } else if role == .prose {
                    proseStats.add(trimmed, found: found, language: language, continues: continues)
                }
            }
        }

        statesTheVoice = !votes.isEmpty

        func winner(_ trait: String) -> Found? {
            guard let options = votes[trait] else { return nil }
            // Most votes; ties go to the value stated first.
            return options.values.max { a, b in
                a.count != b.count ? a.count < b.count : (a[0].file, a[0].line) > (b[0].file, b[0].line)
            }?.first
        }

        let stats = goodStats.words >= 25 ? goodStats : proseStats
        let measured = stats.sentences >= 4

        // Length.
        if let stated = winner("verbosity") {
            verbosity = stated
        } else if stats.sentences >= Self.sentencesForLength, let first = stats.firstSentence {
            // A length limit cuts answers: measured on a few lines (a name, a one-line
            // description, an emoji after its "!") it cut them for souls that never spoke of
            // length, so it takes more of the persona's own words than the other habits.
            let average = Double(stats.words) / Double(stats.sentences)
            let value = average <= 9 ? "terse" : average <= 14 ? "concise" : average >= 22 ? "detailed" : "balanced"
            if value != "balanced" {
                verbosity = Found(value: value, file: first.file, line: first.line,
                                  evidence: "about \(Int(average.rounded())) words a sentence over \(stats.sentences) sentences, from here on")
            }
        }
        if let value = verbosity?.value {
            maxSentences = value == "one-sentence" ? 1 : value == "terse" || value == "two-sentences" ? 2 : value == "concise" ? 3 : nil
            maxSentencesStated = value == "one-sentence" || value == "two-sentences"
            if maxSentencesStated { verbosity!.value = "terse" }
        }

        // Formality.
        if let stated = winner("formality") {
            formality = stated
        } else if measured {
            if let casual = stats.firstCasual, stats.slang >= 2 || Double(stats.contractions) >= 0.5 * Double(stats.sentences) {
                formality = Found(value: "casual", file: casual.file, line: casual.line, evidence: casual.evidence)
            } else if let formal = stats.firstFormal, stats.contractions == 0, stats.slang == 0, stats.formalMarkers >= 2 {
                formality = Found(value: "formal", file: formal.file, line: formal.line, evidence: formal.evidence)
            }
        }

        // Capitalisation: stated, or nearly every sentence starts in lowercase.
        if let stated = winner("capitalization") {
            capitalization = stated
        } else if stats.latinStarts >= 4, Double(stats.lowercaseStarts) >= 0.8 * Double(stats.latinStarts), let first = stats.firstLowercase {
            capitalization = Found(value: "lowercase", file: first.file, line: first.line,
                                   evidence: "\(stats.lowercaseStarts) of \(stats.latinStarts) sentences start in lowercase, e.g. \(first.evidence)")
        }

        // Emoji: many of them → allowed; the favourites become icons.
        let emojiStats = goodStats.emoji + proseStats.emoji
        if emojiStats >= 5 || (stats.sentences > 0 && Double(stats.emoji) >= 0.3 * Double(stats.sentences) && stats.emoji >= 2),
           let first = goodStats.firstEmoji ?? proseStats.firstEmoji {
            emoji = Found(value: "allowed", file: first.file, line: first.line, evidence: "\(emojiStats) emoji in the persona's own words, e.g. \(first.evidence)")
        }
        var counts = goodStats.emojiCounts
        for (key, value) in proseStats.emojiCounts { counts[key, default: 0] += value }
        let order = goodStats.emojiOrder + proseStats.emojiOrder.filter { !goodStats.emojiOrder.contains($0) }
        // Most used first; ties keep the order of first use.
        favouriteEmoji = Array(order.enumerated().sorted { a, b in
            let (ca, cb) = (counts[a.element] ?? 0, counts[b.element] ?? 0)
            return ca != cb ? ca > cb : a.offset < b.offset
        }.map(\.element).prefix(3))

        // Punctuation: exclamation marks as a habit.
        if stats.exclamations >= 3, Double(stats.exclamations) >= 0.3 * Double(max(1, stats.sentences)), let first = stats.firstExclamation {
            punctuation = Found(value: "exclamatory", file: first.file, line: first.line,
                                evidence: "\(stats.exclamations) exclamation marks in \(stats.sentences) sentences, e.g. \(first.evidence)")
        }

        dashes = winner("dashes")

        // Hedging.
        if let stated = winner("hedging") {
            hedging = stated
        } else if measured, Double(stats.hedges) >= 0.3 * Double(stats.sentences), let first = stats.firstHedge {
            hedging = Found(value: "cautious", file: first.file, line: first.line, evidence: first.evidence)
        }

        opener = winner("opener")
        closer = winner("closer")
        greeting = winner("greeting")
        refusal = winner("refusal")
    }

    // MARK: Statements

    /// The line's words, with a "." word where a sentence ends, so that a negation stops at it
    /// ("No pleasantries. Casual, …" is casual: "no" was read as negating "casual").
    static func words(_ lowered: String) -> [Substring] {
        // Over scalars, not Characters: this runs for every line of a soul on each start.
        var result: [Substring] = []
        let scalars = lowered.unicodeScalars
        var start: String.Index?
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            let inWord: Bool
            if scalar.isASCII {
                let v = scalar.value
                inWord = (v >= 0x61 && v <= 0x7A) || (v >= 0x41 && v <= 0x5A) || (v >= 0x30 && v <= 0x39) || v == 0x27 || v == 0x2D
            } else {
                let properties = scalar.properties
                inWord = properties.isAlphabetic || properties.numericType != nil || scalar == "’"
                    || properties.generalCategory == .nonspacingMark || properties.generalCategory == .spacingMark
            }
            if inWord {
                if start == nil { start = index }
            } else {
                if let begin = start { result.append(lowered[begin..<index]); start = nil }
                if ".!?;。！？".unicodeScalars.contains(scalar), let last = result.last, last != "." { result.append(Substring(".")) }
            }
            index = scalars.index(after: index)
        }
        if let begin = start { result.append(lowered[begin..<scalars.endIndex]) }
        return result
    }

    /// The fewest sentences of the persona's own words a length is measured on.
    static let sentencesForLength = 10

    static let negations: Set<Substring> = ["not", "never", "no", "don't", "don’t", "doesn't", "doesn’t", "isn't", "without", "avoid", "avoids",
                                            "zero", "nor", "nicht", "nie", "kein", "keine", "niemals", "statt", "anstatt", "pas", "jamais", "nunca"]

    /// A negation or a contrast in the few words before `index` ("not formal", "never hedges",
    /// "no slang", "instead of hedging", "rather than formal"): the word is named to be put aside.
    static func negated(_ words: [Substring], before index: Int) -> Bool {
        var start = max(0, index - 3)
        // Not across a sentence end.
        if let stop = words[start..<index].lastIndex(of: ".") { start = stop + 1 }
        guard start < index else { return false }
        if words[start..<index].contains(where: { negations.contains($0) }) { return true }
        // "opinion over hedge", "concrete over abstract": the word after "over" is the one put aside.
        if index > 0 && words[index - 1] == "over" { return true }
        for i in start..<index where i + 1 < index {
            if (words[i] == "instead" && words[i + 1] == "of") || (words[i] == "rather" && words[i + 1] == "than") { return true }
        }
        return false
    }

    static func firstIndex(_ words: [Substring], of set: Set<Substring>) -> Int? {
        words.firstIndex { set.contains($0) }
    }

    /// Statements about length: "short sentences", "one sentence when possible", "long, detailed answers".
    static func lengthStatement(_ lowered: String, _ words: [Substring]) -> (String, Bool)? {
        // "one or two sentences is plenty": two at most, terse.
        if lowered.fastContains("one or two sentences") || lowered.fastContains("one to two sentences") || lowered.fastContains("1-2 sentences")
            || lowered.fastContains("two sentences") && !lowered.fastContains("two sentences or more") {
            let at = words.firstIndex { $0 == "one" || $0 == "two" || $0 == "1-2" } ?? 0
            return ("two-sentences", negated(words, before: at))
        }
        let one = lowered.fastContains("one sentence") || lowered.fastContains("one-liner") || lowered.fastContains("one liner")
            || lowered.fastContains("single sentence") || lowered.fastContains("ein satz") || lowered.fastContains("einem satz")
            || lowered.fastContains("一文で") || lowered.fastContains("一言で")
        let shortWords: Set<Substring> = ["short", "shorter", "brief", "briefly", "terse", "concise", "punchy", "clipped", "kurz", "kurze", "kurzen", "knapp", "knappe"]
        let longWords: Set<Substring> = ["long", "longer", "detailed", "thorough", "elaborate", "lengthy", "expansive", "ausführlich", "ausführliche", "lange"]
        let contextWords: Set<Substring> = ["sentence", "sentences", "answer", "answers", "reply", "replies", "response", "responses", "length",
                                            "message", "messages", "paragraph", "paragraphs", "satz", "sätze", "sätzen", "antwort", "antworten", "antwortet", "antwortest"]
        let cjkShort = lowered.fastContains("簡潔") || lowered.fastContains("短く") || lowered.fastContains("短い文")
        let cjkLong = lowered.fastContains("詳しく") || lowered.fastContains("長い文") || lowered.fastContains("長文")
        let shortAt = firstIndex(words, of: shortWords)
        let longAt = firstIndex(words, of: longWords)
        let hasContext = words.contains { contextWords.contains($0) } || lowered.fastContains("sentence length")
        if one, longAt == nil {
            let at = words.firstIndex { $0 == "one" || $0 == "single" || $0 == "ein" || $0 == "einem" } ?? 0
            return ("one-sentence", negated(words, before: at))
        }
        if (shortAt != nil || cjkShort) && (longAt != nil || cjkLong) { return nil }  // "brief when brief works; thorough when it counts"
        // "Be brief.", "Keep it short.": said to the speaker, a length without naming what.
        let toTheSpeaker = shortAt.map { at in (at >= 1 && words[at - 1] == "be") || (at >= 2 && words[at - 2] == "keep" && words[at - 1] == "it") } ?? false
        if let shortAt, hasContext || toTheSpeaker || ["terse", "concise", "punchy", "knapp"].contains(words[shortAt]) { return ("concise", negated(words, before: shortAt)) }
        if cjkShort { return ("concise", false) }
        if let longAt, hasContext || ["detailed", "thorough", "ausführlich"].contains(words[longAt]) { return ("detailed", negated(words, before: longAt)) }
        if cjkLong { return ("detailed", false) }
        return nil
    }

    static func formalityStatement(_ lowered: String, _ words: [Substring]) -> (String, Bool)? {
        // Words of register only: "diplomatic" (tact, as in "diplomatic but honest") says how
        // candid a persona is, not how formally it writes.
        let formal: Set<Substring> = ["formal", "formally", "courteous", "dignified", "polite", "politely", "stately", "ceremonious",
                                      "förmlich", "höflich", "siezt", "siezen", "sie-form", "formell", "soutenu", "vouvoie", "vouvoyer", "vouvoiement"]
        let casual: Set<Substring> = ["casual", "casually", "informal", "slang", "chill", "laid-back", "relaxed", "conversational", "colloquial",
                                      "locker", "lockere", "umgangssprachlich", "duzt", "duzen", "du-form", "tutoie", "tutoyer", "tutoiement", "familier"]
        // Only where the word is about register: "formal verification", "no formal authority",
        // "100 conversational items" say nothing of how the persona writes.
        var formalAt = words.indices.first { formal.contains(words[$0]) && aboutRegister(at: $0, words, lowered) }
        var casualAt = words.indices.first { casual.contains(words[$0]) && aboutRegister(at: $0, words, lowered) }
        if formalAt == nil, lowered.fastContains("敬語") || lowered.fastContains("です・ます") || lowered.fastContains("ですます") || lowered.fastContains("丁寧語") { formalAt = 0 }
        if casualAt == nil, lowered.fastContains("タメ口") || lowered.fastContains("くだけた") || lowered.fastContains("カジュアル") || lowered.fastContains("text message") { casualAt = 0 }
        switch (formalAt, casualAt) {
        case (let f?, nil): return ("formal", negated(words, before: f))
        case (nil, let c?): return ("casual", negated(words, before: c))
        case (let f?, let c?):
            // "No slang. Formal and courteous.": both words, one way (as for hedging).
            let (notFormal, notCasual) = (negated(words, before: f), negated(words, before: c))
            return notFormal != notCasual ? (notFormal ? "casual" : "formal", false) : nil
        default: return nil
        }
    }

    /// A register word used of register: at the end, before a comma or full stop ("Formal, but
    /// warm."), or before a word of speech or writing ("formal English", "casual tone") or a
    /// joining word ("formal and dry", "conversational but structured").
    /// Verbs of address ("Tutoie la personne", "Siezt den Nutzer"): about register whatever follows.
    static let addressWords: Set<Substring> = ["tutoie", "tutoyer", "tutoiement", "vouvoie", "vouvoyer", "vouvoiement", "duzt", "duzen", "siezt", "siezen"]

    static func aboutRegister(at index: Int, _ words: [Substring], _ lowered: String) -> Bool {
        if addressWords.contains(words[index]) { return true }
        guard index + 1 < words.count else { return true }
        let next = words[index + 1]
        if registerNouns.contains(next) || joiningWords.contains(next) { return true }
        return lowered.range(of: "\\b\(words[index])\\s*[,.;:)!?—–]", options: .regularExpression) != nil
    }

    static let registerNouns: Set<Substring> = [
        "register", "tone", "tones", "language", "writing", "style", "prose", "voice", "address", "english", "manner", "manners",
        "greeting", "greetings", "words", "wording", "phrasing", "reply", "replies", "answer", "answers", "speech", "correspondence",
        "emails", "email", "letters", "chat", "banter", "vibe", "sentences", "diction", "titles", "you", "sie", "du", "ton", "sprache",
    ]
    /// What a whole voice's capitalisation can be stated of, beside `registerNouns`.
    static let writingNouns: Set<Substring> = [
        "capitalization", "capitalisation", "caps", "case", "casing", "text", "everything", "all", "messages", "posts", "tweets",
        "output", "lines", "typing", "schreibweise", "texte",
    ]
    static let joiningWords: Set<Substring> = [
        "and", "but", "or", "yet", "in", "with", "when", "to", "than", "at", "throughout", "unless", "without", "not", "even", "always",
        "never", "und", "aber", "oder", "et", "mais",
    ]

    static func hedgingStatement(_ lowered: String, _ words: [Substring]) -> (String, Bool)? {
        let cautious: Set<Substring> = ["hedge", "hedges", "hedged", "hedging", "qualified", "qualifies", "qualifying",
                                        "probabilistic", "uncertainty", "tentative", "tentatively", "vorsichtig", "einschränkungen"]
        // Not "conviction": a biography's "Californian by conviction" says nothing of how the
        // persona phrases an answer (it led Garry Tan's hedging evidence to his birthplace).
        let assertive: Set<Substring> = ["assertive", "declarative", "decisive", "unhedged", "confidently", "bestimmt", "entschieden"]
        // "a deliberate identity, not a hedge": a hedge (the noun) says nothing of hedged words
        // ("a qualified reply" still does).
        var cautiousAt = words.indices.first { index in
            cautious.contains(words[index]) && !(["hedge", "hedges"].contains(words[index]) && index > 0 && ["a", "an"].contains(words[index - 1]))
        }
        // "Will express uncertainty on: AI timelines; consumer behaviour abroad": uncertain about
        // the topics named, which says nothing of how every other answer is phrased. "Hedges on
        // everything" still counts.
        if let at = cautiousAt, at + 1 < words.count, topicWords.contains(words[at + 1]),
           !(at + 2 < words.count && everythingWords.contains(words[at + 2])) {
            cautiousAt = nil
        }
        if cautiousAt == nil, lowered.fastContains("かもしれ") || lowered.fastContains("慎重") { cautiousAt = 0 }
        let assertiveAt = firstIndex(words, of: assertive) ?? (lowered.fastContains("断言") ? 0 : nil)
        switch (cautiousAt, assertiveAt) {
        case (let c?, nil): return ("cautious", negated(words, before: c))
        case (nil, let a?): return ("assertive", negated(words, before: a))
        case (let c?, let a?):
            // "Declarative. … Does not hedge when he's sure": both words, one way.
            let (noHedge, notAssertive) = (negated(words, before: c), negated(words, before: a))
            return noHedge != notAssertive ? (noHedge ? "assertive" : "cautious", false) : nil
        default: return nil
        }
    }

    static let topicWords: Set<Substring> = ["on", "about", "regarding", "around", "re", "over", "bei", "über"]
    static let everythingWords: Set<Substring> = ["everything", "anything", "all", "most", "every", "alles"]

    /// "always lowercase", "all lowercase", "lowercase everything", "kleinschreibung".
    /// Not "**lfg** — lowercase, always": a term, a dash or a colon, then how that one term is
    /// written (a vocabulary entry), which says nothing of the voice's other sentences.
    static func lowercaseStatement(_ lowered: String, _ words: [Substring]) -> Bool {
        guard lowered.fastContains("lowercase") || lowered.fastContains("lower case") || lowered.fastContains("lower-case")
                || lowered.fastContains("kleinschreib") || lowered.fastContains("kleingeschrieben") else { return false }
        guard let at = words.firstIndex(where: { $0.hasPrefix("lower") || $0.hasPrefix("klein") }) else { return false }
        if let lower = lowered.range(of: "lower") ?? lowered.range(of: "klein"),
           let separator = ["—", "–", " - ", ":"].compactMap({ lowered[..<lower.lowerBound].range(of: $0, options: .backwards) })
               .max(by: { $0.lowerBound < $1.lowerBound }) {
            let head = Self.words(String(lowered[..<separator.lowerBound])).filter { $0.contains { $0.isLetter } }
            let aboutWriting = head.contains { registerNouns.contains($0) || writingNouns.contains($0) }
            if (1...3).contains(head.count), !aboutWriting { return false }
        }
        let strong = ["always", "all", "everything", "only", "default", "entirely", "immer", "alles", "nur"]
        let window = words[max(0, at - 3)..<min(words.count, at + 3)]
        // The negation may stand further back than a trait word's three ("Never write in all
        // lowercase"): anywhere in the clause before it.
        var clause = at
        while clause > 0, words[clause - 1] != "." { clause -= 1 }
        let refused = words[clause..<at].contains { negations.contains($0) || $0 == "dont" }
        return !refused && window.contains { strong.contains(String($0)) }
    }

    /// "zero em-dashes. ever.", "No em dashes", "never use dashes", or a bare "Em dashes" in a
    /// list of things to avoid: `none`, a ban on dashes between clauses. A limit on them ("used
    /// sparingly, never as a comma substitute", "one per tweet max", "as a verbal tic") or a
    /// line that uses them ("Em dashes for asides") is `allowed`; nil when the line names none.
    static func dashStatement(_ words: [Substring], avoided: Bool) -> String? {
        let words = words.filter { $0.contains { $0.isLetter } }  // not a list marker's "-"
        let dashWords: Set<Substring> = ["dash", "dashes", "em-dash", "em-dashes", "emdash", "emdashes", "en-dash", "en-dashes",
                                         "gedankenstrich", "gedankenstriche", "travessão", "travessões"]
        guard let at = words.firstIndex(where: { dashWords.contains($0) }) else { return nil }
        // "dash" alone is also a small amount ("a dash of humour"): only with "em"/"en" or in the plural.
        if words[at] == "dash", !(at > 0 && (words[at - 1] == "em" || words[at - 1] == "en")) { return nil }
        let limits: Set<Substring> = ["sparingly", "moderately", "judiciously", "occasional", "occasionally", "only", "except", "unless",
                                      "max", "maximum", "per", "rarely", "rare", "much", "many", "too", "overuse", "overused", "every",
                                      "as", "mostly", "often", "sometimes", "fewer", "less", "limit", "substitute", "substituting",
                                      "replacement", "replacing", "instead", "sparsam", "selten"]
        if words.contains(where: { limits.contains($0) }) { return "allowed" }
        if avoided { return at <= 1 && words.count <= 4 ? "none" : nil }
        let bans: Set<Substring> = ["no", "zero", "never", "avoid", "don't", "don’t", "dont", "without", "ban", "banned", "keine", "nie", "sem", "nunca"]
        return words[max(0, at - 3)..<at].contains { bans.contains($0) } ? "none" : "allowed"
    }

    /// "Open with `tl;dr:`", "Sign off with \"Fair winds.\"", "Greeting: \"Ahoy!\"",
    /// "When refusing, say \"Not on my watch.\"": the kind and the quoted phrase.
    static func mayQuote(_ text: String) -> Bool {
        for byte in text.utf8 where byte == 0x22 || byte == 0x60 || byte == 0xE2 || byte == 0xE3 || byte == 0xC2 { return true }  // " ` “„ 「 «
        return false
    }

    /// "Greeting: hi there", "Sign-off: Fair winds.": a line that is a label and the phrase,
    /// unquoted. The labels a person writes for a knob, each a whole line's start.
    static let phraseLabels: [(label: String, kind: String)] = [
        ("greeting:", "greeting"), ("greetings:", "greeting"), ("sign-off:", "closer"), ("sign off:", "closer"),
        ("signoff:", "closer"), ("sign_off:", "closer"),
    ]

    static func labelledPhrase(_ line: String) -> (String, String)? {
        // A list item or bold label reads as the line ("- Greeting: hi", "**Sign-off:** Be well").
        var trimmed = line
        if let marker = MarkdownSoulReader.listMarkerLength(Substring(trimmed)) { trimmed = String(trimmed.dropFirst(marker)) }
        if trimmed.hasPrefix("**") || trimmed.hasPrefix("__") {
            trimmed = String(trimmed.dropFirst(2))
            if let close = trimmed.range(of: trimmed.hasPrefix("_") ? "__" : "**") { trimmed.removeSubrange(close) }
        }
        // Every prose line passes here: lowercase only the few that can start with a label.
        guard let initial = trimmed.first, initial == "g" || initial == "G" || initial == "s" || initial == "S" else { return nil }
        let lowered = trimmed.prefix(10).lowercased()
        guard let (label, kind) = phraseLabels.first(where: { lowered.hasPrefix($0.label) }) else { return nil }
        var phrase = trimmed.dropFirst(label.count).trimmedSpaces
        // Quoted whole: the quotes are not the phrase's.
        for (open, close) in [("\"", "\""), ("“", "”"), ("«", "»"), ("'", "'")] where phrase.count > 2 && phrase.hasPrefix(open) && phrase.hasSuffix(close) {
            phrase = String(phrase.dropFirst().dropLast()).trimmedSpaces
            break
        }
        guard (1...80).contains(phrase.count) else { return nil }
        // A note about the phrase is no phrase: "Sign-off: none", "Greeting: never 'Hey guys'",
        // "Greeting: warm but brief".
        let first = phrase.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "/" && $0 != "'" }).first.map(String.init) ?? ""
        guard !phraseNotes.contains(first) else { return nil }
        return (kind, String(phrase))
    }

    /// First words that make a labelled line a note about the phrase rather than the phrase.
    static let phraseNotes: Set<String> = [
        "none", "n/a", "na", "no", "never", "always", "avoid", "don't", "dont", "optional", "skip",
        "warm", "brief", "short", "long", "friendly", "formal", "informal", "casual", "polite", "minimal", "simple", "plain",
        "neutral", "professional", "same", "varies", "depends", "whatever",
    ]

    static func phraseStatements(_ trimmed: String, _ lowered: String) -> [(String, String)] {
        var result: [(String, String)] = []
        for kind in ["opener", "closer", "greeting", "refusal"] {
            if let found = phraseStatement(trimmed, lowered, only: kind) { result.append(found) }
        }
        return result
    }

    static func phraseStatement(_ trimmed: String, _ lowered: String, only: String) -> (String, String)? {
        let kinds: [(String, [String])] = [
            ("opener", ["open with", "opens with", "opening with", "start with", "starts with", "starting with", "begin with", "begins with",
                        "lead with", "leads with", "opener", "beginnt mit", "fängt mit", "で始め", "冒頭"]),
            ("closer", ["close with", "closes with", "closing with", "end with", "ends with", "ending with", "sign off", "sign-off", "signs off",
                        "signoff", "closer", "sign-off", "endet mit", "schließt mit", "で締め", "結びは"]),
            ("greeting", ["greeting", "greets", "greet with", "say hello", "begrüßt", "begrüßung", "挨拶"]),
            ("refusal", ["refuse", "refuses", "refusing", "decline", "declines", "declining", "say no", "says no", "saying no", "lehnt", "ablehnen", "断る", "断り"]),
        ]
        for (kind, cues) in kinds where kind == only {
            guard let cue = cues.first(where: { lowered.fastContains($0) }) else { continue }
            // A negated cue ("never open with …", "don't sign off with …") is not the persona's habit.
            let words = words(lowered)
            let cueWord = Substring(cue.split(separator: " ").first ?? "")
            if let at = words.firstIndex(where: { $0.hasPrefix(cueWord) }), negated(words, before: at) { return nil }
            guard let range = trimmed.lowercased().range(of: cue) else { continue }
            let after = String(lowered[range.upperBound...])
            let offset = trimmed.count - after.count
            let tail = String(trimmed.dropFirst(max(0, offset)))
            // A phrase, not a sentence fragment ("okay so today we're going to…") or a command's start ("claude:").
            // A quote right after the cue ("Sign off with \"I remain, as ever, at your service.\"")
            // is the phrase itself, and may be as long as a labelled one.
            var start = Substring(tail).drop { $0 == " " || $0 == ":" }
            if start.lowercased().hasPrefix("with ") { start = start.dropFirst(5).drop { $0 == " " } }
            // Quotation marks only: a code span after "end with" is a command, not a phrase.
            let right = start.first.map { "\"“„«「".contains($0) } ?? false
            let longest = right && (kind == "closer" || kind == "greeting") ? 80 : 32
            guard let phrase = quoted(in: tail).first(where: { !$0.isEmpty && $0.count <= longest }),
                  !phrase.hasSuffix("..."), !phrase.hasSuffix("…"), kind == "opener" || !phrase.hasSuffix(":") else { continue }
            return (kind, phrase)
        }
        return nil
    }

    /// Text between quotation marks or code ticks, in order.
    static func quoted(in text: String) -> [String] {
        let pairs: [Character: Character] = ["\"": "\"", "“": "”", "`": "`", "„": "“", "«": "»", "「": "」", "『": "』", "‚": "‘"]
        var result: [String] = []
        var current: String?
        var closer: Character = "\""
        for character in text {
            if var phrase = current {
                if character == closer {
                    phrase = phrase.trimmedSpaces
                    result.append(phrase)
                    current = nil
                } else {
                    phrase.append(character)
                    current = phrase.count > 200 ? nil : phrase
                }
            } else if let close = pairs[character] {
                current = ""
                closer = close
            }
        }
        return result
    }

    /// "**Emojis:** …", "Capitalization: …": a rule the reader already applies, not the persona's voice.
    /// The line's sentence goes on in the next line (hard-wrapped prose): no end mark here, and
    /// the next line is more of the same paragraph, not a list item, heading, table or blank.
    /// Wrapped or not, the same text must measure alike.
    static func continues(_ source: Source, at index: Int, role: MarkdownSoulReader.LineRole) -> Bool {
        let trimmed = source.lines[index].trimmedSpaces
        guard let last = trimmed.last, !".!?。！？:：".contains(last), !trimmed.hasPrefix("#"), !trimmed.hasPrefix("|"),
              index + 1 < min(source.lines.count, maxLines) else { return false }
        let next = source.lines[index + 1].trimmedSpaces
        let nextRole = index + 1 < source.roles.count ? source.roles[index + 1] : .prose
        return !next.isEmpty && nextRole == role && !MarkdownSoulReader.isListItem(next) && !next.hasPrefix("#") && !next.hasPrefix("|")
            && next.hasPrefix(">") == trimmed.hasPrefix(">")
    }

    static func isRuleLine(_ trimmed: String) -> Bool {
        MarkdownSoulReader.rule(trimmed) != nil
    }

    /// The line's words, as plain text (at most 80 characters); the line as written when
    /// nothing is left of it as plain text (a trait is never shown without its evidence).
    static func evidence(_ trimmed: String) -> String {
        let plain = MarkdownSoulReader.plainText(trimmed)
        var text = plain.hasPrefix("> ") ? String(plain.dropFirst(2)) : plain
        if let marker = MarkdownSoulReader.listMarkerLength(Substring(text)) { text = String(text.dropFirst(marker)) }
        if text.trimmedSpaces.isEmpty { text = trimmed }
        return text.count <= 80 ? text : String(text.prefix(79)) + "…"
    }

    // MARK: Habits

    struct Stats {
        var sentences = 0
        var words = 0
        var contractions = 0
        var slang = 0
        var formalMarkers = 0
        var latinStarts = 0
        var lowercaseStarts = 0
        var emoji = 0
        var emojiCounts: [String: Int] = [:]
        var emojiOrder: [String] = []
        var exclamations = 0
        var hedges = 0
        var firstSentence: Found?
        var firstCasual: Found?
        var firstFormal: Found?
        var firstLowercase: Found?
        var firstEmoji: Found?
        var firstExclamation: Found?
        var firstHedge: Found?
        /// The last line added ended mid-sentence (hard-wrapped): the next one does not start one.
        var midSentence = false

        static let slangWords: Set<Substring> = ["gonna", "wanna", "gotta", "kinda", "sorta", "yeah", "yep", "nope", "lol", "lmao", "tbh", "ngl", "imo",
                                                 "lfg", "dude", "bro", "y'all", "ya", "nah", "omg", "btw", "fr", "vibe", "vibes", "legit", "super",
                                                 "krass", "geil", "digga", "alter", "voll", "mega", "halt", "mal", "okay", "ok", "hey"]
        static let formalWords: Set<Substring> = ["therefore", "moreover", "furthermore", "hence", "thus", "shall", "regarding", "accordingly",
                                                  "whereas", "herewith", "kindly", "indeed", "sir", "madam", "pleased", "esteemed",
                                                  "sie", "ihnen", "ihr", "ihre", "gerne", "selbstverständlich", "bitte", "gestatten", "dürfen"]
        static let hedgeWords: Set<Substring> = ["maybe", "perhaps", "probably", "might", "likely", "seems", "arguably", "roughly", "possibly",
                                                 "presumably", "vielleicht", "wahrscheinlich", "vermutlich", "eventuell", "peut-être", "quizás", "tal"]

        static func isContraction(_ token: Substring) -> Bool {
            guard token.count > 2, token.contains("'") || token.contains("’") else { return false }
            if token.hasSuffix("'s") || token.hasSuffix("’s") {
                return ["it's", "that's", "what's", "here's", "there's", "let's", "he's", "she's", "who's", "it’s", "that’s", "what’s", "here’s", "there’s", "let’s"].contains(String(token))
            }
            return true
        }

        mutating func add(_ trimmed: String, found: (String) -> Found, language: String, continues: Bool = false) {
            let startsMidSentence = midSentence
            midSentence = false
            var text = trimmed
            if text.hasPrefix(">") { text = String(text.dropFirst()).trimmedSpaces }
            var isShortItem = false
            if let marker = MarkdownSoulReader.listMarkerLength(Substring(text)) {
                text = String(text.dropFirst(marker))
                // A short list item ("awesome", "- pull a proof") is a word, not a sentence.
                isShortItem = text.split(separator: " ").count < 6
            }
            text = MarkdownSoulReader.plainText(text)
            guard !text.isEmpty, text.count <= 4_000 else { return }

            // Emoji named as ones never to use ("no 🚀", "never 💯") are not favourites.
            // (Only looked at when the line has an emoji: most do not.)
            let countsEmoji = !ProseWords.containsEmoji(text) || !["never", "no ", "don't", "avoid", "not ", "ban", "nie ", "kein", "nicht", "禁止", "使わない"].contains { text.lowercased().fastContains($0) }
            // Sentences and their lengths (CJK: about two characters a word).
            var sentenceCount = 0
            var atStart = !startsMidSentence
            var previous: Character = " ", beforePrevious: Character = " "
            var cjk = 0
            for character in text {
                if atStart, character.isLetter {
                    if character.isASCII || character.unicodeScalars.first!.value < 0x250 {
                        latinStarts += 1
                        if character.isLowercase {
                            lowercaseStarts += 1
                            if firstLowercase == nil { firstLowercase = found("lowercase") }
                        }
                    }
                    atStart = false
                }
                if let scalar = character.unicodeScalars.first, (0x3040...0x30FF).contains(scalar.value) || (0x4E00...0x9FFF).contains(scalar.value) { cjk += 1 }
                if character == "。" || character == "！" || character == "？" { sentenceCount += 1; atStart = true }
                if (previous == "." || previous == "!" || previous == "?") && character == " " { sentenceCount += 1; atStart = true }
                if character == "!" || character == "！" {
                    exclamations += 1
                    if firstExclamation == nil { firstExclamation = found("!") }
                }
                // "41k❤", "12 🔁": a symbol after a number is a count's unit (likes, reposts),
                // not the persona's emoji.
                let countsUnit = previous.isNumber || ("kKmM".contains(previous) && beforePrevious.isNumber)
                for scalar in character.unicodeScalars where countsEmoji && !countsUnit && ProseWords.isEmoji(scalar) {
                    emoji += 1
                    let key = String(character)
                    if emojiCounts[key] == nil { emojiOrder.append(key) }
                    emojiCounts[key, default: 0] += 1
                    if firstEmoji == nil { firstEmoji = found(key) }
                    break
                }
                beforePrevious = previous
                previous = character
            }
            if let last = text.last, !"。！？".contains(last) {
                if continues && !".!?".contains(last) { midSentence = true } else { sentenceCount += 1 }
            }
            let lowered = text.lowercased()
            let tokens = TraitDeriver.words(lowered).filter { $0 != "." }
            if isShortItem { return }
            sentences += sentenceCount
            words += tokens.count + cjk / 2
            if firstSentence == nil, sentenceCount > 0 { firstSentence = found("") }
            for token in tokens {
                if Self.isContraction(token) {
                    contractions += 1
                    if firstCasual == nil { firstCasual = found("casual") }
                }
                if Self.slangWords.contains(token) {
                    slang += 1
                    if firstCasual == nil { firstCasual = found("casual") }
                }
                if Self.formalWords.contains(token), !(token == "sie" || token == "ihr" || token == "ihre") || language.hasPrefix("de") {
                    formalMarkers += 1
                    if firstFormal == nil { firstFormal = found("formal") }
                }
                if Self.hedgeWords.contains(token) {
                    hedges += 1
                    if firstHedge == nil { firstHedge = found("cautious") }
                }
            }
            if lowered.fastContains("i think") || lowered.fastContains("kind of") || lowered.fastContains("sort of") || lowered.fastContains("かもしれ") || lowered.fastContains("たぶん") {
                hedges += 1
                if firstHedge == nil { firstHedge = found("cautious") }
            }
            // German: du is casual, Sie formal; Japanese: です/ます is polite, plain endings casual.
            if language.hasPrefix("de") {
                let du = tokens.filter { ["du", "dich", "dir", "dein", "deine", "euch"].contains($0) }.count
                if du > 0 { slang += du; if firstCasual == nil { firstCasual = found("casual") } }
                // "Sie" in the middle of a sentence is the polite address.
                if text.fastContains(" Sie ") || text.fastContains(" Ihnen") { formalMarkers += 1; if firstFormal == nil { firstFormal = found("formal") } }
            }
            if language.hasPrefix("ja") {
                let polite = ["です", "ます", "ました", "ません", "ございます", "でしょう"].reduce(0) { $0 + (text.fastContains($1) ? 1 : 0) }
                if polite > 0 { formalMarkers += 2; if firstFormal == nil { firstFormal = found("formal") } }
                let plain = ["だよ", "じゃん", "だね", "よね", "っしょ", "だぜ", "ぜ。", "よ！", "ね！", "わ！", "じゃね"].reduce(0) { $0 + (text.fastContains($1) ? 1 : 0) }
                if plain > 0 { slang += 2; if firstCasual == nil { firstCasual = found("casual") } }
            }
        }
    }
}
