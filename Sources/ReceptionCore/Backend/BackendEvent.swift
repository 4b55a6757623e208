/// What a backend reports while it works on a request.
public enum BackendEvent: Sendable, Hashable {
    /// The backend took the request and gave it an id.
    case accepted(taskID: String, status: TaskStatus)
    /// Trust level 0: nothing runs until the person approves (or rejects) this plan.
    case planAwaitingApproval(Plan)
    /// The task moved to a new status.
    case status(taskID: String, status: TaskStatus)
    /// An iteration or phase finished.
    case progress(TaskProgress)
    /// A chunk of streamed answer text. The chunks concatenate to the answer.
    case textDelta(String)
    /// What the engine is doing before it answers ("thinking…"): for a status line, not the answer.
    case thinking(String)
    /// The backend is using a tool.
    case toolUse(ToolUse)
    /// The backend needs the person's permission before it goes on.
    case permissionRequest(PermissionRequest)
    /// The final, personality-agnostic result.
    case result(BackendResult)
    /// The task failed or was cancelled.
    case failure(TaskFailure)
    /// The request was not delivered: it is held to be sent later (the offline queue holds it
    /// durably while the backend is unreachable). Terminal: nothing else comes for it now.
    case queued(QueuedNotice)

    /// True for the events after which a stream ends.
    public var isTerminal: Bool {
        switch self {
        case .result, .failure, .planAwaitingApproval, .queued: true
        default: false
        }
    }
}

public struct TaskProgress: Sendable, Hashable, Codable {
    public var taskID: String
    public var iteration: Int?
    public var phase: String?
    /// A short line for people, e.g. "searched 3 knowledge files".
    public var message: String
    /// A source the line names after its message ("capabilities.md § Writing your own soul"):
    /// shown as sent, where a soul restyles the message (a soul that replaces "soul" with
    /// "figurehead" renamed the section it pointed to).
    public var source: String?
    public var durationMS: Int?
    /// The backend's own detail, as sent.
    public var data: JSONValue?

    public init(taskID: String, iteration: Int? = nil, phase: String? = nil, message: String, source: String? = nil,
                durationMS: Int? = nil, data: JSONValue? = nil) {
        self.taskID = taskID
        self.iteration = iteration
        self.phase = phase
        self.message = message
        self.source = source
        self.durationMS = durationMS
        self.data = data
    }

    /// The message with its source: the line as shown without a soul.
    public var line: String { line(styling: { $0 }) }

    /// The line with the message restyled (by a soul) and the source as sent.
    public func line(styling style: (String) -> String) -> String {
        source.map { style(message) + " " + $0 } ?? style(message)
    }
}

public struct ToolUse: Sendable, Hashable, Codable {
    public var name: String
    public var input: JSONValue?

    public init(name: String, input: JSONValue? = nil) {
        self.name = name
        self.input = input
    }
}

public struct PermissionRequest: Sendable, Hashable, Codable {
    public var id: String
    public var tool: String?
    public var description: String
    public var input: JSONValue?

    public init(id: String, tool: String? = nil, description: String, input: JSONValue? = nil) {
        self.id = id
        self.tool = tool
        self.description = description
        self.input = input
    }
}

public struct PermissionAnswer: Sendable, Hashable, Codable {
    /// How long a yes holds. Engines that cannot remember a yes treat every one as `.once`.
    public enum Scope: String, Sendable, Hashable, Codable, CaseIterable {
        /// This one use of the tool.
        case once
        /// Every use of the same tool for the rest of the session.
        case session
    }

    public var requestID: String
    public var approved: Bool
    /// Meaningful only when `approved`; a no is always for this request alone.
    public var scope: Scope

    public init(requestID: String, approved: Bool, scope: Scope = .once) {
        self.requestID = requestID
        self.approved = approved
        self.scope = scope
    }

    enum CodingKeys: String, CodingKey { case requestID, approved, scope }

    /// An answer written before `scope` existed reads as `.once`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        requestID = try c.decode(String.self, forKey: .requestID)
        approved = try c.decode(Bool.self, forKey: .approved)
        scope = try c.decodeIfPresent(Scope.self, forKey: .scope) ?? .once
    }
}

public struct TaskFailure: Sendable, Hashable, Codable {
    public var taskID: String?
    /// What went wrong, in words a person can act on.
    public var message: String
    public var cancelled: Bool

    public init(taskID: String? = nil, message: String, cancelled: Bool = false) {
        self.taskID = taskID
        self.message = message
        self.cancelled = cancelled
    }
}

/// A request held back for later delivery (see `BackendEvent.queued`).
public struct QueuedNotice: Sendable, Hashable, Codable {
    /// The request's id (`ReceptionRequest.id`), which the engine will receive as the task id.
    public var requestID: String
    /// How many requests wait for this backend, this one included.
    public var waiting: Int
    /// Why it was not sent now, e.g. "Cannot reach http://127.0.0.1:8765/task: connection refused".
    public var reason: String
    /// What to tell the person, in plain words.
    public var message: String
    /// Why it waits, for a front end deciding what to do next (nil: the backend is unreachable).
    public var cause: Cause?

    /// Why a request waits in the queue instead of being sent now.
    public enum Cause: String, Sendable, Hashable, Codable {
        /// The backend could not be reached.
        case unreachable
        /// Older messages for the backend are being delivered now; it goes after them.
        case behindOlderMessages
        /// Another session is sending this queued message now.
        case sentByAnotherSession
        /// An earlier attempt may have arrived, and the engine cannot check.
        case mayHaveArrived
    }

    public init(requestID: String, waiting: Int, reason: String, message: String, cause: Cause? = nil) {
        self.requestID = requestID
        self.waiting = waiting
        self.reason = reason
        self.message = message
        self.cause = cause
    }
}
