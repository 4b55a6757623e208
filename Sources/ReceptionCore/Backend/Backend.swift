/// A problem-solving engine that Reception talks to.
///
/// As small as swift-log's `LogHandler`: submit a request and read typed events from the
/// returned stream. Everything else is optional and advertised through `capabilities`,
/// so the REPL only offers `/approve` or `/cancel` where the backend can do them.
///
/// ## The event contract
/// A stream from `submit` or `approve`:
/// 1. usually starts with `.accepted` (the engine's id for the task, used by `cancel`);
/// 2. then any number of `.status`, `.progress`, `.thinking`, `.toolUse`,
///    `.permissionRequest` and `.textDelta` events, in the order the engine produced them;
/// 3. ends with **exactly one** terminal event, `.result`, `.failure` or (at trust level 0,
///    from `submit` only) `.planAwaitingApproval`, after which the stream finishes. (Middleware
///    may also end a stream with `.queued`: the request was held to be sent later.)
///
/// - A backend that streamed its answer as `.textDelta` still ends with `.result`, whose
///   `text` is the whole answer and whose `textWasStreamed` is true, so front ends never
///   print it twice and history always has it.
/// - Cancelling the consuming task stops the work. If the stream is still read, it ends with
///   `.failure` whose `cancelled` is true; `cancel(taskID:)` ends the task the same way.
/// - A transport problem (unreachable server, broken connection) finishes the stream by
///   throwing a `BackendError`; a task the engine itself failed is a `.failure` event.
///
/// `ReceptionTesting`'s `BackendConformance` checks these rules against a live backend.
public protocol Backend: Sendable {
    /// Name, transport and what this backend supports.
    var descriptor: BackendDescriptor { get }

    /// Sends a request and streams what the engine does with it.
    func submit(_ request: ReceptionRequest) -> BackendEventStream

    /// Runs a plan that was awaiting approval and streams its execution.
    func approve(taskID: String) -> BackendEventStream

    /// Discards a plan that was awaiting approval.
    func reject(taskID: String) async throws

    /// Asks the backend to stop a running task.
    func cancel(taskID: String) async throws

    /// Answers a `.permissionRequest` the backend raised during a task.
    func answer(_ answer: PermissionAnswer) async throws

    /// The request as this engine's wire format would carry it (for `/request`); nil when
    /// the backend has no wire format of its own.
    func wirePayload(for request: ReceptionRequest) -> JSONValue?
}

public typealias BackendEventStream = AsyncThrowingStream<BackendEvent, any Error>

extension Backend {
    public func approve(taskID: String) -> BackendEventStream {
        BackendEventStream { $0.finish(throwing: BackendError.unsupported(operation: "approve", backend: descriptor.name)) }
    }

    public func reject(taskID: String) async throws {
        throw BackendError.unsupported(operation: "reject", backend: descriptor.name)
    }

    public func cancel(taskID: String) async throws {
        throw BackendError.unsupported(operation: "cancel", backend: descriptor.name)
    }

    public func answer(_ answer: PermissionAnswer) async throws {
        throw BackendError.unsupported(operation: "answer permission requests", backend: descriptor.name)
    }

    public func wirePayload(for request: ReceptionRequest) -> JSONValue? { nil }
}

/// What a backend is and what it can do.
public struct BackendDescriptor: Sendable, Hashable, Codable {
    /// The name people type: `local`, `loop-symphony`, a profile name, ...
    public var name: String
    /// One line for `/backend`: where it lives and how we reach it.
    public var summary: String
    public var capabilities: BackendCapabilities
    /// The server requests go to, as shown (a password in it masked, no trailing `/`); nil
    /// for a backend with no server. A message queued while the server was unreachable waits
    /// for this server, not only for the name: a profile pointed elsewhere before the message
    /// was sent must not deliver it to a server it was never meant for.
    public var endpoint: String?

    public init(name: String, summary: String, capabilities: BackendCapabilities, endpoint: String? = nil) {
        self.name = name
        self.summary = summary
        self.capabilities = capabilities
        self.endpoint = endpoint.map(Self.endpointKey)
    }

    /// The one rule for queued messages: a message queued for the profile `name` while it
    /// pointed at `destination` (nil: not recorded, an older queue) may go to the backend
    /// called `backend` at `endpoint` only when both the name and the server are the same.
    public static func queued(for name: String, at destination: String?, goesTo backend: String, at endpoint: String?) -> Bool {
        name == backend && (destination == nil || destination == endpoint)
    }

    /// One spelling per server, so `http://h:1/v1/` and `http://h:1/v1` are the same one.
    static func endpointKey(_ url: String) -> String {
        var shown = RedactedURL.display(url.trimmingCharacters(in: .whitespaces))
        while shown.hasSuffix("/") { shown.removeLast() }
        return shown
    }
}

/// Features a backend supports beyond `submit`.
public struct BackendCapabilities: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Honours trust levels: level 0 returns a plan that `approve` runs.
    public static let planApproval = BackendCapabilities(rawValue: 1 << 0)
    /// `cancel(taskID:)` stops a running task.
    public static let cancellation = BackendCapabilities(rawValue: 1 << 1)
    /// Raises `.permissionRequest` and accepts `answer(_:)`.
    public static let permissionRequests = BackendCapabilities(rawValue: 1 << 2)
    /// Streams `.textDelta` chunks before the result.
    public static let textStreaming = BackendCapabilities(rawValue: 1 << 3)
    /// Emits iteration `.progress` events while it works.
    public static let progress = BackendCapabilities(rawValue: 1 << 4)
    /// Uses the request's intent to choose its strategy.
    public static let intentAware = BackendCapabilities(rawValue: 1 << 5)
    /// Adds interventions to its follow-ups.
    public static let interventions = BackendCapabilities(rawValue: 1 << 6)
    /// Reads `ReceptionRequest.systemPrompt` (language-model engines): the REPL renders the
    /// soul's prompt for it. The adapter sends `ReceptionRequest.answerGuidance` after the
    /// conversation, with the message.
    public static let systemPrompt = BackendCapabilities(rawValue: 1 << 7)
    /// Sends `ReceptionRequest.conversation` to the engine as chat messages of its own
    /// (OpenAI-compatible servers), so the soul's system prompt leaves the conversation out
    /// rather than spend the model's context on it twice.
    public static let conversationMessages = BackendCapabilities(rawValue: 1 << 8)
    /// Takes `ReceptionRequest.id` as the task's id and honours `ReceptionRequest.mayAlreadyExist`:
    /// it looks a task with that id up and follows it instead of starting it a second time, so
    /// a request sent again after a crash reaches the engine once (the offline queue relies on it).
    public static let taskLookup = BackendCapabilities(rawValue: 1 << 9)

    public static let names: [(BackendCapabilities, String)] = [
        (.planApproval, "plan approval"), (.cancellation, "cancel"), (.permissionRequests, "permission requests"),
        (.textStreaming, "streamed text"), (.progress, "progress"), (.intentAware, "intent"),
        (.interventions, "interventions"), (.systemPrompt, "system prompt"),
        (.conversationMessages, "conversation as messages"), (.taskLookup, "task lookup by id"),
    ]

    /// Human-readable list, e.g. "plan approval, cancel, progress".
    public var summary: String {
        let parts = Self.names.filter { contains($0.0) }.map(\.1)
        return parts.isEmpty ? "submit only" : parts.joined(separator: ", ")
    }
}
