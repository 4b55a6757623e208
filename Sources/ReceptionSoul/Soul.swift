import Foundation
import ReceptionCore

/// A personality read from a soul.md file: the knobs a renderer needs, and the persona prose.
///
/// Every knob is optional in the file; a knob left out means "the renderer's neutral
/// default" (see `Souls/README.md` for the format and the defaults). Files without front
/// matter (soul.md files found in the wild) still yield what their prose states plainly:
/// the name from the first heading, vocabulary lists, emoji and capitalisation rules,
/// boundaries.
public struct Soul: Sendable, Hashable {
    public var name: String
    /// The file the soul was read from; nil for built-in souls.
    public var sourcePath: String?
    /// One line saying what the personality is like (`description`).
    public var summary: String?
    /// BCP 47 language tag of the soul's prose and framing (`language`), e.g. `en`, `zh-TW`.
    public var language: String
    /// Free words describing the voice, e.g. "warm", "dry" (`tone`).
    public var tone: String?
    public var formality: Formality
    public var verbosity: Verbosity
    public var length: LengthLimits
    public var emoji: EmojiPolicy
    public var capitalization: Capitalization
    public var greeting: String?
    public var signOff: String?
    /// Framing for each outcome, keyed by the wire value (`complete`, `saturated`, `bounded`, `inconclusive`).
    public var outcomes: [String: OutcomeStyle]
    public var confidence: ConfidenceStyle
    /// Card style for each intervention type, keyed by the wire value (`proactive`, ...).
    public var interventions: [String: InterventionStyle]
    public var followups: FollowupStyle
    public var titles: SectionTitles
    public var vocabulary: Vocabulary
    /// Things the persona will not do, one per entry (from `boundaries` or a Boundaries section).
    public var boundaries: [String]
    /// The recognised sections of the Markdown body, in file order.
    public var sections: [SoulSection]
    /// The Markdown body: the persona in prose.
    public var body: String
    /// Voice traits read from the prose (and companion files), each with the line it came
    /// from; `overridden` when the front matter set the knob instead (see `SoulTrait`).
    public var traits: [SoulTrait]
    /// Example outputs in the persona's voice (good) and what it must not sound like (bad),
    /// from example sections, `**Good:**`/`**Bad:**` lines and `examples/` companion files.
    public var examples: [SoulExample]
    /// The other files of a soul folder (`STYLE.md`, example outputs), in reading order.
    public var companions: [SoulDocument]
    /// Phrases the persona says (signature lexicon, quick reactions), for prompts.
    public var signaturePhrases: [String]
    /// How the persona opens and closes an answer ("tl;dr:", "Cheers."), when stated.
    public var opener: String?
    /// Hedging habit: derived from the prose; changes how confidence is said.
    public var hedging: Hedging
    /// Punctuation habit: an exclamatory persona ends framing lines with "!".
    public var exclamatory: Bool
    /// Dashes between clauses: `none` ("zero em-dashes") turns one in the engine's prose into a
    /// comma, and prompts ask for none.
    public var dashes: DashPolicy
    /// Emoji the persona uses most, most frequent first (icons when emoji are allowed).
    public var favouriteEmoji: [String]
    /// How the persona says no, when the prose quotes it.
    public var refusal: String?
    /// The vocabulary and boundaries the persona's own text states (its body or a companion
    /// file): a prompt that carries that text lists only the rest beside it.
    public var statedInProse: SoulProseStatements

