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
    let styler: ProseStyler

    public init(soul: Soul) {
        self.soul = soul
        styler = ProseStyler(soul: soul)
    }

    /// Blocks for one event; `trustLevel` gates interventions the way the engine does.
    /// `.textDelta` is styled on its own here; use `makeTextStream()` (as
    /// `PersonalityMiddleware` does) when a word may be split across chunks.
    public func render(_ event: BackendEvent, trustLevel: Int) -> [DisplayBlock] {
        switch event {
        case .planAwaitingApproval(let plan):
            return [DisplayBlock(role: .plan, title: title(soul.titles.plan, DefaultVoice.planTitle), markdown: style(plan.description),
                                 items: ["instrument: \(plan.instrument)", "about \(plan.estimatedIterations) iteration(s)",
                                         "/approve to run it, /reject to drop it"])]
        case .progress(let progress):
            return [DisplayBlock(role: .progress, markdown: style(progress.message))]
        case .failure(let failure):
            if failure.cancelled {
                return [DisplayBlock(role: .error, markdown: style(DefaultVoice.cancelled))]
            }
            return [DisplayBlock(role: .error, title: soul.titles.error.map(style), markdown: failure.message)]
        case .result(let response):
            return render(response, trustLevel: trustLevel)
        case .textDelta(let text):
            return [DisplayBlock(role: .text, markdown: style(text))]
        case .accepted, .status, .toolUse, .permissionRequest:
            return []
        }
    }

    /// The soul's greeting, for the start of a session.
    public func greeting() -> DisplayBlock? {
        guard let greeting = soul.greeting, !greeting.isEmpty else { return nil }
        return DisplayBlock(role: .greeting, markdown: style(greeting))
    }

    /// A stream for `.textDelta` chunks in this soul's voice.
    public func makeTextStream() -> SoulTextStream {
        SoulTextStream(styler: styler)
    }

    /// Prose in the soul's voice (vocabulary, capitalisation, emoji policy); facts untouched.
    public func style(_ text: String) -> String {
        styler.style(text)
    }

    public func render(_ response: TaskResponse, trustLevel: Int) -> [DisplayBlock] {
        var blocks: [DisplayBlock] = []
        blocks.reserveCapacity(8)
        let outcome = response.outcome
        let defaults = DefaultVoice.outcome(outcome)
        let framing = soul.outcomes[outcome.rawValue]
        var leftOut = LeftOut()
        var iconBudget = soul.emoji == .sparing ? 1 : soul.emoji == .allowed ? Int.max : 0

        // Summary: framing, hedge, then the engine's words, cut at a sentence boundary.
        var parts: [String] = []
        if let lead = framing?.lead ?? defaults.lead, !lead.isEmpty { parts.append(style(lead)) }
        if outcome != .inconclusive {
            let band = soul.confidence.band(for: response.confidence)
            let hedge: String? = switch band {
            case .high: soul.confidence.high
            case .medium: soul.confidence.medium
            case .low: soul.confidence.low
            }
            let text = hedge ?? DefaultVoice.hedge(band)
            if !text.isEmpty { parts.append(style(text)) }
        }
        let summary = limitSummary(style(response.summary), leftOut: &leftOut)
        if !summary.isEmpty { parts.append(summary) }
        blocks.append(DisplayBlock(role: .summary, markdown: parts.joined(separator: " ")))

        // Findings.
        if showsFindings(response) {
            var findings = response.findings
            if let limit = soul.length.maxFindings, findings.count > limit {
                leftOut.findings = findings.count - limit
                findings = Array(findings.prefix(limit))
            }
            let findingsTitle = soul.titles.findings.map(style)
            for (index, finding) in findings.enumerated() {
                var text = style(finding.content)
                if let source = finding.source, !source.isEmpty, soul.verbosity != .terse {
                    text += " (\(source))"
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
        let followups = Self.followups(response.suggestedFollowups).gated(forTrustLevel: trustLevel)
        for intervention in followups.interventions {
            let style = soul.interventions[intervention.type.rawValue]
            var label = style?.label.map(self.style) ?? title(nil, DefaultVoice.interventionLabel(intervention.type))
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
            blocks.append(DisplayBlock(role: .note, markdown: style(note)))
        }
        if let note = leftOut.note(template: soul.length.omittedNote ?? DefaultVoice.omittedNote) {
            blocks.append(DisplayBlock(role: .note, markdown: style(note)))
        }
        if let signOff = soul.signOff, !signOff.isEmpty {
            blocks.append(DisplayBlock(role: .signoff, markdown: style(signOff)))
        }
        return blocks
    }

    // MARK: Pieces

    /// `TaskResponse.followups` (the same rules as `SuggestedFollowup(parsing:)`, which a
    /// test checks), without Foundation's slow trimming.
    static func followups(_ entries: [String]) -> [SuggestedFollowup] {
        entries.map(parseFollowup)
    }

    static func parseFollowup(_ text: String) -> SuggestedFollowup {
        if let fast = parseASCIIFollowup(text) { return fast }
        let trimmed = text.drop { $0 == " " }
        guard trimmed.first == "[", let close = trimmed.firstIndex(of: "]") else { return .plain(text) }
        let rawTag = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
        let tag = rawTag.trimmingScalars(where: isSpaceOrTab).lowercased()
        guard !tag.isEmpty, tag.count <= 24, tag.allSatisfy({ $0.isLetter || $0 == "_" || $0 == "-" }) else { return .plain(text) }
        let message = trimmed[trimmed.index(after: close)...].trimmingScalars(where: isSpaceOrTab)
        return .intervention(Intervention(type: InterventionType(wire: tag), message: message))
    }

    /// The common case on bytes: ASCII up to the closing bracket; nil to take the general path.
    private static func parseASCIIFollowup(_ text: String) -> SuggestedFollowup? {
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index < utf8.endIndex, utf8[index] == 0x20 { index = utf8.index(after: index) }
        guard index < utf8.endIndex else { return .plain(text) }
        guard utf8[index] == UInt8(ascii: "[") else { return .plain(text) }
        var tag: [UInt8] = []
        var cursor = utf8.index(after: index)
        while cursor < utf8.endIndex, utf8[cursor] != UInt8(ascii: "]") {
            let byte = utf8[cursor]
            if byte >= 0x80 { return nil }
            tag.append(byte >= 0x41 && byte <= 0x5A ? byte + 32 : byte)
            cursor = utf8.index(after: cursor)
        }
        guard cursor < utf8.endIndex else { return .plain(text) }
        while tag.last == 0x20 || tag.last == 0x09 { tag.removeLast() }
        while tag.first == 0x20 || tag.first == 0x09 { tag.removeFirst() }
        guard !tag.isEmpty, tag.count <= 24,
              tag.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) else { return .plain(text) }
        var start = utf8.index(after: cursor)
        var end = utf8.endIndex
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 { start = utf8.index(after: start) }
        while end > start, utf8[utf8.index(before: end)] == 0x20 || utf8[utf8.index(before: end)] == 0x09 { end = utf8.index(before: end) }
        if start < end, utf8[start] >= 0x80 || utf8[utf8.index(before: end)] >= 0x80 { return nil }  // Unicode spaces: general path
        let message = String(Substring(utf8[start..<end]))
        let type: InterventionType
        switch tag {
        case Array("proactive".utf8): type = .proactive
        case Array("pushback".utf8): type = .pushback
        case Array("scoping".utf8): type = .scoping
        case Array("education".utf8): type = .education
        default: type = InterventionType(wire: String(decoding: tag, as: UTF8.self))
        }
        return .intervention(Intervention(type: type, message: message))
    }

    /// What `CharacterSet.whitespaces` holds: spaces and tabs (Unicode space separators).
    private static func isSpaceOrTab(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
    }

    private func showsFindings(_ response: TaskResponse) -> Bool {
        guard !response.findings.isEmpty else { return false }
        switch response.outcome {
        case .bounded, .inconclusive: return true
        default:
            switch soul.verbosity {
            case .terse: return false
            case .concise: return response.findings.count > 1 && response.confidence < soul.confidence.highThreshold
            case .balanced: return !(response.findings.count == 1 && response.findings[0].content == response.summary)
            case .detailed: return true
            }
        }
    }

    /// A heading: the soul's own, or the default in the soul's capitalisation.
    private func title(_ own: String?, _ fallback: String) -> String {
        if let own { return style(own) }
        return soul.capitalization == .lowercase ? fallback.lowercased() : fallback
    }

    private func list(_ items: [String]) -> String {
        switch soul.followups.style {
        case .numbered: items.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        case .bulleted: items.map { "- \($0)" }.joined(separator: "\n")
        case .inline: items.joined(separator: " · ")
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
        var characters = 0
        for sentence in sentences {
            let length = sentence.trimmedWhitespace.unicodeScalars.count
            if let maxSentences, kept >= maxSentences { break }
            if let maxCharacters, kept > 0, characters + length > maxCharacters { break }
            kept += 1
            characters += sentence.unicodeScalars.count
        }
        guard kept < sentences.count else { return summary }
        leftOut.sentences = sentences.count - kept
        return sentences.prefix(kept).joined().trimmedWhitespace
    }
}

/// What the length limits cut, for the note that says so.
struct LeftOut {
    var sentences = 0
    var findings = 0
    var followups = 0

    func note(template: String) -> String? {
        var parts: [String] = []
        if sentences > 0 { parts.append("\(sentences) \(sentences == 1 ? "sentence" : "sentences") of the summary") }
        if findings > 0 { parts.append("\(findings) \(findings == 1 ? "finding" : "findings")") }
        if followups > 0 { parts.append("\(followups) \(followups == 1 ? "follow-up" : "follow-ups")") }
        guard !parts.isEmpty else { return nil }
        let phrase = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
        return template.replacingOccurrences(of: "{left_out}", with: phrase)
    }
}
