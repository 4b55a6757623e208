import Foundation
import ReceptionCore

/// Turns backend events into display blocks in a soul's voice. Deterministic and local.
///
/// What it does to a final result (seed 000 §4, §5, §15.6, §15.7):
/// - frames the summary by outcome: `complete` plainly, `saturated` as the best available
///   answer, `bounded` as partial with an offer to continue, `inconclusive` with the
///   findings, the discrepancy and the follow-ups;
/// - hedges by confidence band (not for `inconclusive`, whose framing already says so);
/// - applies the soul's vocabulary replacements, capitalisation and emoji policy to prose;
/// - keeps to the soul's length limits, cutting at sentence boundaries and saying in a
///   note what was left out;
/// - shows interventions as cards labelled by type (gated by trust level), and plain
///   follow-ups as a numbered list.
///
/// It never changes facts: numbers, units, URLs, code, quoted text and names are copied
/// byte for byte, and so are error messages, finding sources and follow-up items.
public struct SoulRenderer: Sendable {
    public let soul: Soul
    /// Every part of an answer, in the soul's voice, whatever its length limits and verbosity
    /// leave out: what "tell me more" shows after an answer they cut.
    public let whole: Bool
    let styler: ProseStyler
    let ownStyler: ProseStyler

    /// Whether this soul can leave part of an answer out: a length limit, or a brevity that
    /// hides findings. When it cannot, an answer drawn `whole` is the answer drawn.
    public var mayLeaveOut: Bool {
        let limits = soul.length
        return limits.maxSentences != nil || limits.maxCharacters != nil || limits.maxFindings != nil || limits.maxFollowups != nil
            || soul.verbosity == .terse || soul.verbosity == .concise
    }

    /// `soul` as given; the renderer fills what it leaves unset with the wording for its
    /// language and register and applies its derived habits (`VoiceDefaults.effective`).
    public init(soul: Soul, whole: Bool = false) {
        var effective = VoiceDefaults.effective(soul)
        // After `effective`: a limit can be derived from the soul's prose ("at most three sentences").
        if whole { effective.length = LengthLimits() }
        self.whole = whole
        self.soul = effective
        styler = ProseStyler(soul: effective)
        ownStyler = styler.forOwnWords()
    }

    /// Blocks for one event; `trustLevel` gates interventions the way the engine does.
    /// `.textDelta` is styled on its own here; use `makeTextStream()` (as
    /// `PersonalityMiddleware` does) when a word may be split across chunks.
    public func render(_ event: BackendEvent, trustLevel: Int) -> [DisplayBlock] {
        switch event {
        case .planAwaitingApproval(let plan):
            return [DisplayBlock(role: .plan, title: title(soul.titles.plan, DefaultVoice.planTitle), markdown: style(plan.summary),
                                 items: plan.steps.map { step in step.detail.map { "\(step.title): \($0)" } ?? step.title }
                                     + (plan.estimatedIterations.map { ["about \(Counted.phrase($0, "iteration"))"] } ?? [])
                                     + ["/approve to run it, /reject to drop it"])]
        case .progress(let progress):
            return [DisplayBlock(role: .progress, markdown: progress.line(styling: style))]
        case .failure(let failure):
            if failure.cancelled {
                return [DisplayBlock(role: .error, markdown: style(DefaultVoice.cancelled))]
            }
            return [DisplayBlock(role: .error, title: soul.titles.error.map(style), markdown: failure.message)]
        case .result(let response):
            return render(response, trustLevel: trustLevel)
        case .textDelta(let text):
            return [DisplayBlock(role: .text, markdown: style(text))]
        case .accepted, .status, .toolUse, .permissionRequest, .thinking, .queued:
            return []
        }
    }

    /// The soul's greeting, for the start of a session.
    public func greeting() -> DisplayBlock? {
        guard let greeting = soul.greeting, !greeting.isEmpty else { return nil }
        return DisplayBlock(role: .greeting, markdown: own(greeting))
    }

    /// A stream for `.textDelta` chunks in this soul's voice.
    public func makeTextStream() -> SoulTextStream {
        SoulTextStream(styler: styler)
    }

    /// Prose in the soul's voice (vocabulary, capitalisation, emoji policy); facts untouched.
    public func style(_ text: String) -> String {
        styler.style(text)
    }

    /// Reception's and the soul's own words (a lead, a hedge, a label, a note, a sign-off) in
    /// the voice: in a lowercase voice every sentence of them starts in lowercase (the styler
    /// keeps an engine's capitalised first word in case it is a name; these hold none).
    func own(_ text: String) -> String {
        ownStyler.style(text)
    }