    /// A soul with neutral knobs. The legacy parameters (`outcomeFraming`, `interventionLabels`,
    /// `followupsTitle`, `vocabulary` as avoid → prefer) fill the structured knobs.
    public init(name: String, sourcePath: String? = nil, greeting: String? = nil, signOff: String? = nil,
                outcomeFraming: [String: String] = [:], interventionLabels: [String: String] = [:],
                followupsTitle: String? = nil, vocabulary: [String: String] = [:], body: String = "") {
        self.name = name
        self.sourcePath = sourcePath
        self.summary = nil
        self.language = "en"
        self.tone = nil
        self.formality = .neutral
        self.verbosity = .balanced
        self.length = LengthLimits()
        self.emoji = .sparing
        self.capitalization = .asWritten
        self.greeting = greeting
        self.signOff = signOff
        self.outcomes = outcomeFraming.mapValues { OutcomeStyle(lead: $0) }
        self.confidence = ConfidenceStyle()
        self.interventions = interventionLabels.mapValues { InterventionStyle(label: $0) }
        self.followups = FollowupStyle(title: followupsTitle)
        self.titles = SectionTitles()
        self.vocabulary = Vocabulary(replace: vocabulary.sorted { $0.key < $1.key }.map { VocabularyReplacement(avoid: $0.key, prefer: $0.value) })
        self.boundaries = []
        self.sections = []
        self.body = body
        self.traits = []
        self.examples = []
        self.companions = []
        self.signaturePhrases = []
        self.opener = nil
        self.hedging = .neutral
        self.exclamatory = false
        self.dashes = .allowed
        self.favouriteEmoji = []
        self.refusal = nil
        self.statedInProse = SoulProseStatements()
    }

    /// Intro line per outcome (legacy view of `outcomes`).
    public var outcomeFraming: [String: String] {
        get { outcomes.compactMapValues(\.lead) }
        set { for (key, value) in newValue { outcomes[key, default: OutcomeStyle()].lead = value } }
    }

    /// Card label per intervention type (legacy view of `interventions`).
    public var interventionLabels: [String: String] {
        get { interventions.compactMapValues(\.label) }
        set { for (key, value) in newValue { interventions[key, default: InterventionStyle()].label = value } }
    }

    /// The follow-ups heading (legacy view of `followups.title`).
    public var followupsTitle: String {
        get { followups.title ?? DefaultVoice.followupsTitle }
        set { followups.title = newValue }
    }

    /// A neutral voice used when no soul file can be found, so the REPL always starts.
    public static let plain: Soul = {
        var soul = Soul(name: "plain", body: "# plain\n\nNeutral, direct, no flourishes.")
        soul.summary = "Neutral, direct, no flourishes."
        soul.emoji = .never
        return soul
    }()
}

/// What a soul's prose states of its vocabulary and boundaries (words lowercased, boundaries
/// as `Soul.boundaries` holds them).
public struct SoulProseStatements: Sendable, Hashable {
    public var prefer: Set<String> = []
    public var avoid: Set<String> = []
    public var boundaries: Set<String> = []

    public init() {}
}

/// How readily the persona hedges.
public enum Hedging: String, Sendable, Hashable, CaseIterable {
    /// States things plainly: no hedge when fairly sure.
    case assertive
    case neutral
    /// Qualifies claims: hedges even when fairly confident.
    case cautious
}

/// One voice trait derived from a soul's prose, with its evidence.
public struct SoulTrait: Sendable, Hashable {
    /// The knob or habit: `verbosity`, `formality`, `capitalization`, `emoji`, `punctuation`, `dashes`,
    /// `language`, `signature`, `opener`, `closer`, `prefer`, `avoid`, `hedging`, `refusal`, `name`.
    public var name: String
    /// The value, as text (`casual`, `lowercase`, `de`, a phrase…).
    public var value: String
    /// The file it was read from (a path, or the file name for text parsed without one).
    public var file: String
    /// 1-based line in that file.
    public var line: Int
    /// The words on that line that decided it (at most 80 characters).
    public var evidence: String
    /// The front matter set this knob, so the derived value is not used.
    public var overridden: Bool

    public init(name: String, value: String, file: String, line: Int, evidence: String, overridden: Bool = false) {
        self.name = name
        self.value = value
        self.file = file
        self.line = line
        self.evidence = evidence
        self.overridden = overridden
    }

    /// `file:line: name = value  (evidence)`.
    public var description: String {
        "\(file):\(line): \(name) = \(value)\(overridden ? " (overridden by front matter)" : "")  ← \(evidence)"
    }
}

/// An example output: in the persona's voice (`good`), or how it must never sound.
public struct SoulExample: Sendable, Hashable {
    public var text: String
    public var good: Bool
    public var file: String
    public var line: Int

    public init(text: String, good: Bool, file: String, line: Int) {
        self.text = text
        self.good = good
        self.file = file
        self.line = line
    }
}

