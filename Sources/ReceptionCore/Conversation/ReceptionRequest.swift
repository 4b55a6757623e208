import Foundation

/// What travels down the middleware chain and reaches the backend: one message of the
/// conversation, in Reception's own vocabulary. Each adapter maps it to its engine's wire
/// format (Loop Symphony's `POST /task`, a chat-completions body, ...).
///
/// This value is the one place that holds each piece of per-request truth: the trust level,
/// the classification and the conversation so far live here and nowhere else. Middleware
/// changes it outgoing; what the backend received is `Exchange.request`.
public struct ReceptionRequest: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// Send `text` as a new message.
        case submit
        /// Run the plan of an earlier trust-level-0 submission (this request is that submission).
        case approve(taskID: String)
    }

    /// A client-made id, unique per message (engines that take one use it as the task id).
    public var id: String
    public var action: Action
    /// The person's message.
    public var text: String
    /// Earlier turns of this conversation, oldest first.
    public var conversation: [ConversationTurn]
    /// Intent and urgency: filled by the intent middleware (or by code that knows better).
    public var classification: IntentClassification?
    /// 0 supervised (plan first), 1 semi-autonomous, 2 autonomous.
    public var trustLevel: Int
    /// The conversation's goal, when the person set one.
    public var goal: String?
    /// The front end's session (one REPL run).
    public var sessionID: String
    /// Paths or URLs the person attached.
    public var attachments: [String]
    /// The soul's system prompt, for engines that read one (see `BackendCapabilities.systemPrompt`).
    public var systemPrompt: String?
    /// Engine-specific fields, by convention keyed `kind.field` (e.g. `loop-symphony.thoroughness`).
    public var extensions: [String: JSONValue]
    /// True when this request may already have reached the engine (the offline queue sends
    /// it again after an interruption): an engine with `BackendCapabilities.taskLookup` looks
    /// the task up by `id` and follows it if it exists, instead of starting it again.
    public var mayAlreadyExist = false

    public init(id: String = UUID().uuidString.lowercased(), action: Action = .submit, text: String,
                conversation: [ConversationTurn] = [], classification: IntentClassification? = nil,
                trustLevel: Int = 0, goal: String? = nil, sessionID: String = "", attachments: [String] = [],
                systemPrompt: String? = nil, extensions: [String: JSONValue] = [:]) {
        self.id = id
        self.action = action
        self.text = text
        self.conversation = conversation
        self.classification = classification
        self.trustLevel = trustLevel
        self.goal = goal
        self.sessionID = sessionID
        self.attachments = attachments
        self.systemPrompt = systemPrompt
        self.extensions = extensions
    }

    /// The intent as engines receive it: derived from `classification`, never stored apart.
    public var intent: Intent? { classification?.wireIntent }

    /// The turn just before this message.
    public var previousTurn: ConversationTurn? { conversation.last }
}

/// The request as `/request` and `--json` show it: what an engine is told, with the intent
/// in its wire form (the classifier's explanations are for `/intent`, not for engines).
extension ReceptionRequest: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, action, text, intent, trustLevel = "trust_level", goal, sessionID = "session_id", conversation
        case attachments, systemPrompt = "system_prompt", extensions, mayAlreadyExist = "may_already_exist"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        switch action {
        case .submit: try c.encode("submit", forKey: .action)
        case .approve(let taskID): try c.encode("approve \(taskID)", forKey: .action)
        }
        try c.encode(text, forKey: .text)
        try c.encodeIfPresent(intent, forKey: .intent)
        try c.encode(trustLevel, forKey: .trustLevel)
        try c.encodeIfPresent(goal, forKey: .goal)
        try c.encode(sessionID, forKey: .sessionID)
        try c.encode(conversation, forKey: .conversation)
        if !attachments.isEmpty { try c.encode(attachments, forKey: .attachments) }
        try c.encodeIfPresent(systemPrompt, forKey: .systemPrompt)
        if !extensions.isEmpty { try c.encode(extensions, forKey: .extensions) }
        if mayAlreadyExist { try c.encode(true, forKey: .mayAlreadyExist) }
    }
}