    /// Blocks for a final result. A result without an outcome gets no outcome framing and
    /// one without a confidence no hedge: the renderer never invents what the engine did
    /// not say. A streamed result's text was already shown, so it gets no summary block.
    public func render(_ response: BackendResult, trustLevel: Int) -> [DisplayBlock] {
        var blocks: [DisplayBlock] = []
        blocks.reserveCapacity(8)
        let outcome = response.outcome
        let defaults = outcome.map(DefaultVoice.outcome) ?? OutcomeStyle(lead: "", note: nil)
        let framing = outcome.flatMap { soul.outcomes[$0.rawValue] }
        var leftOut = LeftOut()
        var iconBudget = soul.emoji == .sparing ? 1 : soul.emoji == .allowed ? Int.max : 0

        // Summary: framing, hedge, then the engine's words, cut at a sentence boundary. A lead
        // ("Here is what I found.") leads into the words; after streamed words already on
        // screen it would read backwards, so a streamed answer keeps only what follows it.
        var parts: [String] = []
        if !response.textWasStreamed, let lead = framing?.lead ?? defaults.lead, !lead.isEmpty,
           !Self.saysAlready(response.text, lead, atStart: true) {
            // Not when the answer opens with it already (a model given the persona text often
            // does): "tl;dr: tl;dr: …".
            parts.append(own(lead))
        }
        if outcome != .inconclusive, let confidence = response.confidence {
            let band = soul.confidence.band(for: confidence)
            let hedge: String? = switch band {
            case .high: soul.confidence.high
            case .medium: soul.confidence.medium
            case .low: soul.confidence.low
            }
            let text = hedge ?? DefaultVoice.hedge(band)
            if !text.isEmpty { parts.append(own(text)) }
        }
        if !response.textWasStreamed {
            let summary = limitSummary(style(response.text), leftOut: &leftOut)
            if !summary.isEmpty { parts.append(summary) }
        }
        if !parts.isEmpty { blocks.append(DisplayBlock(role: .summary, markdown: Self.joinedSentences(parts))) }

        // Findings. Those a terse or concise voice leaves out are named in the note, as the
        // ones a length limit cuts are: they may hold what the summary does not.
        // A finding that only repeats the answer leaves nothing out (an engine that sends its
        // answer as its one finding was "trimmed: 1 finding", and "tell me more" showed the same).
        let unsaid = response.findings.filter { $0.content != response.text }
        if !showsFindings(response), !unsaid.isEmpty, soul.verbosity == .terse || soul.verbosity == .concise {
            leftOut.findings += unsaid.count
        }
        if showsFindings(response) {
            var findings = response.findings
            // "The answer above is the whole of this section" is not true of an answer just cut.
            if leftOut.sentences > 0 { findings.removeAll(where: \.saysTheAnswerIsWhole) }
            if let limit = soul.length.maxFindings, findings.count > limit {
                leftOut.findings = findings.count - limit
                findings = Array(findings.prefix(limit))
            }
            // Always titled: untitled, findings read as more items of a list that ends the summary.
            let findingsTitle = title(soul.titles.findings, DefaultVoice.findingsTitle)
            for (index, finding) in findings.enumerated() {
                var text = style(finding.content)
                if let source = finding.source, !source.isEmpty, soul.verbosity != .terse {
                    // After a code block, on a line of its own: on the fence's line it would
                    // leave the block unclosed.
                    text += Self.endsWithAFence(text) ? "\n\n(\(source))" : " (\(source))"
                }
                blocks.append(DisplayBlock(role: .finding, title: index == 0 ? findingsTitle : nil, markdown: text))
            }
        }

        // Discrepancy.
        if let discrepancy = response.discrepancy, !discrepancy.isEmpty {
            blocks.append(DisplayBlock(role: .discrepancy, title: title(soul.titles.discrepancy, DefaultVoice.discrepancyTitle),
                                       markdown: style(discrepancy)))
        }

        // Interventions (cards) and plain follow-ups (numbered).
        let followups = response.followups.gated(forTrustLevel: trustLevel)
        for intervention in followups.interventions {
            let style = soul.interventions[intervention.type.rawValue]
            var label = style?.label.map(own) ?? title(nil, DefaultVoice.interventionLabel(intervention.type))
            if let icon = style?.icon, !icon.isEmpty, iconBudget > 0 {
                label = icon + " " + label
                iconBudget -= 1
            }
            let message = self.style(intervention.message)
            switch style?.style ?? .card {
            case .card:
                blocks.append(DisplayBlock(role: .intervention, title: label, markdown: message, interventionType: intervention.type))
            case .inline:
                blocks.append(DisplayBlock(role: .intervention, markdown: "**\(label):** \(message)", interventionType: intervention.type))
            }
        }
        var plain = followups.plainFollowups
        if let limit = soul.length.maxFollowups, plain.count > limit {
            leftOut.followups = plain.count - limit
            plain = Array(plain.prefix(limit))
        }
        if !plain.isEmpty {
            blocks.append(DisplayBlock(role: .followups, title: title(soul.followups.title, DefaultVoice.followupsTitle),
                                       markdown: list(plain), items: plain))
        }

        // The outcome's closing note: the offer to continue, "best available", "pick a follow-up".
        if let note = framing?.note ?? defaults.note, !note.isEmpty, outcome != .inconclusive || !plain.isEmpty || !followups.interventions.isEmpty {
            blocks.append(DisplayBlock(role: .note, markdown: own(note)))
        }
        if let note = leftOut.note(template: soul.length.omittedNote ?? DefaultVoice.omittedNote, words: VoiceDefaults.leftOutWords(language: soul.language)) {
            blocks.append(DisplayBlock(role: .note, markdown: own(note)))
        }
        if let signOff = soul.signOff, !signOff.isEmpty, !Self.saysAlready(response.text, signOff, atStart: false) {
            blocks.append(DisplayBlock(role: .signoff, markdown: own(signOff)))
        }
        return blocks
    }