/// A companion file of a soul folder (`STYLE.md`, `examples/good-outputs.md`…).
public struct SoulDocument: Sendable, Hashable {
    /// The path relative to the folder, e.g. `STYLE.md`.
    public var name: String
    public var text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }
}

public enum Formality: String, Sendable, Hashable, CaseIterable {
    case casual, neutral, formal
}

public enum Verbosity: String, Sendable, Hashable, CaseIterable {
    /// The summary only: no findings for confident outcomes.
    case terse
    /// The summary, and findings only when the outcome calls for them.
    case concise
    /// Summary and findings.
    case balanced
    /// Everything, including sources of findings.
    case detailed
}

public enum EmojiPolicy: String, Sendable, Hashable, CaseIterable {
    /// No emoji (`none` in the file): the soul's icons are dropped, and emoji in prose
    /// outside quotes and code are removed.
    case never = "none"
    /// At most one decorative emoji (the soul's icons) per rendered result.
    case sparing
    /// Icons wherever the soul defines them.
    case allowed
}

public enum DashPolicy: String, Sendable, Hashable, CaseIterable {
    /// Dashes are left as written.
    case allowed
    /// No em dash (or spaced en dash, or "--") between clauses: each becomes a comma in prose
    /// outside quotes and code.
    case none
}

public enum Capitalization: String, Sendable, Hashable, CaseIterable {
    /// Text is left as the engine and the soul wrote it.
    case asWritten = "as-written"
    /// Each sentence starts with a capital letter.
    case sentence
    /// Ordinary words are lowercased; names, acronyms, code, quotes and URLs are untouched.
    case lowercase
}

/// Limits on how much of a result is shown; what is cut is named in a note.
public struct LengthLimits: Sendable, Hashable {
    /// Summary sentences shown; the rest are left out at a sentence boundary.
    public var maxSentences: Int?
    /// Summary characters shown, cut at a sentence boundary (the first sentence always shows).
    public var maxCharacters: Int?
    public var maxFindings: Int?
    public var maxFollowups: Int?
    /// The note saying what was left out; `{left_out}` becomes e.g. "2 sentences and 1 finding".
    public var omittedNote: String?

    public init(maxSentences: Int? = nil, maxCharacters: Int? = nil, maxFindings: Int? = nil, maxFollowups: Int? = nil, omittedNote: String? = nil) {
        self.maxSentences = maxSentences
        self.maxCharacters = maxCharacters
        self.maxFindings = maxFindings
        self.maxFollowups = maxFollowups
        self.omittedNote = omittedNote
    }
}

/// How the soul frames one outcome.
public struct OutcomeStyle: Sendable, Hashable {
    /// Said before the summary; "" for nothing.
    public var lead: String?
    /// Said after the result: for `bounded` the offer to continue, for `saturated` the
    /// "best available" note, for `inconclusive` the invitation to pick a follow-up.
    public var note: String?

    public init(lead: String? = nil, note: String? = nil) {
        self.lead = lead
        self.note = note
    }
}

/// Hedges by confidence band: `high` at or above `highThreshold`, `low` below `lowThreshold`, `medium` between.
public struct ConfidenceStyle: Sendable, Hashable {
    public var high: String?
    public var medium: String?
    public var low: String?
    public var highThreshold: Double
    public var lowThreshold: Double

    public init(high: String? = nil, medium: String? = nil, low: String? = nil, highThreshold: Double = 0.8, lowThreshold: Double = 0.5) {
        self.high = high
        self.medium = medium
        self.low = low
        self.highThreshold = highThreshold
        self.lowThreshold = lowThreshold
    }

    public enum Band: String, Sendable, Hashable, CaseIterable { case high, medium, low }

    public func band(for confidence: Double) -> Band {
        confidence >= highThreshold ? .high : confidence >= lowThreshold ? .medium : .low
    }
}

/// How one intervention type is presented.
public struct InterventionStyle: Sendable, Hashable {
    public var label: String?
    public var style: Presentation?
    /// Shown before the label when the emoji policy allows it.
    public var icon: String?

    public enum Presentation: String, Sendable, Hashable, CaseIterable {
        /// A card: the label as its title, the message as its body.
        case card
        /// One line: "**Label:** message", no title.
        case inline
    }

