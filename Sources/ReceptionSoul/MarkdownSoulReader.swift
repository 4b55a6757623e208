import Foundation

/// Reads what a free-form soul.md body states plainly: its sections, the name in the first
/// heading, word lists to use and avoid, rules written as "Emojis: …" or
/// "Capitalization: …", boundaries. Files in the wild have no fixed headings, and some are
/// not in English, so recognition works from keywords in several languages; what it does
/// not recognise is kept as prose and used for nothing else.
struct MarkdownSoulReader {
    let lines: [Substring]
    let firstLine: Int
    /// False when the front matter states the language: detection is skipped.
    var detectsLanguage = true

    var sections: [SoulSection] = []
    var emptySections: [(heading: String, line: Int)] = []
    var name: String?
    var summary: String?
    var tone: String?
    var emoji: EmojiPolicy?
    var capitalization: Capitalization?
    var language: String?
    var boundaries: [String] = []
    var prefer: [String] = []
    var avoid: [String] = []
    var replacements: [VocabularyReplacement] = []
    var preferLines: [(String, Int)] = []
    var avoidLines: [(String, Int)] = []

    init(lines: [Substring], firstLine: Int) {
        self.lines = lines
        self.firstLine = firstLine
    }

    private struct Heading {
        var level: Int
        var text: String
        var index: Int
    }

    mutating func read() {
        // Headings outside fenced code.
        var headings: [Heading] = []
        var inFence = false
        var fenced = [Bool](repeating: false, count: lines.count)
        for (index, line) in lines.enumerated() {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                inFence.toggle()
                fenced[index] = true
                continue
            }
            fenced[index] = inFence
            if inFence { continue }
            if let heading = Self.heading(line) { headings.append(Heading(level: heading.level, text: heading.text, index: index)) }
        }

        // Sections: from a heading to the next heading of any level.
        for (position, heading) in headings.enumerated() {
            let end = position + 1 < headings.count ? headings[position + 1].index : lines.count
            let content = lines[(heading.index + 1)..<end]
            let text = content.joined(separator: "\n").trimmedWhitespace
            let kind = Self.kind(of: heading.text)
            sections.append(SoulSection(kind: kind, heading: heading.text, level: heading.level, text: text, line: firstLine + heading.index))
            // Empty: nothing until the next heading at the same or a higher level.
            let nextSibling = headings[(position + 1)...].first { $0.level <= heading.level }?.index ?? lines.count
            let hasContent = lines[(heading.index + 1)..<nextSibling].contains { line in
                let trimmed = line.trimmedSpaces
                return !trimmed.isEmpty && trimmed != "---" && trimmed != "***"
            }
            if !hasContent { emptySections.append((heading.text, firstLine + heading.index)) }
        }

        if let first = headings.first(where: { $0.level == 1 }) ?? headings.first {
            name = Self.name(fromHeading: first.text)
        }
        summary = firstParagraph(after: headings.first?.index)