    /// Sentences side by side: a space between them, but none after a full stop of Chinese or
    /// Japanese ("…でした。おそらく"), where a space does not belong.
    static func joinedSentences(_ parts: [String]) -> String {
        var joined = ""
        for part in parts {
            if let last = joined.unicodeScalars.last {
                // A code block, list, table, heading or quote begins on a line of its own,
                // or it is none ("Nailed it! ```sh" is no code block).
                joined += startsABlock(part) ? "\n\n" : "。！？".unicodeScalars.contains(last) ? "" : " "
            }
            joined += part
        }
        return joined
    }

    /// The line breaks in the whitespace `bytes` begin with (a piece's leading whitespace, or
    /// its trailing whitespace read backwards). Bytes, no copies: it runs for each sentence.
    static func lineBreaks(in bytes: some Sequence<UInt8>) -> Int {
        var count = 0
        for byte in bytes {
            guard byte == 32 || byte == 10 || byte == 9 || byte == 13 else { break }
            if byte == 10 { count += 1 }
        }
        return count
    }

    /// Whether `text`'s last line is a code fence ("```", "~~~", indented up to three spaces).
    /// By bytes from the end: it runs for each finding shown.
    static func endsWithAFence(_ text: String) -> Bool {
        let bytes = text.utf8
        let start = bytes.lastIndex(of: 10).map(bytes.index(after:)) ?? bytes.startIndex
        let line = bytes[start...].drop { $0 == 32 }
        guard let first = line.first, first == 96 || first == 126 else { return false }
        return line.prefix(3).elementsEqual(repeatElement(first, count: 3))
    }

    /// Whether `text` (its indent dropped) opens a fenced code block.
    static func opensCodeBlock(_ text: some StringProtocol) -> Bool {
        text.hasPrefix("```") || text.hasPrefix("~~~")
    }

    /// Whether Markdown `text` opens with a block that needs a line of its own.
    static func startsABlock(_ text: String) -> Bool {
        let line = text.drop { $0 == " " }
        guard let first = line.first else { return false }
        if first == "`" || first == "~" { return opensCodeBlock(line) }
        return first == "|" || first == "#" || first == ">" || isListItem(String(line.prefix(8)))
    }

    /// Whether `text` opens (or ends) with `phrase`, compared by letters and digits only, so
    /// case, punctuation and spacing do not matter ("Let me take a step back." and "let me take
    /// a step back —"). Scalar by scalar, from the end they would stand at: it runs for each
    /// result with a lead or a sign-off.
    static func saysAlready(_ text: String, _ phrase: String, atStart: Bool) -> Bool {
        func keyed(_ scalars: some Sequence<Unicode.Scalar>) -> some Sequence<Unicode.Scalar> {
            scalars.lazy.filter(isKey).map(folded)
        }
        return atStart
            ? matches(keyed(text.unicodeScalars), prefix: keyed(phrase.unicodeScalars))
            : matches(keyed(text.unicodeScalars.reversed()), prefix: keyed(phrase.unicodeScalars.reversed()))
    }

