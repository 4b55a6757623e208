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
    var nameLine = 1
    var emojiLine = 1
    var capitalizationLine = 1
    var languageLine: Int?
    var summary: String?
    var tone: String?
    /// The lines the summary and the tone came from (for `soul show --derived`).
    var summaryLine = 1
    var toneLine = 1
    var emoji: EmojiPolicy?
    var capitalization: Capitalization?
    var language: String?
    var boundaries: [String] = []
    var prefer: [String] = []
    var avoid: [String] = []
    var replacements: [VocabularyReplacement] = []
    var preferLines: [(String, Int)] = []
    var avoidLines: [(String, Int)] = []
    /// What each line is, for the trait deriver: persona prose, a forbidden context, an example…
    var roles: [LineRole] = []
    /// Lines under a heading that names one venue ("### Parliament", "## Twitter mode"): how the
    /// persona opens a speech there is not how it opens an answer here.
    var venueLines: Set<Int> = []
    var examples: [SoulExample] = []
    /// Phrases the persona says (quick reactions, catch-phrases), with their lines.
    var signature: [(String, Int)] = []
    /// The line of the first boundary, and of the line being read.
    var boundaryLine: Int?
    var currentLine = 1
    /// The file name used in examples' and traits' locations.
    var fileName = ""
    /// For example-output files: the polarity of the whole file (good-outputs / bad-outputs).
    var documentExamples: Bool? = nil

    enum LineRole: Equatable {
        /// Persona prose or a rule: read for the voice.
        case prose
        /// A heading.
        case heading
        /// Code, tables, HTML comments: ignored.
        case ignored
        /// Under a never/avoid/won't heading, in a "Never say" list, or a bad example: the opposite of the voice.
        case avoided
        /// An example output in the voice.
        case goodExample
        /// Commentary on examples ("Why:", "Calibration:").
        case meta
    }

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
        roles = [LineRole](repeating: .prose, count: lines.count)
        var inComment = false
        for (index, line) in lines.enumerated() {
            let trimmed = line.drop { $0 == " " }
            // HTML comments (template instructions) are not the persona.
            if !inFence, inComment || trimmed.hasPrefix("<!--") {
                roles[index] = .ignored
                fenced[index] = true
                if trimmed.hasPrefix("<!--") { inComment = true }
                if line.fastContains("-->") { inComment = false }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                inFence.toggle()
                fenced[index] = true
                roles[index] = .ignored
                continue
            }
            fenced[index] = inFence
            // A template's unfilled placeholder ("[Your background here]") and a checklist
            // item left unticked ("- [ ] Too formal") say nothing about this persona.
            if !inFence, Self.isPlaceholder(trimmed) || Self.isUntickedItem(trimmed) { roles[index] = .ignored }
            if inFence { roles[index] = .ignored; continue }
            if let heading = Self.heading(line) {
                headings.append(Heading(level: heading.level, text: heading.text, index: index))
                roles[index] = .heading
            }
        }

        // Labels ("**Never uses:**") and the list items each one introduces.
        let labels = MarkdownLabels(lines: lines, headings: Set(headings.map(\.index))) { fenced[$0] || roles[$0] == .ignored }

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
            nameLine = firstLine + first.index
        }
        if name == nil {
            // "You are Sentinel, …", "I am K-2SX, …", "Ich bin Greta." in the first lines.
            for (index, line) in lines.prefix(30).enumerated() where !fenced[index] {
                if let found = Self.name(fromSentence: Self.plainText(String(line))) {
                    name = found
                    nameLine = firstLine + index
                    break
                }
            }
        }
        if name == nil {
            let opening = lines.prefix(30).enumerated().filter { !fenced[$0.offset] }.map { ($0.offset, Self.plainText(String($0.element))) }
            if let (index, found) = Self.lowercaseName(in: opening) {
                name = found
                nameLine = firstLine + index
            }
        }
        var opening = firstParagraph(after: headings.first?.index)
        // The first paragraph under the next heading, when it describes: not a rule, not a
        // template's bracketed placeholder, not under an examples heading ("**Bad:** > [Example").
        func nextSection(kinds: Set<SoulSection.Kind>) -> (sentence: String, line: Int, paragraph: String)? {
            guard headings.count > 1, kinds.contains(Self.kind(of: headings[1].text)),
                  let next = firstParagraph(after: headings[1].index), !Self.instructs(next.sentence), !next.sentence.contains("[") else { return nil }
            return next
        }
        // A note to whoever edits the file ("this is wren's voice. edit it however you want, no
        // restart") opens some souls: the persona is described under the next heading
        // ("## who i am", "## The voice in one paragraph"), or nowhere.
        if let note = opening, Self.isAboutTheFiles(note.paragraph) {
            opening = nextSection(kinds: [.identity, .voice, .other])
        }
        // A title with nothing under it ("# soul", then "## who i am"): the persona is described
        // under the next heading when that heading is about who it is (under "## Voice
        // Principles" is the voice, the tone's source).
        if opening == nil, headings.count > 1, let title = headings.first?.index,
           lines[(title + 1)..<headings[1].index].allSatisfy({ $0.trimmedSpaces.isEmpty || $0.trimmedSpaces == "---" }) {
            opening = nextSection(kinds: [.identity])
        }
        if let (text, line, _) = opening { summary = text; summaryLine = line }

        // Rules and lists, walking the lines with the section each is in.
        var sectionIndex = -1
        var polarity: Polarity = .none
        var sectionKind: SoulSection.Kind = .other
        var sectionHeading = ""
        var voiceToneTaken = false
        var vocabularyLevel: Int?
        /// A heading that forbids ("Never…", "Anti-patterns", "What I won't do") and its level:
        /// everything under it is avoided.
        var negativeLevel: Int?
        /// Inside examples: true for good ones, false for bad, nil when not said.
        var exampleGood: Bool? = documentExamples
        var examplesLevel: Int?
        var signatureLevel: Int?
        var venueLevel: Int?
        var pendingExample: (text: String, line: Int, good: Bool)?
        var readWithItem: Set<Int> = []
        func flushExample(_ reader: inout MarkdownSoulReader, _ pending: inout (text: String, line: Int, good: Bool)?) {
            guard let example = pending else { return }
            pending = nil
            let text = example.text.trimmedWhitespace
            guard !text.isEmpty, text.count <= 2_000, reader.examples.count < 200 else { return }
            reader.examples.append(SoulExample(text: text, good: example.good, file: reader.fileName, line: example.line))
        }
        for (index, line) in lines.enumerated() {
            currentLine = firstLine + index
            if roles[index] == .ignored, !fenced[index] { continue }  // a placeholder, an unticked item
            if fenced[index] {
                if roles[index] == .ignored, exampleGood == false, !lines[index].trimmedSpaces.hasPrefix("<!--") { roles[index] = .avoided }
                continue
            }
            if sectionIndex + 1 < headings.count, headings[sectionIndex + 1].index == index {
                flushExample(&self, &pendingExample)
                sectionIndex += 1
                let heading = headings[sectionIndex]
                if let level = negativeLevel, heading.level <= level { negativeLevel = nil }
                if let level = examplesLevel, heading.level <= level { examplesLevel = nil; exampleGood = documentExamples }
                if let level = signatureLevel, heading.level <= level { signatureLevel = nil }
                if let level = venueLevel, heading.level <= level { venueLevel = nil }
                if venueLevel == nil, Self.namesAVenue(heading.text) { venueLevel = heading.level }
                let headingPolarity = Self.headingPolarity(heading.text)
                if negativeLevel == nil, headingPolarity == .avoid { negativeLevel = heading.level }
                if Self.isSignatureHeading(heading.text) { signatureLevel = heading.level }
                if Self.kind(of: heading.text) == .examples || examplesLevel != nil || documentExamples != nil {
                    if examplesLevel == nil { examplesLevel = heading.level }
                    switch Self.examplePolarity(heading.text) {
                    case .some(let good): exampleGood = good
                    case .none: if Self.kind(of: heading.text) == .examples, heading.level <= (examplesLevel ?? 0) { exampleGood = negativeLevel != nil ? false : (documentExamples ?? true) }
                    }
                }
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
            if venueLevel != nil { venueLines.insert(index) }
            // The lines a labelled list item wraps onto were read with it.
            if readWithItem.contains(index) { continue }
            let trimmed = line.trimmedSpaces
            if trimmed.isEmpty { flushExample(&self, &pendingExample); continue }
            if trimmed.hasPrefix("|") { roles[index] = .ignored; continue }

            // Examples: "**Good:** …", "**Bad:**", block quotes, ✅/❌ items.
            let lowered = trimmed.lowercased()
            if let marker = Self.exampleMarker(trimmed) {
                flushExample(&self, &pendingExample)
                exampleGood = marker.good
                if examplesLevel == nil { examplesLevel = 99 }
                roles[index] = marker.good ? .goodExample : .avoided
                if !marker.rest.isEmpty { pendingExample = (Self.unquoteExample(marker.rest), firstLine + index, marker.good) }
                continue
            }
            if examplesLevel != nil || exampleGood != nil {
                if lowered.hasPrefix("**why") || lowered.hasPrefix("why:") || lowered.hasPrefix("**calibration") || lowered.hasPrefix("calibration:")
                    || lowered.hasPrefix("**note") || lowered.hasPrefix("**context") || lowered.hasPrefix("**diagnosis") {
                    flushExample(&self, &pendingExample)
                    roles[index] = .meta
                    continue
                }
                if let good = exampleGood, trimmed.hasPrefix(">") {
                    let text = Self.unquoteExample(String(trimmed.dropFirst()))
                    roles[index] = good ? .goodExample : .avoided
                    if pendingExample != nil { pendingExample!.text += "\n" + text } else { pendingExample = (text, firstLine + index, good) }
                    continue
                }
                if trimmed.hasPrefix("✅") || trimmed.hasPrefix("❌") {
                    let good = trimmed.hasPrefix("✅")
                    flushExample(&self, &pendingExample)
                    roles[index] = good ? .goodExample : .avoided
                    pendingExample = (Self.unquoteExample(String(trimmed.unicodeScalars.dropFirst()).trimmedSpaces), firstLine + index, good)
                    flushExample(&self, &pendingExample)
                    // A bad example shows what the voice must not sound like; it is a boundary
                    // only when written under a boundaries heading.
                    if !good, sectionKind == .boundaries { addBoundary(trimmed) }
                    continue
                }
                // A rule written among the examples ("Never use exclamation marks.") is read as a
                // rule, not dropped as commentary on them.
                // Not under a bad example ("Do you need anything else? 😊" is how not to sound),
                // and not a question.
                let plainLine = Self.plainText(trimmed)
                let rule = exampleGood != false && !trimmed.hasPrefix(">") && !Self.isListItem(trimmed) && !"\"“„«「`".contains(trimmed.first ?? " ")
                    && !plainLine.hasSuffix("?") && Self.instructs(plainLine)
                if rule { roles[index] = .prose } else if exampleGood == false { roles[index] = .avoided } else if exampleGood == true, examplesLevel != nil { roles[index] = .meta }
            }
            if negativeLevel != nil { roles[index] = .avoided }
            if signatureLevel != nil, roles[index] == .prose, let item = Self.listItem(trimmed) ?? (trimmed.hasPrefix("\"") || trimmed.hasPrefix("“") ? trimmed : nil) {
                // "`lfg` — lowercase. No variants. `let's gooo` is off-voice.": what follows a dash
                // is commentary, and may quote what the persona does not say.
                let head = Self.dashOutsideQuotes(item).map { String(item[..<$0]) } ?? item
                for phrase in Self.quotedPhrases(head).compactMap(Self.cleanTerm) where phrase.count <= 80 && signature.count < 40 {
                    signature.append((phrase, firstLine + index))
                }
            }
            // "Never say \"…\"", "Don't use `…`": avoided words wherever they are written.
            if sectionKind != .vocabulary, Self.isNeverSayLine(lowered) {
                roles[index] = .avoided
                let body = Self.listItem(trimmed) ?? trimmed
                var cut = body
                if let dash = Self.dashOutsideQuotes(body) { cut = String(body[..<dash]) }
                // "No `utilize` when `use` works": what follows "when" is the word to use instead.
                if let clause = Self.clauseOutsideQuotes(cut) { cut = String(cut[..<clause]) }
                if Self.isConditionalBan(body) { cut = "" }
                for term in Self.quotedPhrases(cut).compactMap(Self.cleanTerm) where term.count <= 60 {
                    if !avoid.contains(where: { $0.lowercased() == term.lowercased() }) { avoid.append(term); avoidLines.append((term, firstLine + index)) }
                }
            }

            // "You are Gus. Be brief. Never say \"awesome\".": a ban in a later sentence of a line
            // of prose is a ban all the same; the line stays the persona's own words.
            // (Split only a line with a quote, which a ban needs, and a ban's words: parsing is
            // on the REPL's start path.)
            if sectionKind != .vocabulary, roles[index] == .prose, trimmed.unicodeScalars.contains(where: { Self.quoteMarks.contains($0) }),
               Self.neverSayStarts.contains(where: { lowered.fastContains($0) }) {
                for sentence in Self.laterSentences(trimmed) where Self.isNeverSayLine(sentence.lowercased()) {
                    var cut = sentence
                    if let dash = Self.dashOutsideQuotes(sentence) { cut = String(sentence[..<dash]) }
                    if let clause = Self.clauseOutsideQuotes(cut) { cut = String(cut[..<clause]) }
                    if Self.isConditionalBan(sentence) { continue }
                    for term in Self.quotedPhrases(cut).compactMap(Self.cleanTerm) where term.count <= 60 {
                        if !avoid.contains(where: { $0.lowercased() == term.lowercased() }) { avoid.append(term); avoidLines.append((term, firstLine + index)) }
                    }
                }
            }

            // "no \"as an ai\", no hedging": a quoted phrase right after "no" or "never" is
            // avoided wherever in the line it stands (published SOUL.md files write bans so).
            if sectionKind != .vocabulary, roles[index] == .prose {
                for term in Self.phrasesAfterNo(trimmed).compactMap(Self.cleanTerm) where term.count <= 60 {
                    if !avoid.contains(where: { $0.lowercased() == term.lowercased() }) { avoid.append(term); avoidLines.append((term, firstLine + index)) }
                }
            }

            if let (key, ruleValue) = Self.rule(trimmed) {
                var value = ruleValue
                // The line a trait is said to come from: the rule's, or its list's first item.
                var valueLine = firstLine + index
                if value.isEmpty, key != .use, key != .avoid {
                    // "**Emojis:**" followed by a list: the list is the value (its first item for capitalisation).
                    let items = followingListItems(after: index)
                    switch key {
                    case .capitalization: value = items.first ?? ""
                    case .tone:
                        // "**Tone:**" over "- Default: measured, deliberate…" and "- Shifts to … when …":
                        // the default is the tone; the shifts are the persona's text, in the prompt.
                        let usual = items.first { $0.lowercased().hasPrefix("default") || $0.lowercased().hasPrefix("usually") } ?? items.first ?? ""
                        value = usual.split(separator: ":", maxSplits: 1).count == 2 && usual.lowercased().hasPrefix("default")
                            ? String(usual.split(separator: ":", maxSplits: 1)[1]).trimmedSpaces : usual
                    default: value = items.joined(separator: " ")
                    }
                    if !items.isEmpty, let first = lines[(index + 1)...].firstIndex(where: { !$0.trimmedSpaces.isEmpty }) {
                        valueLine = firstLine + first
                    }
                    // "Capitalization:" over nothing but a template's blanks says nothing.
                    if value.isEmpty { continue }
                }
                let before = (emoji, capitalization, language, tone)
                apply(rule: key, value: value, sectionHeading: sectionHeading)
                if before.3 == nil, tone != nil { toneLine = valueLine }
                if before.0 == nil, emoji != nil { emojiLine = valueLine }
                if before.1 == nil, capitalization != nil { capitalizationLine = valueLine }
                if before.2 == nil, language != nil { languageLine = valueLine }
                if sectionKind == .vocabulary, key == .use || key == .avoid {
                    polarity = key == .use ? .prefer : .avoid
                    // "Avoid: a, b" on one line.
                    if !value.isEmpty { addTerms(from: value, polarity: polarity, line: firstLine + index, splitCommas: true) }
                }
                if key != .use && key != .avoid { continue }
                continue
            }
            // "- **One emoji per sentence max** — … Never sprinkled.": a statement about emoji
            // (the word among its first five) is the persona's rule, before any count of them.
            if emoji == nil, roles[index] == .prose, Self.namesEmoji(lowered) {
                let plain = Self.plainText(Self.listItem(trimmed) ?? trimmed).lowercased()
                // Sentence by sentence: "Kurze Sätze. Keine Emojis." states it in its last one.
                for sentence in plain.split(whereSeparator: { ".!?;".contains($0) }) where emoji == nil {
                    let opening = sentence.split { !$0.isLetter }.prefix(5)
                    if opening.contains(where: { token in Self.emojiWords.contains { token.hasPrefix($0) } }),
                       let policy = Self.emojiPolicy(String(sentence)) {
                        emoji = policy
                        emojiLine = firstLine + index
                    }
                }
            }
            if sectionKind == .formatting, sectionHeading.fastContains("capitali") || sectionHeading.fastContains("大小"),
               capitalization == nil, trimmed.lowercased().fastContains("lowercase") {
                capitalization = .lowercase
                capitalizationLine = firstLine + index
            }
            if sectionKind == .voice, !voiceToneTaken, !Self.isListItem(trimmed), !trimmed.hasPrefix(">"), !trimmed.hasPrefix("|"),
               trimmed != "---", trimmed != "***", !trimmed.hasPrefix("**") || !trimmed.hasSuffix(":**"),
               !Self.isAboutTheFiles(trimmed), !Self.instructs(Self.plainText(trimmed)) {
                voiceToneTaken = true
                // The paragraph, not the line: hard-wrapped prose cut the tone at the line break
                // ("Dry, patient and").
                let plain = Self.plainText(paragraph(from: index))
                if tone == nil, let sentence = Sentences.toneSentences(plain), sentence.count <= 100 { tone = sentence; toneLine = firstLine + index }
            }
            // "## Vibe" followed by a list ("- Sharp but friendly"): its first item is the tone
            // when it describes rather than instructs.
            if sectionKind == .voice, !voiceToneTaken, tone == nil, sectionHeading.fastContains("vibe") || sectionHeading.fastContains("tone"),
               let item = Self.listItem(trimmed), Self.describesATone(Self.plainText(item)) {
                voiceToneTaken = true
                tone = Self.plainText(item).trimmedSpaces
                toneLine = firstLine + index
            }
            // A label is not an item of the list it introduces ("- **Won't:**" is no boundary).
            if labels.labelLines.contains(index) { continue }
            guard let item = Self.listItem(trimmed) ?? (trimmed.hasPrefix("❌") ? String(trimmed.dropFirst()) : nil) else { continue }
            // "- **Never uses:** lit, bussin": a label with its words on the same line.
            // Outside a vocabulary section only quoted words count, under a label that speaks
            // of words or that forbids ("Sem bajulação: \"Que ótima ideia!\"").
            if let (label, value) = Self.inlineLabel(item) {
                let labelPolarity = MarkdownLabels.polarity(ofLabel: label)
                // The list goes on in the lines the item wraps onto.
                let wrapped = continuation(of: index)
                let whole = ([value] + wrapped).joined(separator: " ")
                let aboutWords = MarkdownLabels.namesWords(label) || MarkdownLabels.namesUse(label) || labelPolarity == .avoid && sectionKind != .boundaries
                if labelPolarity != .none, sectionKind == .vocabulary || aboutWords && !Self.quotedPhrases(whole).isEmpty {
                    for offset in 0...wrapped.count {
                        if labelPolarity == .avoid { roles[index + offset] = .avoided }
                        if offset > 0 { readWithItem.insert(index + offset) }
                    }
                    addTerms(from: whole, polarity: labelPolarity, line: firstLine + index, splitCommas: true)
                    continue
                }
            }
            // Under a label that says which way its list reads ("**Never uses:**", "**Words he
            // says:**"): the label decides, as a heading would, before the section's own polarity.
            if let label = labels.governing[index] {
                if label.polarity == .avoid { roles[index] = .avoided }
                let quoted = "\"“`'«„".contains(Self.plainText(item).first ?? " ") || item.hasPrefix("`")
                if sectionKind == .vocabulary || label.namesWords || label.namesUse && quoted {
                    addTerms(from: item, polarity: label.polarity, line: firstLine + index, splitCommas: false)
                    continue
                }
                if label.polarity == .avoid, sectionKind != .examples {
                    addBoundary(item, negative: true, dislike: Self.namesDislikes(label.text))
                    continue
                }
            }
            if sectionKind != .boundaries, sectionKind != .vocabulary, negativeLevel != nil, sectionKind != .examples {
                // A list under a "never" heading that is not a boundaries or vocabulary heading
                // ("Pet peeves", "Don'ts"): each item is something the persona won't do.
                addBoundary(item, negative: true, dislike: Self.namesDislikes(sectionHeading))
                continue
            }
            switch sectionKind {
            case .boundaries:
                // "**Will express uncertainty on:** …" among the won'ts is something the persona
                // does: read as said, not turned round like a prohibition.
                let plainItem = Self.plainText(item).lowercased()
                let does = plainItem.hasPrefix("will ") && !plainItem.hasPrefix("will not") && !plainItem.hasPrefix("will never")
                if !does { roles[index] = .avoided }
                addBoundary(item, negative: negativeLevel != nil, dislike: Self.namesDislikes(sectionHeading))
            case .vocabulary:
                let effective: Polarity = polarity == .none ? (negativeLevel != nil ? .avoid : .prefer) : polarity
                if effective == .avoid { roles[index] = .avoided }
                addTerms(from: item, polarity: effective, line: firstLine + index, splitCommas: false)
            default:
                break
            }
        }
        flushExample(&self, &pendingExample)
        if language == nil, detectsLanguage { language = Self.detectLanguage(lines) }
    }

    /// A boundary keeps its polarity: an item under a "never"/"won't" heading that does not
    /// say so itself is written as a prohibition ("Never: …").
    /// `dislike`: under "Pet peeves" or "Red flags", an item is something the persona cannot
    /// stand in others ("Founders who fundraise before they have a product"), not a thing it
    /// never does.
    mutating func addBoundary(_ item: String, negative: Bool = true, dislike: Bool = false) {
        var text = Self.plainText(item).trimmingScalars(in: "❌✗✘ ")
        while text.hasPrefix(">") { text = String(text.dropFirst()).trimmedSpaces }  // a quote inside the item
        for box in ["[x] ", "[X] ", "[ ] "] where text.hasPrefix(box) { text = String(text.dropFirst(box.count)).trimmedSpaces }
        guard !text.isEmpty, text.count <= 400, boundaries.count < 100 else { return }
        if negative, !Self.saysNo(text), text.first.map({ $0.isASCII && $0.isLetter }) ?? false || text.hasPrefix("\"") || text.hasPrefix("“") {
            text = (dislike ? "Dislikes: " : "Never: ") + text
        }
        if !boundaries.contains(text) {
            boundaries.append(text)
            if boundaryLine == nil { boundaryLine = currentLine }
        }
    }

    /// The text states a prohibition itself ("Won't…", "Never…", "No…", "I don't…"): at its
    /// start, not "Doomers with no P&L" (a description with a "no" in it).
    static func saysNo(_ text: String) -> Bool {
        let lowered = text.lowercased()
        var words = lowered.split { !$0.isLetter && $0 != "'" && $0 != "’" }.prefix(3).map(String.init)
        if words.first == "i" || words.first == "he" || words.first == "she" || words.first == "we" || words.first == "they" { words.removeFirst() }
        let negations: Set<String> = ["never", "no", "not", "don't", "don’t", "won't", "won’t", "avoid", "refuse", "cannot", "can't", "doesn't", "doesn’t", "nothing", "stop", "dont", "wont", "nein", "nie", "niemals", "kein", "keine", "nicht", "jamais", "nunca", "pas", "ne", "não"]
        return words.first.map { negations.contains($0) } == true || lowered.hasPrefix("do not") || lowered.hasPrefix("will not")
    }

    static func namesDislikes(_ heading: String) -> Bool {
        let lowered = heading.lowercased()
        return ["pet peeve", "red flag", "dislike", "can't stand", "hates", "annoy"].contains { lowered.fastContains($0) }
    }

    /// Polarity a heading gives everything under it: "Never…", "Avoid", "Anti-patterns",
    /// "What I won't do", "Don'ts", "Voice failures" forbid.
    static func headingPolarity(_ heading: String) -> Polarity {
        let lowered = withoutMannerClauses(plainText(heading)).lowercased()
        let negative = ["never", "avoid", "won't", "won’t", "will not", "don't", "don’t", "do not", "dont", "anti-pattern", "antipattern", "anti pattern",
                        "banned", "forbidden", "failure", "wrong", "pet peeve", "red flag", "not to", "nicht", "niemals", "vermeid", "verboten", "prohib", "interdit", "éviter",
                        "jamais", "nunca", "evitar", "evite", "proibid", "禁止", "避免", "しない", "禁句", "ng"]
        let words = Set(lowered.split { !$0.isLetter && $0 != "'" && $0 != "’" && $0 != "-" }.map(String.init))
        for word in negative {
            if word.count <= 3, word.allSatisfy({ $0.isASCII }) { if words.contains(word) { return .avoid } } else if lowered.fastContains(word) { return .avoid }
        }
        if words.contains("ban") || words.contains("bad") || words.contains("don'ts") || words.contains("donts") { return .avoid }
        return .none
    }

    /// The heading without the clauses whose negation is about manner, not about the words:
    /// "Authentic Slang Lexicon (Use Naturally, Don't Force It)" is a list of words to use, and
    /// "Don't Force It" says how ("Catch-phrases — never all at once", "(don't overuse)").
    static func withoutMannerClauses(_ heading: String) -> String {
        guard heading.unicodeScalars.contains(where: { ",;:()[]—–/".unicodeScalars.contains($0) }) else {
            return isMannerClause(heading) ? "" : heading
        }
        var clauses: [String] = []
        var current = ""
        for character in heading {
            if ",;:()[]—–/".contains(character) {
                clauses.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        clauses.append(current)
        return clauses.filter { !isMannerClause($0) }.map { $0.trimmedSpaces }.filter { !$0.isEmpty }.joined(separator: ", ")
    }

    /// "Don't Force It", "never all at once", "not forced", "do not overuse": a negation whose
    /// object is how the words are used.
    static func isMannerClause(_ clause: String) -> Bool {
        let lowered = clause.lowercased().replacingOccurrences(of: "’", with: "'")
        let words = lowered.split { !$0.isLetter && $0 != "'" }.map(String.init)
        let negations: Set<String> = ["don't", "dont", "do", "never", "not", "no", "without", "avoid"]
        guard let negation = words.firstIndex(where: { negations.contains($0) }) else { return false }
        if words[negation] == "do", words.dropFirst(negation + 1).first != "not" { return false }
        let rest = words.dropFirst(negation + 1).joined(separator: " ")
        let manner = ["force", "forced", "forcing", "overuse", "overused", "overusing", "overdo", "overdone", "overload", "stuff", "stuffing", "cram",
                      "checklist", "spam", "all at once", "too often", "too much", "every sentence", "every message", "every line",
                      "every reply", "in every", "repeat", "repeated", "back to back", "back-to-back"]
        return manner.contains { rest.hasPrefix($0) || rest.fastContains(" " + $0) || rest == $0 }
    }

    /// "**Never uses:** lit, bussin" (the label, its words): a bold label with its value after
    /// it, or a short plain one ("Sem bajulação: \"Que ótima ideia!\"").
    static func inlineLabel(_ item: String) -> (label: String, value: String)? {
        guard item.hasPrefix("**") || item.hasPrefix("__") else {
            guard let colon = item.firstIndex(where: { $0 == ":" || $0 == "：" }) else { return nil }
            let label = item[..<colon].trimmedSpaces, value = item[item.index(after: colon)...].trimmedSpaces
            guard !label.isEmpty, !value.isEmpty, label.split(separator: " ").count <= 6,
                  !label.contains(where: { "\"“`«„".contains($0) }) else { return nil }
            return (label, value)
        }
        let marker = item.prefix(2)
        let inner = item.dropFirst(2)
        guard let close = inner.range(of: marker) else { return nil }
        var label = String(inner[..<close.lowerBound]).trimmedSpaces
        var rest = inner[close.upperBound...].drop { $0 == " " }
        if label.hasSuffix(":") || label.hasSuffix("：") {
            label.removeLast()
        } else {
            guard rest.first == ":" || rest.first == "：" else { return nil }
            rest = rest.dropFirst()
        }
        let value = String(rest).trimmedSpaces
        guard !label.isEmpty, !value.isEmpty, label.split(separator: " ").count <= 8 else { return nil }
        return (label.trimmedSpaces, value)
    }

    /// A heading about one venue the persona speaks in, not about answering in a chat.
    static func namesAVenue(_ heading: String) -> Bool {
        let words = heading.lowercased().split(whereSeparator: { !$0.isLetter })
        let venues: Set<Substring> = ["twitter", "tweets", "tweet", "parliament", "parliamentary", "youtube", "podcast", "podcasts",
                                      "linkedin", "essay", "essays", "blog", "speech", "speeches", "interview", "interviews", "newsletter",
                                      "instagram", "tiktok", "lecture", "lectures", "keynote", "press", "conference", "sermon",
                                      // A heading over several ("Platform Differences", "By venue"): each under it is one.
                                      "platform", "platforms", "venue", "venues", "channels", "fora", "forums"]
        return words.contains { venues.contains($0) }
    }

    /// A heading of quoted phrases the persona says: quick reactions, catch-phrases, signature lines.
    static func isSignatureHeading(_ heading: String) -> Bool {
        let lowered = heading.lowercased()
        return ["reaction", "catchphrase", "catch-phrase", "signature", "phrases", "lexicon", "sayings", "口癖", "決め台詞", "sprüche", "redewendungen"].contains { lowered.fastContains($0) }
            && headingPolarity(heading) != .avoid
    }

    /// Good (true) or bad (false) for an examples heading; nil when it does not say.
    static func examplePolarity(_ heading: String) -> Bool? {
        let lowered = heading.lowercased()
        if ["bad", "wrong", "don't", "avoid", "never", "off-voice", "off voice", "anti", "failure", "schlecht", "falsch", "悪い", "ダメ", "❌"].contains(where: { lowered.fastContains($0) }) { return false }
        if ["good", "right", "correct", "on-voice", "gut", "richtig", "良い", "✅"].contains(where: { lowered.fastContains($0) }) { return true }
        return nil
    }

    /// "**Good:** text", "Bad:", "**Right:**", "**Wrong:**", "✅ Good:".
    static func exampleMarker(_ trimmed: String) -> (good: Bool, rest: String)? {
        var text = Substring(trimmed)
        if let marker = listMarkerLength(text) { text = text.dropFirst(marker) }
        text = text.drop { $0 == " " || $0 == "*" || $0 == "_" }
        let lowered = text.lowercased()
        for (word, good) in [("good", true), ("right", true), ("bad", false), ("wrong", false), ("gut", true), ("schlecht", false), ("良い例", true), ("悪い例", false)] {
            guard lowered.hasPrefix(word) else { continue }
            var rest = text.dropFirst(word.count).drop { $0 == "*" || $0 == "_" || $0 == " " }
            guard rest.first == ":" || rest.first == "：" || (rest.isEmpty && trimmed.hasPrefix("**")) else { return nil }
            rest = rest.dropFirst().drop { $0 == "*" || $0 == "_" || $0 == " " }
            return (good, String(rest))
        }
        return nil
    }

    /// An example's text without its quotation marks or code ticks.
    static func unquoteExample(_ raw: String) -> String {
        var text = raw.trimmedSpaces
        for (open, close) in [("`", "`"), ("\"", "\""), ("“", "”"), ("「", "」")] where text.hasPrefix(open) && text.hasSuffix(close) && text.count >= 2 {
            text = String(text.dropFirst().dropLast())
            break
        }
        return text.trimmedSpaces
    }

    /// The sentences of a line after its first: what follows ". ", "! " or "? " outside quotes.
    static func laterSentences(_ line: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        var quoted = false
        var previous: Character = " "
        for character in line {
            if character == "\"" || character == "“" || character == "”" { quoted.toggle() }
            if !quoted, character == " ", ".!?".contains(previous) {
                sentences.append(current)
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        sentences.append(current)
        return sentences.dropFirst().map { $0.trimmedSpaces }.filter { !$0.isEmpty }
    }

    /// The quotation marks a ban's terms are written in (see `isNeverSayLine`).
    static let quoteMarks: Set<Unicode.Scalar> = ["\"", "“", "`", "„", "「", "«"]

    static let neverSayStarts = ["never say", "never use", "don't say", "don’t say", "don't use", "don’t use", "do not say", "do not use", "avoid saying", "avoid the word", "avoid phrases", "never write", "sag nie", "sage nie", "niemals",
                                 "ich sage nie", "ich sage niemals", "ich verwende nie", "je ne dis jamais", "ne dis jamais", "ne jamais dire", "nunca digo", "nunca digas", "nunca uses",
                                 "nunca diga", "nunca uso", "nunca use", "não diga", "não use", "não digo", "não uso"]

    /// "Never say …", "Don't use …", "Avoid saying …" with quoted terms.
    static func isNeverSayLine(_ lowered: String) -> Bool {
        var text = Substring(lowered)
        if let marker = listMarkerLength(text) { text = text.dropFirst(marker) }
        text = text.drop { $0 == " " || $0 == "*" || $0 == "_" }
        guard neverSayStarts.contains(where: { text.hasPrefix($0) }) else { return false }
        return text.contains("\"") || text.contains("“") || text.contains("`") || text.contains("„") || text.contains("「") || text.contains("«")
    }

    func followingListItems(after index: Int) -> [String] {
        var items: [String] = []
        var position = index + 1
        while position < lines.count, items.count < 8 {
            let trimmed = lines[position].trimmedSpaces
            if trimmed.isEmpty { if items.isEmpty { position += 1; continue } else { break } }
            guard let item = Self.listItem(trimmed) else { break }
            if !Self.isPlaceholder(Substring(trimmed)) { items.append(Self.plainText(item)) }
            position += 1
        }
        return items
    }

    // MARK: Vocabulary

    enum Polarity { case none, prefer, avoid }

    static func polarity(of heading: String) -> Polarity {
        let lowered = withoutMannerClauses(heading).lowercased()
        let avoidWords = ["avoid", "never", "banned", "don't", "don’t", "do not", "not use", "forbidden", "avoided", "avoids", "wrong", "避免", "不用", "禁用", "evitar", "éviter", "vermeiden", "vermeidet", "niemals", "nie ", "禁句", "使わない", "prohib", "interdit", "verboten", "nicht verwenden", "nunca", "proibid", "evite"]
        if Set(lowered.split { !$0.isLetter }).contains("ban") { return .avoid }
        let useWords = ["use", "used", "uses", "prefer", "say", "favorite", "favourite", "常用", "使用", "usar", "utiliser", "verwenden", "usa", "uso", "diz", "prefere"]
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
        // "No `I think` stacked repeatedly. Uses it sparingly", "No `disrupt` as decoration",
        // "except where literally true": a ban on one use, not on the word; it stays in the
        // persona's text (the prompt has it) and off the flat "never say" list.
        if polarity == .avoid, Self.isConditionalBan(item) { return }
        if polarity == .avoid, let replacement = Self.namedAlternative(in: item) {
            replacements.append(replacement)
            avoidLines.append((replacement.avoid, line))
            return
        }
        for term in Self.terms(in: item, splitCommas: splitCommas) {
            if polarity == .avoid {
                if !avoid.contains(where: { $0.lowercased() == term.lowercased() }) { avoid.append(term); avoidLines.append((term, line)) }
            } else {
                if !prefer.contains(where: { $0.lowercased() == term.lowercased() }) { prefer.append(term); preferLines.append((term, line)) }
            }
        }
    }

    /// "No `utilize` when `use` works", "No `folks` — he says `people` or addresses the audience
    /// directly": one word banned and one named in its place, so a replacement. Several
    /// named ("he says `people`, `founders`, `everyone`") depend on who is addressed, and one
    /// word for two banned ("(uses \"Software 2.0\" instead)") is a topic: neither replaces.
    static func namedAlternative(in item: String) -> VocabularyReplacement? {
        let stripped = item.trimmingScalars(in: "❌✅✗✓ ")
        guard let split = dashOutsideQuotes(stripped) ?? clauseOutsideQuotes(stripped) else { return nil }
        let banned = quotedPhrases(removeParentheticals(String(stripped[..<split])))
        let rest = String(stripped[split...])
        let offered = quotedPhrases(rest)
        guard banned.count == 1, offered.count == 1 else { return nil }
        let lowered = rest.lowercased()
        let cues = [" works", " will do", " would do", " does", " is enough", " fits", "says ", "uses ", "use ", "instead", "prefers "]
        guard cues.contains(where: { lowered.fastContains($0) }),
              let avoid = cleanTerm(banned[0]), let prefer = cleanTerm(offered[0]),
              avoid.lowercased() != prefer.lowercased(),
              avoid.split(separator: " ").count <= 4, prefer.split(separator: " ").count <= 4 else { return nil }
        return VocabularyReplacement(avoid: avoid, prefer: prefer)
    }

    /// The words or phrases a list item names: a bold lead-in, else quoted phrases, else
    /// the item itself when it is short (a long item is guidance, not a word).
    static func terms(in item: String, splitCommas: Bool) -> [String] {
        var stripped = item.trimmingScalars(in: "❌✅✗✓ ")
        // "No `folks` — he says `people`": what follows a dash is commentary; "No `utilize` when
        // `use` works": what follows "when" is the word to use instead.
        if let dash = dashOutsideQuotes(stripped) { stripped = String(stripped[..<dash]) }
        if let clause = clauseOutsideQuotes(stripped) { stripped = String(stripped[..<clause]) }
        if stripped.hasPrefix("**") {
            // "**agent / agents / agentic**", "**\"empowering\" / \"empower\"**": each is a word of
            // its own; so is each of "**railguards**, **green gate**, **atomic commits**".
            var rest = Substring(stripped)
            var found: [String] = []
            while rest.hasPrefix("**"), let close = rest.dropFirst(2).range(of: "**") {
                let bold = rest[rest.index(rest.startIndex, offsetBy: 2)..<close.lowerBound]
                found += bold.components(separatedBy: " / ").compactMap(cleanTerm)
                var next = rest[close.upperBound...].drop { $0 == "," || $0 == " " || $0 == "/" || $0 == "·" }
                for joiner in ["and ", "or "] where next.hasPrefix(joiner) { next = next.dropFirst(joiner.count) }
                rest = next
            }
            return found
        }
        // Quoted terms outside parentheses; else inside them, unless the parentheses name the
        // alternative ("(uses \"Software 2.0\" instead)" is commentary, "(\"synergy\", \"utilize\")" examples).
        var quoted = quotedPhrases(removeParentheticals(stripped))
        if quoted.isEmpty {
            let lowered = stripped.lowercased()
            if !["instead", "rather", "says", "uses", "prefer", "sagt", "stattdessen"].contains(where: { lowered.fastContains($0) }) {
                quoted = quotedPhrases(stripped)
            }
        }
        if !quoted.isEmpty { return quoted.compactMap(cleanTerm) }
        var withoutNotes = removeParentheticals(stripped)
        if withoutNotes.hasPrefix("No ") { withoutNotes = String(withoutNotes.dropFirst(3)) }
        let parts = splitCommas
            ? withoutNotes.split(separator: ",").map(String.init)
            : withoutNotes.components(separatedBy: " / ")
        // "partisan slang from US politics", "Anything that sounds like LinkedIn": a kind of
        // talk described, not a word to match.
        let kinds: Set<Substring> = ["slang", "jargon", "language", "phrases", "words", "anything", "terms", "buzzwords", "talk",
                                     "speak", "clichés", "cliches", "references", "sounds", "tone", "register"]
        return parts.compactMap(cleanTerm).filter { term in
            let words = term.lowercased().split(separator: " ")
            return words.count <= 5 && (words.count == 1 || !words.contains { kinds.contains($0) })
        }
    }

    /// The first place outside quotation marks where `match` finds what it looks for.
    static func firstOutsideQuotes(_ text: String, _ match: (String.Index) -> String.Index?) -> String.Index? {
        var inQuote = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" || character == "“" || character == "”" || character == "`" { inQuote.toggle() }
            if !inQuote, let found = match(index) { return found }
            index = text.index(after: index)
        }
        return nil
    }

    /// Where " — " (or " – ") starts outside quotation marks: commentary follows.
    static func dashOutsideQuotes(_ text: String) -> String.Index? {
        firstOutsideQuotes(text) { index in
            guard text[index] == "—" || text[index] == "–", index > text.startIndex else { return nil }
            let before = text.index(before: index)
            return text[before] == " " ? before : nil
        }
    }

    /// A ban on one use of a word rather than on the word ("as decoration", "as filler",
    /// "except where …", "sparingly", "repeatedly"; not "(stacked hedges)", a reason).
    static func isConditionalBan(_ item: String) -> Bool {
        let lowered = item.lowercased()
        return [" as decoration", " as filler", " as a filler", " as diagnosis", " except ", " unless ", "sparingly", "repeatedly",
                " only when", " only if", " too often"].contains { lowered.fastContains($0) }
    }

    /// Where a condition or an alternative starts outside quotation marks (" when ", " if ",
    /// " unless ", " instead"), or nil.
    static func clauseOutsideQuotes(_ text: String) -> String.Index? {
        firstOutsideQuotes(text) { index in
            guard text[index] == " " else { return nil }
            let next = text[text.index(after: index)...].prefix(8).lowercased()
            return ["when ", "if ", "unless ", "instead"].contains { next.hasPrefix($0) } ? index : nil
        }
    }

    static func quotedPhrases(_ text: String) -> [String] {
        var phrases: [String] = []
        var current: String?
        for character in text {
            if character == "\"" || character == "“" || character == "”" || character == "`" || character == "„" || character == "«" || character == "»" {
                if let phrase = current { phrases.append(phrase.trimmedSpaces); current = nil } else { current = "" }
            } else if current != nil {
                current!.append(character)
            }
        }
        return phrases
    }

    /// The quoted phrases that directly follow the word "no" or "never" ("no \"as an ai\"",
    /// "never “circle back”"), not those after any other word ("say \"no\"" is not a ban).
    static func phrasesAfterNo(_ line: String) -> [String] {
        // Most lines quote nothing: they are passed over without copying their characters.
        guard line.unicodeScalars.contains(where: { $0 == "\"" || $0 == "“" || $0 == "`" || $0 == "«" || $0 == "„" }) else { return [] }
        let opening: Set<Character> = ["\"", "“", "`", "«", "„"]
        let closing: Set<Character> = ["\"", "”", "`", "»", "“"]
        let characters = Array(line)
        var phrases: [String] = []
        var index = 0
        while index < characters.count {
            guard opening.contains(characters[index]) else { index += 1; continue }
            var end = index + 1
            while end < characters.count, !closing.contains(characters[end]) { end += 1 }
            guard end < characters.count else { break }
            // The word before the opening quote, skipping the space between.
            var wordEnd = index
            while wordEnd > 0, characters[wordEnd - 1] == " " { wordEnd -= 1 }
            var wordStart = wordEnd
            while wordStart > 0, characters[wordStart - 1].isLetter { wordStart -= 1 }
            let word = String(characters[wordStart..<wordEnd]).lowercased()
            if wordEnd < index, word == "no" || word == "never" { phrases.append(String(characters[(index + 1)..<end])) }
            index = end + 1
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
        if isPlaceholder(Substring(term)) { return nil }  // "[Term]": a template's blank
        term = term.trimmingScalars(in: "\"'“”‘’„«»`:：;,.!?… ")
        while term.hasSuffix("...") { term = String(term.dropLast(3)).trimmedSpaces }
        term = term.trimmingScalars(in: "\"'“”‘’„«»`:：;,.!?… ")
        guard !term.isEmpty, term.count <= 60 else { return nil }
        return term
    }

    /// "Sharp but friendly", "Warm, dry, exact": a short description, not a rule ("Use short
    /// sentences", "Never: emoji") or a catch-phrase.
    /// "Voice rules. Use this file together with `SOUL.md`", "edit it however you want, changes
    /// land on the next message": a note on how to read or edit the persona's files, not a
    /// description of the persona or its voice (the next paragraph may be one).
    static func isAboutTheFiles(_ line: String) -> Bool {
        let lowered = line.lowercased()
        return lowered.fastContains("this file") || lowered.fastContains(".md") || lowered.fastContains("edit it ")
            || lowered.fastContains("edit this ") || lowered.fastContains("no restart") || lowered.fastContains("whoever maintains")
            || lowered.fastContains("whoever edits") || lowered.fastContains("future me") || lowered.fastContains("if you change anything")
    }

    static func describesATone(_ text: String) -> Bool {
        let trimmed = text.trimmedSpaces
        guard !trimmed.isEmpty, trimmed.count <= 60, !trimmed.contains(":"), !trimmed.contains("\""), !trimmed.contains("“") else { return false }
        guard trimmed.split(separator: " ").count <= 8 else { return false }
        return !instructs(trimmed)
    }

    /// "Never use exclamation marks.", "Always answer in one sentence.": a rule for the voice,
    /// not a description of it (a tone) nor a sample of it (an example).
    static func instructs(_ text: String) -> Bool {
        // The first word as written ("Open, warm, direct" describes; "Open with …" instructs),
        // with a typographic apostrophe read as a plain one ("Don’t").
        guard var first = text.trimmedSpaces.split(separator: " ").first?.lowercased() else { return false }
        first = first.replacingOccurrences(of: "’", with: "'")
        if first.hasSuffix(":") { first.removeLast() }
        return instructionWords.contains(first)
    }

    static let instructionWords: Set<String> = ["use", "avoid", "never", "don't", "do", "be", "keep", "say", "write", "always", "start", "end", "open",
                                                "close", "sign", "no", "reply", "answer", "ask", "speak", "talk", "sound", "prefer", "stay", "only"]

    // MARK: Rules written as "Key: value"

    enum RuleKey { case emoji, capitalization, language, tone, use, avoid }

    static let ruleKeys: [(RuleKey, [String])] = [
        (.emoji, ["emoji", "emojis", "emoji use", "emoji policy", "emoji usage", "表情", "表情符号", "表情符號", "絵文字", "emoticons"]),
        (.capitalization, ["capitalization", "capitalisation", "caps", "casing", "case", "大小写", "大小寫", "mayúsculas", "majuscules", "großschreibung"]),
        (.language, ["language", "语言", "語言", "言語", "idioma", "langue", "sprache", "lingua", "língua"]),
        (.tone, ["tone", "vibe", "vibes", "tone of voice", "语气", "語氣", "口調", "tono", "ton", "tom"]),
        (.use, ["use", "prefer", "say", "words to use", "do say", "verwenden", "benutzen", "utiliser", "à utiliser", "usar", "utilizar"]),
        // German, French and Spanish too: an avoid list read as words to use put exactly the
        // banned words in the prompt's "Words you like to use".
        (.avoid, ["avoid", "never say", "don't say", "do not say", "words to avoid", "banned", "vermeiden", "zu vermeiden", "vermeide",
                  "nicht verwenden", "nie sagen", "niemals sagen", "verboten", "à éviter", "a éviter", "éviter", "à proscrire", "interdit",
                  "mots interdits", "evitar", "a evitar", "no usar", "no decir", "prohibido", "palabras prohibidas", "evite", "não usar", "não dizer",
                  "palavras proibidas", "proibido"]),
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

    /// The word for emoji, lowercased, in the languages souls are written in ("Jamais d'émoji",
    /// "絵文字は使いません").
    static let emojiWords = ["emoji", "émoji", "絵文字", "表情"]

    static func namesEmoji(_ lowered: String) -> Bool {
        // Every prose line passes here: one search for "emoji" and "émoji", and the CJK words
        // only in a line that has such characters (their UTF-8 starts at 0xE3 or above).
        if lowered.fastContains("moji") { return true }
        guard lowered.utf8.contains(where: { $0 >= 0xE3 }) else { return false }
        return emojiWords.contains { lowered.fastContains($0) }
    }

    static func emojiPolicy(_ value: String) -> EmojiPolicy? {
        // Apostrophes stay inside words: "don't" is one ("Don't use emoji" was read as "don", "t").
        let words = Set(value.replacingOccurrences(of: "’", with: "'").split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map(String.init))
        let sparing = ["rare", "rarely", "occasional", "occasionally", "sparing", "sparingly", "minimal", "max", "maximum", "máximo", "most", "limit", "limited", "few", "one", "1", "2", "acceptable", "sometimes", "sparse", "sparsely", "occasional", "少量", "偶尔", "偶爾", "raramente", "poucos", "pouco"]
        let negative = ["no", "none", "never", "zero", "avoid", "don't", "dont", "doesn't", "without", "not", "nunca", "jamais", "pas", "sans",
                        "keine", "kein", "sem", "nenhum", "não", "不要", "禁止", "不使用", "使いません", "使わない"]
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
        let lowered = withoutMannerClauses(plainText(heading)).lowercased()
        func any(_ words: [String]) -> Bool { words.contains { lowered.fastContains($0) } }
        if any(["vocabulary", "words", "phrases", "language patterns", "lexicon", "词汇", "詞彙", "用语", "用語", "vocabulario", "vocabulaire", "wortschatz", "palabras", "口癖", "wörter", "vocabulário", "palavras", "expressões"]) { return .vocabulary }
        // "Never say", "Never uses", "Things he says", "Words to BAN": word lists, not boundaries.
        let words = Set(lowered.split { !$0.isLetter && $0 != "'" && $0 != "’" }.map(String.init))
        if !words.isDisjoint(with: ["say", "says", "said", "uses", "ban", "banned", "jargon", "slang", "catchphrases", "sayings", "diz", "gírias"]) { return .vocabulary }
        if words.contains("use"), headingPolarity(heading) == .avoid { return .vocabulary }
        if any(["boundar", "limits", "will not", "won't", "never", "don't", "do not", "anti-pattern", "red line", "边界", "邊界", "界限", "境界", "límites", "limites", "grenzen", "禁止", "pet peeve", "avoid", "failure", "しないこと", "tabu", "niemals"]) { return .boundaries }
        if any(["example", "sample", "calibration", "transformation", "示例", "例子", "範例", "ejemplo", "exemple", "beispiel", "exemplo"]) { return .examples }
        if any(["format", "capitali", "punctuation", "emoji", "回應規範", "格式", "排版"]) { return .formatting }
        if any(["voice", "vibe", "tone", "style", "temperament", "personality", "how i talk", "how i speak", "how i write", "communication", "调性", "語氣", "语气", "口調", "風格", "风格", "人格", "性格", "voz", "tono", "voix", "stimme", "estilo", "personalidade", "jeito de falar"]) { return .voice }
        if any(["who i am", "who you are", "identity", "about", "persona", "core truths", "character", "purpose", "我是谁", "你是谁", "身份", "核心信念", "quién", "qui je suis", "wer ich bin", "quem sou", "quem é", "identidade", "sobre mim"]) { return .identity }
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
                           "style notes", "notes", "voice", "profile", "quem você é", "quem sou eu", "quem eu sou"]
            return generic.contains(lowered)
        }
        text = parts.first { !isGeneric($0) }?.trimmedSpaces ?? ""
        for prefix in ["The Soul of ", "Soul of ", "The soul of "] where text.hasPrefix(prefix) { text = String(text.dropFirst(prefix.count)) }
        for suffix in ["'s Writing Style Guide", "’s Writing Style Guide", " Writing Style Guide", "'s Style Guide", " Style Guide", "'s Soul", "’s Soul", " SOUL"]
        where text.hasSuffix(suffix) {
            text = String(text.dropLast(suffix.count))
        }
        // "Garry Tan Soul" is Garry Tan; "Old Soul" and "My Soul" are names of their own.
        if text.hasSuffix(" Soul"), text.dropLast(5).split(separator: " ").count >= 2 { text = String(text.dropLast(5)) }
        text = text.trimmingScalars(in: " -—–:|·&")  // "Voice & Style Guide" less its suffix: "Voice"
        guard !text.isEmpty, text.count <= 60, !isGeneric(text), !text.fastContains("\\n"), !text.hasPrefix("[") else { return nil }
        return text
    }

    /// "You are Sentinel, the…", "I'm Captain Bly.", "Ich bin Greta,": the capitalised name after the phrase.
    static func name(fromSentence text: String) -> String? {
        let openings = ["You are ", "You're ", "You’re ", "I am ", "I'm ", "I’m ", "Ich bin ", "Du bist ", "Je suis ", "Soy ", "Eu sou ", "Você é ", "Meu nome é ", "O meu nome é ", "My name is ", "Mein Name ist "]
        for opening in openings {
            guard let range = text.range(of: opening) else { continue }
            // At the start of the text or of a sentence.
            let before = text[..<range.lowerBound].trimmedSpaces
            guard before.isEmpty || before.hasSuffix(".") || before.hasSuffix("_") || before.hasSuffix("*") else { continue }
            var words: [Substring] = []
            for word in text[range.upperBound...].split(separator: " ").prefix(4) {
                let core = word.trimmingScalars(in: ",.;:!?—–()\"'*_")
                // "Você é a Lia": Portuguese names a person with the article.
                if words.isEmpty, core == "a" || core == "o", opening == "Você é " || opening == "Eu sou " { continue }
                guard let first = core.first, first.isUppercase || first.isNumber else { break }
                if ["The", "A", "An", "Der", "Die", "Das", "Ein", "Eine", "Le", "La", "Un", "Une", "El", "Not", "Nicht"].contains(core), words.isEmpty { break }
                words.append(Substring(core))
                if word.last.map({ ",.;:!?".contains($0) }) ?? false { break }
            }
            let name = words.joined(separator: " ")
            if !name.isEmpty, name.count <= 40 { return name }
        }
        return nil
    }

    /// An all-lowercase persona's name: "i'm beckett." at a sentence start, one word ended by a
    /// full stop or comma, and named in the possessive in the opening lines ("beckett's voice"),
    /// so that "i'm tired." is no name.
    static func lowercaseName(in lines: [(Int, String)]) -> (Int, String)? {
        for (index, text) in lines {
            for opening in ["i'm ", "i’m ", "i am ", "my name is "] {
                guard let range = text.range(of: opening) else { continue }
                let before = text[..<range.lowerBound].trimmedSpaces
                guard before.isEmpty || before.hasSuffix(".") || before.hasSuffix("_") || before.hasSuffix("*") else { continue }
                guard let word = text[range.upperBound...].split(separator: " ").first, let last = word.last, last == "." || last == "," else { continue }
                let core = word.dropLast()
                guard core.count >= 2, core.count <= 30, core.allSatisfy({ $0.isLetter && $0.isLowercase }),
                      !CommonWords.english.contains(String(core)) else { continue }
                let possessive = lines.contains { $0.1.fastContains("\(core)'s") || $0.1.fastContains("\(core)’s") }
                if possessive { return (index, String(core)) }
            }
        }
        return nil
    }

    /// The line at `index` and the lines its paragraph goes on in (hard-wrapped prose), joined
    /// by spaces: up to a blank line, a heading, a list item, a quote, a table or a fence.
    func paragraph(from index: Int) -> String {
        var parts = [lines[index].trimmedSpaces]
        var position = index + 1
        while position < lines.count, parts.count < 20 {
            let next = lines[position].trimmedSpaces
            if next.isEmpty || Self.heading(lines[position]) != nil || Self.isListItem(next) || next.hasPrefix(">") || next.hasPrefix("|")
                || next.hasPrefix("```") || next == "---" || (position < roles.count && roles[position] == .ignored) { break }
            parts.append(next)
            position += 1
        }
        return parts.joined(separator: " ")
    }

    /// The lines a list item wraps onto: indented deeper than it, up to a blank line, another
    /// item, a heading, a quote or a fence.
    func continuation(of index: Int) -> [String] {
        let indent = MarkdownLabels.indentation(lines[index])
        var parts: [String] = []
        var position = index + 1
        while position < lines.count, parts.count < 20 {
            let line = lines[position], next = line.trimmedSpaces
            if next.isEmpty || MarkdownLabels.indentation(line) <= indent || Self.isListItem(next) || Self.heading(line) != nil
                || next.hasPrefix(">") || next.hasPrefix("```") { break }
            parts.append(next)
            position += 1
        }
        return parts
    }

    /// The first sentence of the first paragraph after a heading, the line it starts on, and the
    /// whole paragraph as plain text.
    func firstParagraph(after headingIndex: Int?) -> (sentence: String, line: Int, paragraph: String)? {
        let start = (headingIndex ?? -1) + 1
        guard start < lines.count else { return nil }
        var paragraph: [String] = []
        var startLine = firstLine + start
        for (offset, line) in lines[start...].enumerated() {
            // An HTML comment (a template's instructions) or a placeholder is not a description.
            if start + offset < roles.count, roles[start + offset] == .ignored {
                if paragraph.isEmpty { continue } else { break }
            }
            let trimmed = line.trimmedSpaces
            if trimmed.isEmpty { if paragraph.isEmpty { continue } else { break } }
            // "Greeting: hi there" sets a phrase; it does not describe the persona.
            if TraitDeriver.labelledPhrase(trimmed) != nil { if paragraph.isEmpty { continue } else { break } }
            if paragraph.isEmpty { startLine = firstLine + start + offset }
            if Self.heading(line) != nil || trimmed.hasPrefix("```") || trimmed == "---" || Self.isListItem(trimmed) || trimmed.hasPrefix("|") {
                if paragraph.isEmpty { return nil } else { break }
            }
            paragraph.append(trimmed.hasPrefix(">") ? String(trimmed.dropFirst()).trimmedSpaces : trimmed)
        }
        guard !paragraph.isEmpty else { return nil }
        let plain = Self.plainText(paragraph.joined(separator: " "))
        guard var sentence = Sentences.firstSentence(plain) else { return nil }
        // A long first sentence is cut at a word, not dropped (the description went missing).
        sentence = sentence.cutAtWord(200)
        // An epigraph's first sentence ("> \"I'm a builder at heart. I did …\""): its opening
        // quotation mark would be left unclosed.
        for (open, close) in [("\"", "\""), ("“", "”"), ("„", "“"), ("«", "»")] where sentence.hasPrefix(open) && !sentence.dropFirst().contains(close) {
            sentence = String(sentence.dropFirst()).trimmedSpaces
            break
        }
        return (sentence, startLine, plain)
    }

    static func isListItem(_ trimmed: String) -> Bool { listMarkerLength(Substring(trimmed)) != nil }

    /// "[Your background here]", "- [Proper case? lowercase vibes?]", "- **Won't:** [Boundary]":
    /// one bracketed text (no link), after a list marker and a bold label if any.
    static func isPlaceholder(_ trimmed: Substring) -> Bool {
        var text = Substring(trimmed.trimmingCharacters(in: .whitespaces))
        if let marker = listMarkerLength(text) { text = text.dropFirst(marker) }
        if text.hasPrefix("**"), let close = text.dropFirst(2).range(of: "**") {
            text = text[close.upperBound...].drop { $0 == ":" || $0 == " " }
        }
        text = Substring(text.trimmingCharacters(in: .whitespaces))
        if !text.hasPrefix("["), let label = text.range(of: ": ["), text.hasSuffix("]") { text = text[text.index(before: label.upperBound)...] }
        guard text.hasPrefix("["), text.hasSuffix("]"), text.count > 3 else { return false }
        let inside = text.dropFirst().dropLast()
        return !inside.contains("[") && !inside.contains("]")
    }

    /// "- [ ] Too formal": a checklist item nobody ticked.
    static func isUntickedItem(_ trimmed: Substring) -> Bool {
        guard let marker = listMarkerLength(trimmed) else { return false }
        return trimmed.dropFirst(marker).hasPrefix("[ ]")
    }

    static func listMarkerLength(_ text: Substring) -> Int? { MarkdownLiteral.listMarkerLength(text) }

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
    /// The tone a voice paragraph opens with: its first sentence, or, when that is a fragment of
    /// a few words ("Blunt."), the run of such fragments it starts ("Blunt. Specific. Kind
    /// underneath."), which name the tone together; the first of them alone says a third of it.
    static func toneSentences(_ text: String) -> String? {
        guard let first = firstSentence(text) else { return nil }
        func isFragment(_ sentence: String) -> Bool { sentence.split(separator: " ").count <= 3 }
        guard isFragment(first) else { return first }
        let run = split(text).prefix(while: isFragment)
        return run.count > 1 ? run.joined(separator: " ") : first
    }

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