    public init(label: String? = nil, style: Presentation? = nil, icon: String? = nil) {
        self.label = label
        self.style = style
        self.icon = icon
    }
}

public struct FollowupStyle: Sendable, Hashable {
    public var title: String?
    public var style: ListStyle

    public enum ListStyle: String, Sendable, Hashable, CaseIterable {
        /// "1. …", "2. …": people can answer with a number.
        case numbered
        /// "- …"
        case bulleted
        /// One line: "a · b · c".
        case inline
    }

    public init(title: String? = nil, style: ListStyle = .numbered) {
        self.title = title
        self.style = style
    }
}

/// Headings the renderer uses for its sections.
public struct SectionTitles: Sendable, Hashable {
    public var findings: String?
    public var discrepancy: String?
    public var plan: String?
    public var error: String?

    public init(findings: String? = nil, discrepancy: String? = nil, plan: String? = nil, error: String? = nil) {
        self.findings = findings
        self.discrepancy = discrepancy
        self.plan = plan
        self.error = error
    }
}

/// Words the persona prefers and avoids. Only `replace` changes rendered text; `prefer`
/// and `avoid` guide language-model backends (system prompt) and the linter.
public struct Vocabulary: Sendable, Hashable {
    public var prefer: [String]
    public var avoid: [String]
    public var replace: [VocabularyReplacement]

    public init(prefer: [String] = [], avoid: [String] = [], replace: [VocabularyReplacement] = []) {
        self.prefer = prefer
        self.avoid = avoid
        self.replace = replace
    }

    public var isEmpty: Bool { prefer.isEmpty && avoid.isEmpty && replace.isEmpty }
}

/// A word or phrase to avoid and what to say instead, applied as whole words, case-preserving.
public struct VocabularyReplacement: Sendable, Hashable {
    public var avoid: String
    public var prefer: String

    public init(avoid: String, prefer: String) {
        self.avoid = avoid
        self.prefer = prefer
    }
}

/// A section of the Markdown body, with the kind its heading was recognised as.
public struct SoulSection: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case identity, voice, vocabulary, boundaries, formatting, examples, other
    }

    public var kind: Kind
    public var heading: String
    /// Heading level: 1 for `#`, 2 for `##`...
    public var level: Int
    /// The section's text, without its heading.
    public var text: String
    /// 1-based line of the heading in the file.
    public var line: Int

    public init(kind: Kind, heading: String, level: Int, text: String, line: Int) {
        self.kind = kind
        self.heading = heading
        self.level = level
        self.text = text
        self.line = line
    }
}

/// The renderer's wording when a soul leaves a knob out.
public enum DefaultVoice {
    public static let followupsTitle = "You could ask next"
    public static let findingsTitle = "What I found"
    public static let discrepancyTitle = "Where the sources disagree"
    public static let planTitle = "Plan"
    public static let errorTitle = "Something went wrong"
    public static let cancelled = "Cancelled."
    public static let omittedNote = "Left out for brevity: {left_out}."

    public static func outcome(_ outcome: Outcome) -> OutcomeStyle {
        switch outcome {
        case .complete: OutcomeStyle(lead: "", note: nil)
        case .saturated: OutcomeStyle(lead: "This is the best answer available.", note: "Looking further is unlikely to change it.")
        case .bounded: OutcomeStyle(lead: "A partial answer: I hit my limits before finishing.", note: "Want me to keep going? Ask me to continue.")
        case .inconclusive: OutcomeStyle(lead: "The evidence is mixed.", note: "One of the follow-ups could settle it.")
        case .unknown: OutcomeStyle(lead: "", note: nil)
        }
    }

    public static func hedge(_ band: ConfidenceStyle.Band) -> String {
        switch band {
        case .high: ""
        case .medium: "I'm fairly, not fully, sure of this."
        case .low: "Treat this as tentative."
        }
    }

    /// The type's name, capitalised ("Pushback"): souls give friendlier labels.
    public static func interventionLabel(_ type: InterventionType) -> String {
        let raw = type.rawValue
        return raw.prefix(1).uppercased() + raw.dropFirst()
    }
}