    private static func matches(_ text: some Sequence<Unicode.Scalar>, prefix: some Sequence<Unicode.Scalar>) -> Bool {
        var remaining = text.makeIterator()
        var any = false
        for wanted in prefix {
            guard let have = remaining.next(), have == wanted else { return false }
            any = true
        }
        return any
    }

    private static func isKey(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let v = scalar.value
            return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A)
        }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    private static func folded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII { return scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value + 0x20)! : scalar }
        return scalar.properties.lowercaseMapping.unicodeScalars.first ?? scalar
    }

    // MARK: Pieces


    private func showsFindings(_ response: BackendResult) -> Bool {
        guard !response.findings.isEmpty else { return false }
        if whole { return !(response.findings.count == 1 && response.findings[0].content == response.text) }
        switch response.outcome {
        case .bounded, .inconclusive: return true
        default:
            switch soul.verbosity {
            case .terse: return false
            case .concise: return response.findings.count > 1 && (response.confidence ?? 0) < soul.confidence.highThreshold
            case .balanced: return !(response.findings.count == 1 && response.findings[0].content == response.text)
            case .detailed: return true
            }
        }
    }

    /// A heading: the soul's own, or the default in the soul's capitalisation.
    private func title(_ own: String?, _ fallback: String) -> String {
        if let own { return self.own(own) }
        return soul.capitalization == .lowercase ? fallback.lowercased() : fallback
    }

    private func list(_ items: [String]) -> String {
        switch soul.followups.style {
        case .numbered: items.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        case .bulleted: items.map { "- \($0)" }.joined(separator: "\n")
        // Typing a number sends that follow-up, so a one-line list still shows the numbers
        // (a bulleted list is counted down the lines).
        case .inline: items.enumerated().map { "(\($0.offset + 1)) \($0.element)" }.joined(separator: " · ")
        }
    }

    private func limitSummary(_ summary: String, leftOut: inout LeftOut) -> String {
        let maxSentences = soul.length.maxSentences
        let maxCharacters = soul.length.maxCharacters
        guard maxSentences != nil || maxCharacters != nil else { return summary }
        // Sentence ends are a subset of ".", "!" or "?" followed by whitespace: when even that
        // count fits, nothing needs cutting.
        var bound = 1
        var afterEnd = false  // the previous scalar was . ! ? or …
        var previous: (UInt8, UInt8) = (0, 0)
        var bytes = 0
        for byte in summary.utf8 {
            if byte == 0x20 || byte == 0x0A || byte == 0x09, afterEnd { bound += 1 }
            afterEnd = byte == 0x2E || byte == 0x21 || byte == 0x3F || (byte == 0xA6 && previous == (0xE2, 0x80))
            if byte & 0xC0 != 0x80 { bytes += 1 }  // scalars
            previous = (previous.1, byte)
        }
        if bound <= (maxSentences ?? Int.max), bytes <= (maxCharacters ?? Int.max) { return summary }
        let sentences = styler.sentences(summary)
        var kept = 0
        // A sentence that does not count toward the limit: the question the text asks before
        // answering it ("Is there parking? No." is one answer, not a question alone). One: a
        // text of questions is still cut.
        var uncounted = 0
        var characters = 0
        // Inside a list already begun: its items, their further sentences and their code go
        // on to the list's end (a blank line, then prose): steps cut in half lose the last ones.
        var inList = false
        var tookIntroduction = false
        var trailingBreaks = 0
        // A code block the allowance cannot hold whole, kept in part as the last piece: dropped,
        // the answer ended on "Roll it out like this:" with the command gone.
        var shortened: String?
        for (index, sentence) in sentences.enumerated() {
            let text = sentence.trimmedWhitespace
            // A blank line between this piece and the last (its whitespace goes with either).
            let leadingBreaks = Self.lineBreaks(in: sentence.utf8)
            let afterParagraph = trailingBreaks + leadingBreaks >= 2
            trailingBreaks = Self.lineBreaks(in: sentence.utf8.reversed())
            let length = text.unicodeScalars.count
            let isItem = Self.isListItem(text)
            let isBlock = Self.opensCodeBlock(text) || text.hasPrefix("|")  // code or a table
            // A list goes with the sentence that introduces it ("What I can do:" and its items):
            // cut after the introduction, the answer would be a heading with nothing under it.
            // So does a code block: the command after "Install it with apt." is the answer.
            let continuesList = kept > 0 && kept == index && (isItem || isBlock || (inList && !afterParagraph))
            // Past the limit, one sentence more when it introduces a list or a command right
            // after it ("Steps for the hiring manager:"): cut before it, the steps the question
            // asked for were lost whole.
            if let maxSentences, kept - uncounted >= maxSentences, !continuesList {
                guard !tookIntroduction, kept == index, text.hasSuffix(":"), index + 1 < sentences.count else { break }
                let next = sentences[index + 1].trimmedWhitespace
                guard Self.isListItem(next) || Self.opensCodeBlock(next) else { break }
                tookIntroduction = true
            }
            // The character limit too gives way to a list or code block already begun, up to
            // four times itself: a procedure's last steps are what the reader came for.
            if let maxCharacters, kept > 0, characters + length > (continuesList ? 4 * maxCharacters : maxCharacters) {
                if continuesList, let part = Self.shortenedCodeBlock(text, toFit: 4 * maxCharacters - characters) {
                    shortened = part
                    kept += 1
                }
                break
            }
            kept += 1
            if text.hasSuffix("?"), !continuesList, uncounted == 0 { uncounted += 1 }
            characters += sentence.unicodeScalars.count
            if isItem { inList = true } else if afterParagraph, !isBlock { inList = false }
        }
        if let shortened {
            leftOut.sentences = sentences.count - kept
            return sentences.prefix(kept - 1).joined().trimmedWhitespace + "\n\n" + shortened
        }
        guard kept < sentences.count else { return summary }
        leftOut.sentences = sentences.count - kept
        let shown = sentences.prefix(kept).joined().trimmedWhitespace
        // An answer whose command was cut ("Put this in /etc/nginx/… Then reload nginx." and
        // the config a sentence later) keeps its first code block: the command is what the
        // sentences were about. Only when none was kept, and within the list's allowance.
        func isCode(_ piece: Substring) -> Bool { Self.opensCodeBlock(piece.trimmedWhitespace) }
        if kept > 0, !sentences.prefix(kept).contains(where: isCode), let code = sentences.dropFirst(kept).first(where: isCode) {
            let room = 4 * (maxCharacters ?? 600) - shown.unicodeScalars.count
            if code.unicodeScalars.count <= room {
                leftOut.sentences -= 1
                return shown + "\n\n" + code.trimmedWhitespace
            }
            if let part = Self.shortenedCodeBlock(code.trimmedWhitespace, toFit: room) {
                leftOut.sentences -= 1
                return shown + "\n\n" + part
            }
        }
        return shown
    }
}

