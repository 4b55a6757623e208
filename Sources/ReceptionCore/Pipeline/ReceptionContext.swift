/// Per-request facts that middleware reads, passed by value down the chain
/// (Hummingbird's request context, in spirit). A middleware that changes it changes it
/// for the middleware after it, never for the caller.
public struct ReceptionContext: Sendable, Hashable {
    public var sessionID: String
    /// Earlier turns of this conversation, oldest first.
    public var history: [ConversationTurn]
    /// The trust level the person chose (0 supervised, 1 semi-autonomous, 2 autonomous).
    public var trustLevel: Int
    /// Intent and/or urgency the person set by hand for this message (`/intent set`).
    public var intentOverride: IntentOverride?
    /// The backend the request is going to.
    public var backend: BackendDescriptor?
    /// Free-form values for custom middleware.
    public var values: [String: String]

    public init(sessionID: String, history: [ConversationTurn] = [], trustLevel: Int = 0,
                intentOverride: IntentOverride? = nil, backend: BackendDescriptor? = nil, values: [String: String] = [:]) {
        self.sessionID = sessionID
        self.history = history
        self.trustLevel = trustLevel
        self.intentOverride = intentOverride
        self.backend = backend
        self.values = values
    }

    public var previousTurn: ConversationTurn? { history.last }
}

/// One exchange of the conversation, as middleware and backends need to remember it.
public struct ConversationTurn: Sendable, Hashable, Codable {
    public var query: String
    public var intent: IntentType?
    public var urgency: UrgencyLevel?
    public var outcome: Outcome?
    public var summary: String?

    public init(query: String, intent: IntentType? = nil, urgency: UrgencyLevel? = nil, outcome: Outcome? = nil, summary: String? = nil) {
        self.query = query
        self.intent = intent
        self.urgency = urgency
        self.outcome = outcome
        self.summary = summary
    }
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
