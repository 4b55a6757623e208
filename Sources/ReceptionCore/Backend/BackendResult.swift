/// The final, personality-agnostic answer of an engine, in Reception's own vocabulary.
///
/// Every field but `text` is optional because engines differ: a language model returns
/// only text (often streamed first), Loop Symphony adds findings, an outcome and
/// follow-ups. The soul renderer shows what is there and nothing it would have to invent.
public struct BackendResult: Sendable, Hashable, Codable {
    /// The engine's id for the task or turn, when it has one.
    public var taskID: String?
    /// The answer itself, as Markdown.
    public var text: String
    /// True when `text` already reached the front end as `.textDelta` events: the REPL
    /// then does not print it again, but keeps it for history and transcripts.
    public var textWasStreamed: Bool
    /// The evidence behind the answer.
    public var findings: [Finding]
    /// How the task ended, in the four outcomes Reception adopted from Loop Symphony.
    public var outcome: Outcome?
    /// 0...1: how sure the engine is of the answer.
    public var confidence: Double?
    /// Where sources disagreed, in the engine's words.
    public var discrepancy: String?
    /// Follow-up questions and typed interventions, parsed once by the adapter.
    public var followups: [SuggestedFollowup]
    public var usage: Usage?
    /// The engine's own payload, unchanged, for `--json` and debugging.
    public var raw: JSONValue?

    public init(taskID: String? = nil, outcome: Outcome? = nil, findings: [Finding] = [], text: String,
                confidence: Double? = nil, discrepancy: String? = nil, followups: [SuggestedFollowup] = [],
                textWasStreamed: Bool = false, usage: Usage? = nil, raw: JSONValue? = nil) {
        self.taskID = taskID
        self.text = text
        self.textWasStreamed = textWasStreamed
        self.findings = findings
        self.outcome = outcome
        self.confidence = confidence
        self.discrepancy = discrepancy
        self.followups = followups
        self.usage = usage
        self.raw = raw
    }
}

/// One piece of evidence behind a result.
public struct Finding: Sendable, Hashable, Codable {
    public var content: String
    /// Where it came from: a URL, a file, a tool.
    public var source: String?
    public var confidence: Double?

    public init(content: String, source: String? = nil, confidence: Double? = nil) {
        self.content = content
        self.source = source
        self.confidence = confidence
    }

    /// The finding of a source the answer quoted whole: it names the source without saying
    /// the answer again. A front end that cut the answer leaves it out: it is then not true.
    public static let answerIsWhole = "The answer above is the whole of this section."

    /// True for an `answerIsWhole` finding.
    public var saysTheAnswerIsWhole: Bool { content == Self.answerIsWhole }
}

/// What an answer cost, when the engine says.
public struct Usage: Sendable, Hashable, Codable {
    public var inputTokens: Int?
    public var outputTokens: Int?
    /// Engine-specific units (credits, iterations), named by the engine.
    public var other: [String: Double]

    public init(inputTokens: Int? = nil, outputTokens: Int? = nil, other: [String: Double] = [:]) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.other = other
    }
}
