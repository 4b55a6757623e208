/// What travels down the middleware chain to a backend.
public struct ReceptionRequest: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// Send `task` as a new request.
        case submit
        /// Run the plan of an earlier trust-level-0 submission; `task` is that submission.
        case approve(taskID: String)
    }

    /// The wire request; outgoing middleware enriches it (intent, context).
    public var task: TaskRequest
    public var action: Action
    /// Filled by the intent middleware; nil until then.
    public var classification: IntentClassification?

    public init(task: TaskRequest, action: Action = .submit, classification: IntentClassification? = nil) {
        self.task = task
        self.action = action
        self.classification = classification
    }

    /// The person's message.
    public var text: String { task.query }
}
