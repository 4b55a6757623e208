import Foundation
import Mustache
import ReceptionCore

/// The Mustache templates that turn a soul, the classified intent and the conversation
/// into prompts for language-model backends (`Prompts/system.mustache`,
/// `Prompts/rewrite.mustache`; every variable is documented in `Prompts/README.md`).
public struct SoulPromptTemplates: Sendable {
    public let system: MustacheTemplate
    public let rewrite: MustacheTemplate

    public enum LoadError: Error, CustomStringConvertible {
        case missing(String)
        case invalid(String, String)

        public var description: String {
            switch self {
            case .missing(let path): "prompt template not found: \(path)"
            case .invalid(let name, let error): "prompt template \(name) does not parse: \(error)"
            }
        }
    }

    public init(system: String, rewrite: String) throws {
        do { self.system = try MustacheTemplate(string: system) } catch { throw LoadError.invalid("system.mustache", Self.describe(error)) }
        do { self.rewrite = try MustacheTemplate(string: rewrite) } catch { throw LoadError.invalid("rewrite.mustache", Self.describe(error)) }
    }

    /// A parse error located and in words ("line 2, column 1: a section is not closed"), not
    /// the library's type dump.
    static func describe(_ error: any Error) -> String {
        guard let parse = error as? MustacheTemplate.ParserError else { return "\(error)" }
        let what: String
        switch parse.error as? MustacheTemplate.Error {
        case .sectionCloseNameIncorrect?: what = "a section is closed with another name than it was opened with"
        case .unfinishedName?: what = "a tag is not finished (`{{name}}`)"
        case .expectedSectionEnd?: what = "a section is not closed (`{{#name}}` needs `{{/name}}`)"
        case .invalidSetDelimiter?: what = "a set-delimiter tag is malformed"
        default: what = "\(parse.error)"
        }
        return "line \(parse.context.lineNumber), column \(parse.context.columnNumber): \(what)"
    }

    /// `system.mustache` and `rewrite.mustache` from a directory (to try edited templates).
    public init(directory: URL) throws {
        func read(_ name: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { throw LoadError.missing(url.path) }
            return text
        }
        try self.init(system: read("system.mustache"), rewrite: read("rewrite.mustache"))
    }

    /// The templates shipped in `Prompts/`, compiled into the binary.
    public static let builtIn: SoulPromptTemplates = {
        // The embedded copies are checked against Prompts/ by a test, so they always parse.
        try! SoulPromptTemplates(system: EmbeddedResources.prompts["system.mustache"]!, rewrite: EmbeddedResources.prompts["rewrite.mustache"]!)
    }()
}

/// Builds the prompts. Deterministic: the same soul, intent and conversation give the same text.
public struct SoulPrompts: Sendable {
    public var templates: SoulPromptTemplates

    public init(templates: SoulPromptTemplates = .builtIn) {
        self.templates = templates
    }

    /// The system prompt for a language-model backend: the soul, and the conversation when
    /// the backend takes no messages of its own (`history`).
    ///
    /// Nothing in it changes from message to message for the same soul and history: a server
    /// that keeps the last prompt's cache (llama.cpp) evaluates it once per conversation, not
    /// once per message. What does change (the message's intent, urgency and goal) is
    /// `ReceptionRequest.answerGuidance`, which the adapter sends after the conversation.
    public func systemPrompt(soul: Soul, history: [ConversationTurn] = []) -> String {
        var context = Self.soulContext(soul)
        context["has_conversation"] = !history.isEmpty
        context["conversation"] = history.enumerated().map { index, turn -> [String: Any] in
            [
                "number": index + 1,
                "query": turn.query,
                "has_intent": turn.intent != nil,
                "intent": turn.intent?.rawValue ?? "",
                "has_summary": turn.summary != nil,
                "summary": turn.summary ?? "",
                "outcome": turn.outcome?.rawValue ?? "answer",
            ]
        }
        return Self.tidy(templates.system.render(context))
    }

    /// A prompt asking a language model to rewrite `text` in the soul's voice.
    public func rewritePrompt(soul: Soul, text: String, outcome: Outcome? = nil) -> String {
        var context = Self.soulContext(soul)
        context["text"] = text
        context["has_outcome"] = outcome != nil
        if let outcome {
            // The framing the renderer uses: in the soul's language and register.
            let style = VoiceDefaults.effective(soul).outcomes[outcome.rawValue] ?? OutcomeStyle()
            let defaults = DefaultVoice.outcome(outcome)
            let lead = style.lead ?? defaults.lead ?? ""
            let note = style.note ?? defaults.note ?? ""
            context["outcome"] = outcome.rawValue
            context["has_lead"] = !lead.isEmpty
            context["lead"] = lead
            context["has_note"] = !note.isEmpty
            context["note"] = note
        }
        return Self.tidy(templates.rewrite.render(context))
    }