        // Rules and lists, walking the lines with the section each is in.
        var sectionIndex = -1
        var polarity: Polarity = .none
        var sectionKind: SoulSection.Kind = .other
        var sectionHeading = ""
        var voiceToneTaken = false
        var vocabularyLevel: Int?
        for (index, line) in lines.enumerated() {
            if fenced[index] { continue }
            if sectionIndex + 1 < headings.count, headings[sectionIndex + 1].index == index {
                sectionIndex += 1
                let heading = headings[sectionIndex]
                sectionKind = Self.kind(of: heading.text)
                sectionHeading = heading.text.lowercased()
                // A subsection of a vocabulary section is vocabulary too ("### Use" under "## Vocabulary").
                if let level = vocabularyLevel, heading.level > level, sectionKind == .other || Self.polarity(of: heading.text) != .none {
                    sectionKind = .vocabulary
                }
                if sectionKind == .vocabulary {
                    if vocabularyLevel == nil || heading.level <= vocabularyLevel! { vocabularyLevel = heading.level }
                    polarity = Self.polarity(of: heading.text)
                } else {
                    if let level = vocabularyLevel, heading.level <= level { vocabularyLevel = nil }
                    polarity = .none
                }
                continue
            }
            let trimmed = line.trimmedSpaces
            if trimmed.isEmpty { continue }

            if let (key, ruleValue) = Self.rule(trimmed) {
                var value = ruleValue
                if value.isEmpty, key != .use, key != .avoid {
                    // "**Emojis:**" followed by a list: the list is the value (its first item for capitalisation).
                    let items = followingListItems(after: index)
                    value = key == .capitalization ? (items.first ?? "") : items.joined(separator: " ")
                }
                apply(rule: key, value: value, sectionHeading: sectionHeading)
                if sectionKind == .vocabulary, key == .use || key == .avoid {
                    polarity = key == .use ? .prefer : .avoid
                    // "Avoid: a, b" on one line.
                    if !value.isEmpty { addTerms(from: value, polarity: polarity, line: firstLine + index, splitCommas: true) }
                }
                if key != .use && key != .avoid { continue }
                continue
            }
            if sectionKind == .formatting, sectionHeading.fastContains("capitali") || sectionHeading.fastContains("大小"),
               capitalization == nil, trimmed.lowercased().fastContains("lowercase") {
                capitalization = .lowercase
            }
            if sectionKind == .voice, !voiceToneTaken, !Self.isListItem(trimmed), !trimmed.hasPrefix(">"), !trimmed.hasPrefix("|"),
               trimmed != "---", trimmed != "***", !trimmed.hasPrefix("**") || !trimmed.hasSuffix(":**") {
                voiceToneTaken = true
                let plain = Self.plainText(trimmed)
                if let sentence = Sentences.firstSentence(plain), sentence.count <= 100 { tone = tone ?? sentence }
            }
            guard let item = Self.listItem(trimmed) ?? (trimmed.hasPrefix("❌") ? String(trimmed.dropFirst()) : nil) else { continue }
            switch sectionKind {
            case .boundaries:
                let text = Self.plainText(item).trimmingScalars(in: "❌✗✘ ")
                if !text.isEmpty { boundaries.append(text) }
            case .vocabulary:
                addTerms(from: item, polarity: polarity == .none ? .prefer : polarity, line: firstLine + index, splitCommas: false)
            default:
                break
            }
        }
        if language == nil, detectsLanguage { language = Self.detectLanguage(lines) }
    }

    func followingListItems(after index: Int) -> [String] {
        var items: [String] = []
        var position = index + 1
        while position < lines.count, items.count < 8 {
            let trimmed = lines[position].trimmedSpaces
            if trimmed.isEmpty { if items.isEmpty { position += 1; continue } else { break } }
            guard let item = Self.listItem(trimmed) else { break }
            items.append(Self.plainText(item))
            position += 1
        }
        return items
    }

    // MARK: Vocabulary

    enum Polarity { case none, prefer, avoid }

    static func polarity(of heading: String) -> Polarity {
        let lowered = heading.lowercased()
        let avoidWords = ["avoid", "never", "banned", "don't", "do not", "not use", "forbidden", "avoided", "avoids", "避免", "不用", "禁用", "evitar", "éviter", "vermeiden"]
        let useWords = ["use", "used", "uses", "prefer", "say", "favorite", "favourite", "常用", "使用", "usar", "utiliser", "verwenden"]
        if avoidWords.contains(where: { lowered.fastContains($0) }) { return .avoid }
        let words = Set(lowered.split { !$0.isLetter })
        if useWords.contains(where: { words.contains(Substring($0)) || (($0.unicodeScalars.first?.value ?? 0) > 0x2E80 && lowered.fastContains($0)) }) { return .prefer }
        return .none
    }

    mutating func addTerms(from item: String, polarity: Polarity, line: Int, splitCommas: Bool) {
        // "utilize → use": a replacement.
        for arrow in ["→", "->", "=>"] where item.fastContains(arrow) {
            if let range = item.range(of: arrow) {
                let left = Self.cleanTerm(String(item[..<range.lowerBound]))
                let right = Self.cleanTerm(String(item[range.upperBound...]))
                if let left, let right, left.split(separator: " ").count <= 4, right.split(separator: " ").count <= 4 {
                    replacements.append(VocabularyReplacement(avoid: left, prefer: right))
                    avoidLines.append((left, line))
                    return
                }
            }
        }
        for term in Self.terms(in: item, splitCommas: splitCommas) {
            if polarity == .avoid {
                if !avoid.contains(where: { $0.lowercased() == term.lowercased() }) { avoid.append(term); avoidLines.append((term, line)) }
            } else {
                if !prefer.contains(where: { $0.lowercased() == term.lowercased() }) { prefer.append(term); preferLines.append((term, line)) }
            }
        }
    }

    /// The words or phrases a list item names: a bold lead-in, else quoted phrases, else
    /// the item itself when it is short (a long item is guidance, not a word).
    static func terms(in item: String, splitCommas: Bool) -> [String] {
        var stripped = item.trimmingScalars(in: "❌✅✗✓ ")
        // "No `folks` — he says `people`": what follows a dash is commentary.
        if let dash = dashOutsideQuotes(stripped) { stripped = String(stripped[..<dash]) }
        if stripped.hasPrefix("**"), let close = stripped.dropFirst(2).range(of: "**") {
            let bold = String(stripped[stripped.index(stripped.startIndex, offsetBy: 2)..<close.lowerBound])
            return cleanTerm(bold).map { [$0] } ?? []
        }
        let quoted = quotedPhrases(stripped)
        if !quoted.isEmpty { return quoted.compactMap(cleanTerm) }
        var withoutNotes = removeParentheticals(stripped)
        if withoutNotes.hasPrefix("No ") { withoutNotes = String(withoutNotes.dropFirst(3)) }
        let parts = splitCommas
            ? withoutNotes.split(separator: ",").map(String.init)
            : withoutNotes.components(separatedBy: " / ")
        return parts.compactMap(cleanTerm).filter { $0.split(separator: " ").count <= 5 }
    }

    static func dashOutsideQuotes(_ text: String) -> String.Index? {
        var inQuote = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" || character == "“" || character == "”" || character == "`" { inQuote.toggle() }
            if !inQuote, character == "—" || character == "–", index > text.startIndex {
                let before = text[text.index(before: index)]
                if before == " " { return text.index(before: index) }
            }
            index = text.index(after: index)
        }
        return nil
    }

    static func quotedPhrases(_ text: String) -> [String] {
        var phrases: [String] = []
        var current: String?
        for character in text {
            if character == "\"" || character == "“" || character == "”" || character == "`" {
                if let phrase = current { phrases.append(phrase); current = nil } else { current = "" }
            } else if current != nil {
                current!.append(character)
            }
        }
        return phrases
    }

    static func removeParentheticals(_ text: String) -> String {
        var result = ""
        var depth = 0
        for character in text {
            if character == "(" || character == "（" { depth += 1; continue }
            if character == ")" || character == "）" { depth = max(0, depth - 1); continue }
            if depth == 0 { result.append(character) }
        }
        return result
    }

    static func cleanTerm(_ raw: String) -> String? {
        var term = plainText(raw)
        term = term.trimmingScalars(in: "\"'“”‘’`:：;,.!?…")
        while term.hasSuffix("...") { term = String(term.dropLast(3)).trimmedSpaces }
        term = term.trimmingScalars(in: "\"'“”‘’`:：;,.!?…")
        guard !term.isEmpty, term.count <= 60 else { return nil }
        return term
    }

    // MARK: Rules written as "Key: value"

    enum RuleKey { case emoji, capitalization, language, tone, use, avoid }

    static let ruleKeys: [(RuleKey, [String])] = [
        (.emoji, ["emoji", "emojis", "emoji use", "emoji policy", "emoji usage", "表情", "表情符号", "表情符號", "絵文字", "emoticons"]),
        (.capitalization, ["capitalization", "capitalisation", "caps", "casing", "case", "大小写", "大小寫", "mayúsculas", "majuscules", "großschreibung"]),
        (.language, ["language", "语言", "語言", "言語", "idioma", "langue", "sprache", "lingua"]),
        (.tone, ["tone", "语气", "語氣", "口調", "tono", "ton"]),
        (.use, ["use", "prefer", "say", "words to use", "do say"]),
        (.avoid, ["avoid", "never say", "don't say", "do not say", "words to avoid", "banned"]),
    ]

    static let ruleKeyTable: [String: RuleKey] = {
        var table: [String: RuleKey] = [:]
        for (key, names) in ruleKeys { for name in names { table[name] = key } }
        return table
    }()

    /// "- **Emojis:** rare", "Capitalization: lowercase", "**語言**：繁體中文", "Emojis are rare".
    static func rule(_ line: String) -> (RuleKey, String)? {
        // Quick reject: a rule line has a colon, or starts (after markers) with "emoji" or "capitali".
        var hasColon = false
        for byte in line.utf8 where byte == 0x3A || byte == 0xEF { hasColon = true; break }  // ':' or the lead byte of '：'
        if !hasColon {
            let lowered = line.lowercased()
            guard lowered.fastContains("emoji") || lowered.fastContains("capitali") else { return nil }
        }
        var text = Substring(line)
        if let marker = listMarkerLength(text) { text = text.dropFirst(marker) }
        text = text.drop { $0 == " " }
        var key = ""
        var rest: Substring
        if text.hasPrefix("**") {
            let inner = text.dropFirst(2)
            guard let close = inner.range(of: "**") else { return nil }
            key = String(inner[..<close.lowerBound])
            rest = inner[close.upperBound...]
            if key.hasSuffix(":") || key.hasSuffix("：") {
                key.removeLast()
            } else {
                rest = rest.drop { $0 == " " }
                guard rest.first == ":" || rest.first == "：" else { return nil }
                rest = rest.dropFirst()
            }
        } else {
            guard let colon = text.firstIndex(where: { $0 == ":" || $0 == "：" }) else {
                // "Emojis are rare …"
                let lowered = text.lowercased()
                for prefix in ["emojis are ", "emoji are ", "emoji is ", "emoji use is ", "capitalization is ", "capitalisation is "] where lowered.hasPrefix(prefix) {
                    let key: RuleKey = prefix.hasPrefix("emoji") ? .emoji : .capitalization
                    return (key, String(text.dropFirst(prefix.count)))
                }
                return nil
            }
            key = String(text[..<colon])
            rest = text[text.index(after: colon)...]
        }
        let normalized = key.trimmingScalars(in: "*_ ").lowercased()
        guard normalized.count <= 24 else { return nil }
        guard let ruleKey = ruleKeyTable[normalized] else { return nil }
        return (ruleKey, plainText(String(rest)).trimmedSpaces)
    }

    mutating func apply(rule key: RuleKey, value: String, sectionHeading: String) {
        let lowered = value.lowercased()
        switch key {
        case .emoji:
            if let policy = Self.emojiPolicy(lowered) { emoji = emoji ?? policy }
        case .capitalization:
            if lowered.fastContains("lowercase") || lowered.fastContains("lower case") || lowered.fastContains("lower-case") || lowered.fastContains("minúscula") || lowered.fastContains("小写") {
                capitalization = capitalization ?? .lowercase
            } else if lowered.fastContains("sentence") || lowered.fastContains("standard") || lowered.fastContains("proper") || lowered.fastContains("normal") {
                capitalization = capitalization ?? .sentence
            } else {
                capitalization = capitalization ?? .asWritten
            }
        case .language:
            if let tag = Self.languageTag(lowered) { language = language ?? tag }
        case .tone:
            if !value.isEmpty, value.count <= 120 { tone = tone ?? value }
        case .use, .avoid:
            break
        }
    }

    static func emojiPolicy(_ value: String) -> EmojiPolicy? {
        let words = Set(value.split { !$0.isLetter && !$0.isNumber }.map(String.init))
        let sparing = ["rare", "rarely", "occasional", "occasionally", "sparing", "sparingly", "minimal", "max", "maximum", "máximo", "most", "limit", "limited", "few", "one", "1", "2", "acceptable", "sometimes", "sparse", "sparsely", "occasional", "少量", "偶尔", "偶爾"]
        let negative = ["no", "none", "never", "zero", "avoid", "don't", "without", "not", "nunca", "jamais", "keine", "kein", "不要", "禁止", "不使用"]
        let positive = ["yes", "allowed", "freely", "lots", "encouraged", "welcome", "love", "ok", "fine", "always", "plenty", "many"]
        func has(_ list: [String]) -> Bool { list.contains { words.contains($0) || (($0.unicodeScalars.first?.value ?? 0) > 0x2E80 && value.fastContains($0)) } }
        if has(sparing) { return .sparing }
        if has(negative) { return .never }
        if has(positive) { return .allowed }
        return nil
    }

    static let languageNames: [(String, String)] = [
        ("traditional chinese", "zh-TW"), ("繁體中文", "zh-TW"), ("繁体中文", "zh-TW"), ("simplified chinese", "zh-CN"), ("简体中文", "zh-CN"),
        ("chinese", "zh"), ("中文", "zh"), ("japanese", "ja"), ("日本語", "ja"), ("korean", "ko"), ("한국어", "ko"),
        ("english", "en"), ("英文", "en"), ("英语", "en"), ("spanish", "es"), ("español", "es"), ("french", "fr"), ("français", "fr"),
        ("german", "de"), ("deutsch", "de"), ("portuguese", "pt"), ("português", "pt"), ("italian", "it"), ("italiano", "it"),
        ("russian", "ru"), ("русский", "ru"), ("dutch", "nl"), ("nederlands", "nl"),
    ]

    static func languageTag(_ value: String) -> String? {
        languageNames.first { value.fastContains($0.0) }?.1
    }

    /// The script (CJK) or the commonest function words (Latin languages) of the prose.
    static func detectLanguage(_ lines: [Substring]) -> String? {
        var han = 0, kana = 0, hangul = 0, cyrillic = 0, latin = 0
        var traditional = 0, simplified = 0
        let traditionalMarks: Set<Character> = ["們", "這", "個", "為", "說", "時", "與", "會", "對", "語", "體", "應", "檔", "設"]
        let simplifiedMarks: Set<Character> = ["们", "这", "个", "为", "说", "时", "与", "会", "对", "语", "体", "应", "档", "设"]
        var wordCounts: [String: Int] = [:]
        for line in lines {
            for character in line {
                guard let scalar = character.unicodeScalars.first else { continue }
                switch scalar.value {
                case 0x4E00...0x9FFF:
                    han += 1
                    if traditionalMarks.contains(character) { traditional += 1 }
                    if simplifiedMarks.contains(character) { simplified += 1 }
                case 0x3040...0x30FF: kana += 1
                case 0xAC00...0xD7AF: hangul += 1
                case 0x0400...0x04FF: cyrillic += 1
                case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F: latin += 1
                default: break
                }
            }
            for word in line.lowercased().split(whereSeparator: { !$0.isLetter }) where word.count <= 4 {
                wordCounts[String(word), default: 0] += 1
            }
        }
        if kana > 20, kana * 5 > han { return "ja" }
        if hangul > 20, hangul > latin / 2 { return "ko" }
        if han > 20, han * 2 > latin / 3 { return traditional > simplified ? "zh-TW" : simplified > 0 ? "zh-CN" : "zh" }
        if cyrillic > 20, cyrillic > latin { return "ru" }
        let markers: [(String, [String])] = [
            ("en", ["the", "and", "you", "is", "of", "to", "with"]),
            ("es", ["el", "la", "que", "los", "y", "es", "con"]),
            ("fr", ["le", "les", "et", "est", "vous", "des", "une"]),
            ("de", ["der", "die", "und", "ist", "du", "nicht", "mit"]),
            ("pt", ["você", "não", "o", "os", "e", "com", "uma"]),
        ]
        let scored = markers.map { ($0.0, $0.1.reduce(0) { $0 + (wordCounts[$1] ?? 0) }) }
        guard let best = scored.max(by: { $0.1 < $1.1 }), best.1 >= 3 else { return nil }
        return best.0
    }

    // MARK: Markdown helpers

    static func heading(_ line: Substring) -> (level: Int, text: String)? {
        let leading = line.prefix { $0 == " " }.count
        guard leading <= 3 else { return nil }
        let rest = line.dropFirst(leading)
        let hashes = rest.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return nil }
        let after = rest.dropFirst(hashes)
        guard after.isEmpty || after.first == " " || after.first == "\t" else { return nil }
        var text = after.trimmedSpaces
        while text.hasSuffix("#") { text.removeLast() }
        return (hashes, text.trimmedSpaces)
    }

    static func kind(of heading: String) -> SoulSection.Kind {
        let lowered = plainText(heading).lowercased()
        func any(_ words: [String]) -> Bool { words.contains { lowered.fastContains($0) } }
        if any(["vocabulary", "words", "phrases", "language patterns", "lexicon", "词汇", "詞彙", "用语", "用語", "vocabulario", "vocabulaire", "wortschatz", "palabras"]) { return .vocabulary }
        if any(["boundar", "limits", "will not", "won't", "never", "don't", "do not", "anti-pattern", "red line", "边界", "邊界", "界限", "境界", "límites", "limites", "grenzen", "禁止"]) { return .boundaries }
        if any(["example", "sample", "calibration", "transformation", "示例", "例子", "範例", "ejemplo", "exemple", "beispiel"]) { return .examples }
        if any(["format", "capitali", "punctuation", "emoji", "回應規範", "格式", "排版"]) { return .formatting }
        if any(["voice", "vibe", "tone", "style", "temperament", "personality", "how i talk", "how i speak", "how i write", "communication", "调性", "語氣", "语气", "口調", "風格", "风格", "人格", "性格", "voz", "tono", "voix", "stimme"]) { return .voice }
        if any(["who i am", "who you are", "identity", "about", "persona", "core truths", "character", "purpose", "我是谁", "你是谁", "身份", "核心信念", "quién", "qui je suis", "wer ich bin"]) { return .identity }
        return .other
    }

    /// "SOUL.md - The Soul of C-3PO" → "C-3PO"; "SOUL.md — Cipher (Security Engineer)" → "Cipher";
    /// "Aaron's Writing Style Guide" → "Aaron"; generic headings ("Who You Are") give nothing.
    static func name(fromHeading heading: String) -> String? {
        var text = removeParentheticals(plainText(heading)).trimmedSpaces
        // "SOUL.md — Cipher", "Voice & Style — Garry Tan", "SOUL — Peter Steinberger": keep the part that is not about the file.
        var parts = [text]
        for separator in [" — ", " – ", " - ", " | ", ": "] where text.contains(separator) {
            parts = text.components(separatedBy: separator)
            break
        }
        func isGeneric(_ part: String) -> Bool {
            let lowered = part.lowercased().trimmedSpaces
            if lowered.isEmpty { return true }
            let generic = ["soul.md", "soul", "style.md", "style", "voice & style", "voice and style", "style guide", "writing style guide",
                           "who you are", "who i am", "you", "identity", "about", "persona", "personality", "你是谁", "我是谁",
                           "style notes", "notes", "voice", "profile"]
            return generic.contains(lowered)
        }
        text = parts.first { !isGeneric($0) }?.trimmedSpaces ?? ""
        for prefix in ["The Soul of ", "Soul of ", "The soul of "] where text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
        for suffix in ["'s Writing Style Guide", "’s Writing Style Guide", " Writing Style Guide", "'s Style Guide", " Style Guide", "'s Soul", " Soul"] where text.hasSuffix(suffix) {
            text = String(text.dropLast(suffix.count))
        }
        text = text.trimmingScalars(in: " -—–:|·")
        guard !text.isEmpty, text.count <= 60, !isGeneric(text), !text.fastContains("\\n"), !text.hasPrefix("[") else { return nil }
        return text
    }

    func firstParagraph(after headingIndex: Int?) -> String? {
        let start = (headingIndex ?? -1) + 1
        guard start < lines.count else { return nil }
        var paragraph: [String] = []
        for line in lines[start...] {
            let trimmed = line.trimmedSpaces
            if trimmed.isEmpty { if paragraph.isEmpty { continue } else { break } }
            if Self.heading(line) != nil || trimmed.hasPrefix("```") || trimmed == "---" || Self.isListItem(trimmed) || trimmed.hasPrefix("|") {
                if paragraph.isEmpty { return nil } else { break }
            }
            paragraph.append(trimmed.hasPrefix(">") ? String(trimmed.dropFirst()).trimmedSpaces : trimmed)
        }
        guard !paragraph.isEmpty else { return nil }
        let plain = Self.plainText(paragraph.joined(separator: " "))
        guard let sentence = Sentences.firstSentence(plain), sentence.count <= 200 else { return nil }
        return sentence
    }

    static func isListItem(_ trimmed: String) -> Bool { listMarkerLength(Substring(trimmed)) != nil }

    static func listMarkerLength(_ text: Substring) -> Int? {
        guard let first = text.first else { return nil }
        if first == "-" || first == "*" || first == "+" || first == "•" {
            let second = text.dropFirst().first
            return second == " " ? 2 : nil
        }
        let digits = text.prefix { $0.isASCII && $0.isNumber }.count
        if digits > 0, digits <= 3 {
            let after = text.dropFirst(digits)
            if (after.first == "." || after.first == ")"), after.dropFirst().first == " " { return digits + 2 }
        }
        return nil
    }

    static func listItem(_ trimmed: String) -> String? {
        guard let marker = listMarkerLength(Substring(trimmed)) else { return nil }
        return String(trimmed.dropFirst(marker)).trimmedSpaces
    }

    /// Markdown emphasis and inline code markers removed.
    static func plainText(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        var previous: Character = " "
        for character in text {
            if character == "*" || character == "`" { previous = character; continue }
            if character == "_", !(previous.isLetter || previous.isNumber) { previous = character; continue }
            if character == "_", previous.isLetter || previous.isNumber { result.append(character); previous = character; continue }
            result.append(character)
            previous = character
        }
        // Trailing underscores of _emphasis_.
        while result.hasSuffix("_") { result.removeLast() }
        return result.trimmedSpaces
    }
}

extension Sentences {
    /// The first sentence of a text, or nil for an empty text: the same as `split(text).first`,
    /// without splitting the whole text (long paragraphs are common in soul files).
    static func firstSentence(_ text: String) -> String? {
        let view = text.unicodeScalars
        var index = view.startIndex
        var sawEnd = false
        while index < view.endIndex {
            let scalar = view[index]
            if sawEnd, scalar.properties.isWhitespace {
                // A candidate end: confirm it with the real splitter on the text up to the next word.
                var next = view.index(after: index)
                while next < view.endIndex, view[next].properties.isWhitespace { next = view.index(after: next) }
                if next < view.endIndex {
                    let probe = split(String(text[text.startIndex...next]))
                    if probe.count > 1 { return probe[0] }
                }
            }
            sawEnd = scalar == "." || scalar == "!" || scalar == "?" || scalar == "\"" || scalar == "'" || scalar == "”" || scalar == "’" || scalar == ")" || scalar == "]"
                ? (scalar == "." || scalar == "!" || scalar == "?" || sawEnd) : false
            index = view.index(after: index)
        }
        return split(text).first
    }
}

import ReceptionCore