extension SoulRenderer {
    /// A fenced code block cut to the lines that fit `budget` characters, with its closing fence
    /// (`MarkdownBlock.shortened`); nil for anything else.
    static func shortenedCodeBlock(_ block: some StringProtocol, toFit budget: Int) -> String? {
        guard opensCodeBlock(block) else { return nil }
        let closed = block.split(separator: "\n").last.map { opensCodeBlock($0.drop { $0 == " " }) } ?? false
        return MarkdownBlock.shortened(block, toFit: budget, keepsLastLine: closed)
    }

    /// A Markdown list item: "- ", "* ", "+ " or "1. " / "1) " first.
    static func isListItem(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars.prefix(6))
        guard let first = scalars.first else { return false }
        if "-*+".unicodeScalars.contains(first) { return scalars.count > 1 && scalars[1] == " " }
        var k = 0
        while k < scalars.count, ("0"..."9").contains(scalars[k]) { k += 1 }
        return k > 0 && k + 1 < scalars.count && (scalars[k] == "." || scalars[k] == ")") && scalars[k + 1] == " "
    }
}

/// What the length limits cut, for the note that says so.
struct LeftOut {
    var sentences = 0
    var findings = 0
    var followups = 0

    func note(template: String, words: VoiceDefaults.LeftOutWords = .english) -> String? {
        var parts: [String] = []
        if sentences > 0 { parts.append(words.sentences(sentences)) }
        if findings > 0 { parts.append(words.findings(findings)) }
        if followups > 0 { parts.append(words.followups(followups)) }
        guard !parts.isEmpty else { return nil }
        let phrase = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: words.comma) + words.and + parts.last!
        return template.replacingOccurrences(of: "{left_out}", with: phrase)
    }
}