    // MARK: Contexts

    /// How much of the persona's text a prompt carries: the main file, and its first companions.
    static let personaLimit = 24_000, companionLimit = 16_000, maxCompanions = 6

    static func soulContext(_ soul: Soul) -> [String: Any] {
        // The framing as the renderer says it, in the soul's language and register (a German
        // soul's prompt quoted the English leads while its answers opened in German).
        let framed = VoiceDefaults.effective(soul)
        var outcomes: [[String: Any]] = []
        for outcome in Outcome.knownCases {
            let style = framed.outcomes[outcome.rawValue] ?? OutcomeStyle()
            let defaults = DefaultVoice.outcome(outcome)
            let lead = style.lead ?? defaults.lead ?? ""
            let note = style.note ?? defaults.note ?? ""
            outcomes.append(["outcome": outcome.rawValue, "has_lead": !lead.isEmpty, "lead": lead, "has_note": !note.isEmpty, "note": note,
                             "has_framing": !lead.isEmpty || !note.isEmpty, "has_both": !lead.isEmpty && !note.isEmpty])
        }
        let interventions: [[String: Any]] = InterventionType.knownCases.map { type in
            ["type": type.rawValue, "label": framed.interventions[type.rawValue]?.label ?? DefaultVoice.interventionLabel(type)]
        }
        // An assertive persona does not hedge when fairly sure (the renderer drops that hedge
        // too): the prompt must not ask for one in the line after "do not hedge".
        let medium = framed.confidence.medium ?? (soul.hedging == .assertive ? "" : DefaultVoice.hedge(.medium))
        let low = framed.confidence.low ?? DefaultVoice.hedge(.low)
        // The persona in its own words: the main file, then its companions (STYLE.md, example
        // files), each bounded so an odd file cannot swamp the prompt.
        func bounded(_ text: String, _ limit: Int) -> String {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.count <= limit ? trimmed : String(trimmed.prefix(limit)) + "\n[…]"
        }
        var personaParts = [bounded(soul.body, personaLimit)]
        for companion in soul.companions.prefix(maxCompanions) where !companion.text.trimmedWhitespace.isEmpty {
            personaParts.append("## From \(companion.name)\n\n" + bounded(companion.text, companionLimit))
        }
        let persona = personaParts.filter { !$0.isEmpty }.joined(separator: "\n\n")
        // What the persona's text says itself is not listed again beside it (a list twice costs
        // a local model its prompt tokens on every conversation): only what came from the front
        // matter, or from code. When the text had to be cut, every entry is listed.
        let wholeText = soul.body.trimmedWhitespace.count <= personaLimit && soul.companions.count <= maxCompanions
            && soul.companions.allSatisfy { $0.text.trimmedWhitespace.count <= companionLimit }
        let listAll = !wholeText || persona.isEmpty
        let stated = listAll ? SoulProseStatements() : soul.statedInProse
        let notInPersona: [String: Any] = {
            let prefer = soul.vocabulary.prefer.filter { !stated.prefer.contains($0.lowercased()) }
            let avoid = soul.vocabulary.avoid.filter { !stated.avoid.contains($0.lowercased()) }
            let boundaries = Array(soul.boundaries.filter { !stated.boundaries.contains($0) }.prefix(40))
            // Signature phrases and the opener are read from the persona's text.
            let phrases = listAll ? Array(soul.signaturePhrases.prefix(12)) : []
            let opener = listAll ? soul.opener ?? "" : ""
            return ["has_prefer": !prefer.isEmpty, "prefer": prefer, "has_avoid": !avoid.isEmpty, "avoid": avoid,
                    "has_boundaries": !boundaries.isEmpty, "boundaries": boundaries, "has_phrases": !phrases.isEmpty, "phrases": phrases,
                    "has_opener": !opener.isEmpty, "opener": opener]
        }()
        // Name, description and tone have their own places in the template.
        let traits = soul.traits.filter { !$0.overridden && !["name", "description", "tone", "words used", "words avoided", "words replaced", "refuses", "signature", "favourite emoji"].contains($0.name) }
            .map { ["name": $0.name, "value": $0.value] }
        func exampleList(_ good: Bool) -> [String] {
            soul.examples.filter { $0.good == good }.prefix(8).map { bounded($0.text, 600).replacingOccurrences(of: "\n", with: "\n  ") }
        }
        let goodExamples = exampleList(true), badExamples = exampleList(false)
        let phrases = Array(soul.signaturePhrases.prefix(12))
        // `tone` is the words without a closing mark, to sit inside a sentence ("the voice of
        // Pip (short and warm), …"); `tone_sentence` ends as a sentence, with the tone's own
        // mark when it has one ("Lively!", not "Lively.") and a period when it has none.
        var tone = soul.tone ?? ""
        while let last = tone.last, ".!?…;:, ".contains(last) { tone.removeLast() }
        let written = (soul.tone ?? "").trimmingCharacters(in: .whitespaces)
        let toneSentence = tone.isEmpty ? "" : written.last.map { ".!?…".contains($0) } == true ? written : tone + "."
        return [
            "soul": [
                "name": soul.name,
                "has_description": soul.summary != nil, "description": soul.summary ?? "",
                "has_tone": !tone.isEmpty, "tone": tone, "tone_sentence": toneSentence,
                "language": soul.language,
                // Said only when it is not what a model does anyway (English, neutral, balanced);
                // `en-GB` is said, for its spelling.
                "states_language": soul.language.lowercased() != "en",
                "states_formality": soul.formality != .neutral, "states_verbosity": soul.verbosity != .balanced,
                "formality": soul.formality.rawValue,
                "verbosity": soul.verbosity.rawValue,
                "has_max_sentences": soul.length.maxSentences != nil, "max_sentences": soul.length.maxSentences ?? 0,
                "has_max_characters": soul.length.maxCharacters != nil, "max_characters": soul.length.maxCharacters ?? 0,
                "emoji": soul.emoji.rawValue,
                "emoji_none": soul.emoji == .never, "emoji_sparing": soul.emoji == .sparing, "emoji_allowed": soul.emoji == .allowed,
                "capitalization": soul.capitalization.rawValue,
                "lowercase": soul.capitalization == .lowercase, "sentence_case": soul.capitalization == .sentence, "no_dashes": soul.dashes == .none,
                "has_greeting": !(soul.greeting ?? "").isEmpty, "greeting": soul.greeting ?? "",
                "has_sign_off": !(soul.signOff ?? "").isEmpty, "sign_off": soul.signOff ?? "",
            ] as [String: Any],
            "outcomes": outcomes,
            "confidence": ["has_medium": !medium.isEmpty, "medium": medium, "has_low": !low.isEmpty, "low": low,
                           "high_threshold": soul.confidence.highThreshold, "low_threshold": soul.confidence.lowThreshold] as [String: Any],
            "interventions": interventions,
            "followups": ["title": framed.followups.title ?? DefaultVoice.followupsTitle, "style": soul.followups.style.rawValue],
            "vocabulary": [
                "has_prefer": !soul.vocabulary.prefer.isEmpty, "prefer": soul.vocabulary.prefer,
                "has_avoid": !soul.vocabulary.avoid.isEmpty, "avoid": soul.vocabulary.avoid,
                "has_replace": !soul.vocabulary.replace.isEmpty,
                "replace": soul.vocabulary.replace.map { ["avoid": $0.avoid, "prefer": $0.prefer] },
            ] as [String: Any],
            "has_boundaries": !soul.boundaries.isEmpty, "boundaries": Array(soul.boundaries.prefix(40)),
            "has_traits": !traits.isEmpty, "traits": traits,
            "has_phrases": !phrases.isEmpty, "phrases": phrases,
            "has_opener": soul.opener != nil, "opener": soul.opener ?? "",
            "has_closer": !(soul.signOff ?? "").isEmpty, "closer": soul.signOff ?? "",
            "assertive": soul.hedging == .assertive, "cautious": soul.hedging == .cautious,
            "exclamatory": soul.exclamatory,
            "has_refusal": soul.refusal != nil, "refusal": soul.refusal ?? "",
            "has_good_examples": !goodExamples.isEmpty, "good_examples": goodExamples,
            "has_bad_examples": !badExamples.isEmpty, "bad_examples": badExamples,
            "has_persona": !persona.isEmpty, "persona": persona,
            "not_in_persona": notInPersona,
        ]
    }

    /// At most one blank line in a row, no trailing spaces, one final newline.
    static func tidy(_ text: String) -> String {
        var lines: [Substring] = []
        var blank = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = line
            while line.last == " " { line = line.dropLast() }
            if line.isEmpty {
                if blank || lines.isEmpty { continue }
                blank = true
            } else {
                blank = false
            }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }
}
