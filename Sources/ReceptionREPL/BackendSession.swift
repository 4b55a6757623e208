import ReceptionCore
import Synchronization

/// A backend the REPL can switch to with `/backend NAME`.
public struct BackendEntry: Sendable {
    public var name: String
    public var summary: String
    /// Connects (or starts) the backend; called when the person switches to it.
    public var make: @Sendable () async throws -> BackendSession

    public init(name: String, summary: String, make: @escaping @Sendable () async throws -> BackendSession) {
        self.name = name
        self.summary = summary
        self.make = make
    }
}

/// A connected backend, plus what it adds to the REPL.
public struct BackendSession: Sendable {
    public var backend: any Backend
    /// Extra slash commands (e.g. `/knowledge` for Loop Symphony).
    public var commands: [REPLExtension]
    /// Asked after each result, e.g. a trust-level upgrade suggestion. Nil: nothing to ask.
    public var afterTask: (@Sendable (TaskResponse) async -> REPLQuestion?)?
    /// Called when the REPL leaves this backend (switch or exit), e.g. to deregister a room.
    public var shutdown: @Sendable () async -> Void
    /// The trust level this backend's configuration asks for; used unless the person chose
    /// one (`--trust` or `/trust`).
    public var defaultTrustLevel: Int?

    public init(backend: any Backend, commands: [REPLExtension] = [],
                afterTask: (@Sendable (TaskResponse) async -> REPLQuestion?)? = nil,
                defaultTrustLevel: Int? = nil,
                shutdown: @escaping @Sendable () async -> Void = {}) {
        self.backend = backend
        self.defaultTrustLevel = defaultTrustLevel
        self.commands = commands
        self.afterTask = afterTask
        self.shutdown = shutdown
    }
}

/// An extra slash command a backend brings.
public struct REPLExtension: Sendable {
    /// With the slash, e.g. "/knowledge".
    public var name: String
    /// One line for `/help`.
    public var summary: String
    /// Full help for `/help NAME`.
    public var usage: String
    /// Runs the command; returns Markdown to print.
    public var run: @Sendable (_ arguments: [String]) async throws -> String

    public init(name: String, summary: String, usage: String, run: @escaping @Sendable ([String]) async throws -> String) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.run = run
    }
}

/// A yes/no question put to the person after a task.
public struct REPLQuestion: Sendable {
    public var text: String
    /// When the answer is yes, the REPL also sends this session's next requests at this
    /// trust level (e.g. after accepting an upgrade suggestion).
    public var trustLevel: Int?
    public var onYes: @Sendable () async throws -> String

    public init(text: String, trustLevel: Int? = nil, onYes: @escaping @Sendable () async throws -> String) {
        self.text = text
        self.trustLevel = trustLevel
        self.onYes = onYes
    }
}

/// What the REPL needs from the personality layer, so it does not depend on how souls
/// are stored or parsed.
public protocol SoulControl: Sendable {
    var currentName: String { get }
    var greeting: String? { get }
    func names() -> [String]
    /// Switches to a soul by name or path; returns a confirmation line.
    func use(_ nameOrPath: String) throws -> String
    /// The current soul's source, as Markdown.
    func show() -> String
    /// Re-reads the current soul file; returns what happened (lint errors keep the old soul).
    func reload() -> String
    /// Reloads if the file changed on disk since the last check; returns a message if so.
    func reloadIfChanged() -> String?
}

/// The names tab completion offers that change while the REPL runs (the current
/// backend's extra commands), shared between the REPL and its line reader.
public final class CompletionWords: Sendable {
    private let commands = Mutex<[String]>([])
    public init() {}
    public var extensionCommands: [String] {
        get { commands.withLock { $0 } }
        set { commands.withLock { $0 = newValue } }
    }
}
