/// Facts about a request that middleware reads but the backend is not sent, passed by
/// value down the chain (Hummingbird's request context, in spirit). A middleware that
/// changes it changes it for the middleware after it, never for the caller.
public struct ReceptionContext: Sendable, Hashable {
    /// Intent and/or urgency the person set by hand for this message (`/intent set`).
    public var intentOverride: IntentOverride?
    /// The backend the request is going to (set by the pipeline).
    public var backend: BackendDescriptor?
    /// Free-form values for custom middleware.
    public var values: [String: String]

    public init(intentOverride: IntentOverride? = nil, backend: BackendDescriptor? = nil, values: [String: String] = [:]) {
        self.intentOverride = intentOverride
        self.backend = backend
        self.values = values
    }
}

/// One exchange of the conversation, as middleware and backends need to remember it.
public struct ConversationTurn: Sendable, Hashable, Codable {
    /// What the person wrote.
    public var query: String
    public var intent: IntentType?
    public var urgency: UrgencyLevel?
    public var outcome: Outcome?
    /// The answer's text as the engine gave it (before the soul styled it).
    public var summary: String?
    /// The note sent after the person's words (`ReceptionRequest.answerGuidance`), as it was
    /// first sent: a language model is sent the turn again byte for byte, so that a server's
    /// prompt cache still holds it and only the new message is read.
    public var guidance: String?

    public init(query: String, intent: IntentType? = nil, urgency: UrgencyLevel? = nil, outcome: Outcome? = nil, summary: String? = nil,
                guidance: String? = nil) {
        self.query = query
        self.intent = intent
        self.urgency = urgency
        self.outcome = outcome
        self.summary = summary
        self.guidance = guidance
    }

    /// The turn `request` became, with what came back.
    public init(asked request: ReceptionRequest, outcome: Outcome?, summary: String?) {
        self.init(query: request.text, intent: request.classification?.intent, urgency: request.classification?.urgency,
                  outcome: outcome, summary: summary, guidance: request.answerGuidance)
    }

    /// The message as a language model was sent it: the person's words, then the note.
    public var queryAsSent: String { guidance.map { query + "\n\n" + $0 } ?? query }
}

/// Labels the person chose by hand; either may be left to the classifier.
public struct IntentOverride: Sendable, Hashable, Codable {
    public var intent: IntentType?
    public var urgency: UrgencyLevel?

    public init(intent: IntentType? = nil, urgency: UrgencyLevel? = nil) {
        self.intent = intent
        self.urgency = urgency
    }
}
