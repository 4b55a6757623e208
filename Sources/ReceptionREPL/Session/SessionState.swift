import ReceptionCore

/// Everything the REPL remembers about this conversation. A value: commands read and
/// change it, and it is easy to inspect in tests.
public struct SessionState: Sendable {
    public var sessionID: String
    public var trustLevel: Int
    /// True once the person picked a level (`--trust`, `/trust`, or yes to a suggestion):
    /// a backend's configured default no longer overrides it.
    public var trustChosenByPerson = false
    public var goal: String?
    /// Labels set with `/intent set`, used for the next message only.
    public var pendingOverride: IntentOverride?
    public var turns: [ConversationTurn] = []
    /// Every message sent, however it ended, for `/history` (see `SentMessage`).
    public var messages: [SentMessage] = []
    /// What was shown, for `/save` (Markdown, in order).
    public var transcript: [TranscriptEntry] = []
    /// The souls this conversation's answers were said in, in order (a switch adds one): what
    /// `/save` heads the transcript with, not only the soul in use when it is saved.
    public var soulsHeard: [String] = []
    /// The last request as the backend received it (after every middleware).
    public var lastRequest: ReceptionRequest?
    /// The same request in the engine's wire format, when the backend has one (for `/request`).
    public var lastWirePayload: JSONValue?
    public var lastFollowups: [String] = []
    /// The last answer's findings as the engine sent them, for `/raw` (a soul may leave them out).
    public var lastFindings: [Finding] = []
    /// The last answer drawn whole, when the soul's limits or brevity left part of it out:
    /// shown by the next "tell me more" instead of asking the engine (see `MoreRequest`).
    public var lastAnswerInFull: [DisplayBlock]?
    /// A trust-level-0 submission waiting for `/approve` or `/reject`.
    public var pendingPlan: PendingPlan?
    public var lastTaskID: String?
    public var commandsUsed: Set<String> = []
    /// Tasks that failed (not cancelled) or could not be sent: a script's exit status says so.
    public var failedTasks = 0
    /// Backends whose queued messages for another server were already pointed out, so the
    /// note comes once per backend, not before every message.
    public var queueElsewhereNoted: Set<String> = []

    public init(sessionID: String, trustLevel: Int) {
        self.sessionID = sessionID
        self.trustLevel = trustLevel
    }

    public var lastClassification: IntentClassification? { lastRequest?.classification }
}

public struct PendingPlan: Sendable {
    public var plan: Plan
    public var request: ReceptionRequest
}

public struct TranscriptEntry: Sendable {
    public enum Speaker: String, Sendable { case person, reception, system }
    public var speaker: Speaker
    public var markdown: String
}
