/// A connected backend, plus what it adds to a front end.
public struct BackendConnection: Sendable {
    public var backend: any Backend
    /// Extra commands (e.g. `/knowledge` for Loop Symphony).
    public var commands: [BackendCommand]
    /// Asked after each result, e.g. a trust-level upgrade suggestion. Nil: nothing to ask.
    public var afterTask: (@Sendable (BackendResult) async -> BackendQuestion?)?
    /// The trust level this backend's configuration asks for; used unless the person chose
    /// one (`--trust` or `/trust`).
    public var defaultTrustLevel: Int?
    /// Something the person should know about this connection, shown once when it opens
    /// (e.g. that the server refused a default key and the session goes on without one).
    public var notice: String?
    /// A problem that stops nothing, shown once when the connection opens as a warning (on
    /// standard error in a script, so its output holds only answers): files the engine could
    /// not read, say.
    public var warning: String?
    /// Called when the front end leaves this backend (switch or exit), e.g. to deregister a room.
    public var shutdown: @Sendable () async -> Void
    /// What the engine keeps of a conversation beyond its turns, for a front end that carries
    /// conversations across sessions; nil when the turns are all it needs.
    public var continuity: ConversationContinuity?
    /// Given the trust level the session starts at and whether the person chose it (`--trust`),
    /// what to say when the server keeps another level for this user (nil: they agree, or the
    /// backend has no such record). The session's level is not changed: an explicit level wins.
    public var trustLevelDisagreement: (@Sendable (_ sessionLevel: Int, _ chosenByPerson: Bool) -> String?)?

    public init(backend: any Backend, commands: [BackendCommand] = [],
                afterTask: (@Sendable (BackendResult) async -> BackendQuestion?)? = nil,
                defaultTrustLevel: Int? = nil, notice: String? = nil, continuity: ConversationContinuity? = nil,
                trustLevelDisagreement: (@Sendable (_ sessionLevel: Int, _ chosenByPerson: Bool) -> String?)? = nil,
                shutdown: @escaping @Sendable () async -> Void = {}, warning: String? = nil) {
        self.backend = backend
        self.warning = warning
        self.commands = commands
        self.afterTask = afterTask
        self.defaultTrustLevel = defaultTrustLevel
        self.notice = notice
        self.continuity = continuity
        self.trustLevelDisagreement = trustLevelDisagreement
        self.shutdown = shutdown
    }
}

/// What an engine keeps of a conversation beyond the turns every request carries (Friday's
/// session id, TIMEPOINT's scene), so that a conversation resumed in a later session goes on
/// where it was, and so that starting a new one also starts it afresh on the engine's side.
///
/// `state` is written to the conversation log: short values, never a key, a token or a password.
public struct ConversationContinuity: Sendable {
    /// The engine's side of the conversation now, as short named values (`friday.session_id`,
    /// `timepoint.scene_id`; `model` names the model a language model answered with).
    public var state: @Sendable () -> [String: String]
    /// Picks the conversation up again from a `state` an earlier session kept; returns what
    /// to tell the person (nil: nothing worth saying). Names it does not know are ignored.
    public var resume: @Sendable (_ state: [String: String]) async throws -> String?
    /// Forgets the conversation on the engine's side (the REPL's `/new`); returns what to tell the person.
    public var startOver: @Sendable () async throws -> String?

    public init(state: @escaping @Sendable () -> [String: String],
                resume: @escaping @Sendable ([String: String]) async throws -> String? = { _ in nil },
                startOver: @escaping @Sendable () async throws -> String? = { nil }) {
        self.state = state
        self.resume = resume
        self.startOver = startOver
    }
}

/// An extra command a backend brings, e.g. `/knowledge`.
public struct BackendCommand: Sendable {
    /// With the slash, e.g. "/knowledge".
    public var name: String
    /// The arguments in brief, e.g. "[active | recent [N]]", shown after the name in `/help`
    /// the way the REPL's own commands show theirs; the full form is in `usage`.
    public var arguments: String
    /// One line for `/help`.
    public var summary: String
    /// Full help for `/help NAME`.
    public var usage: String
    /// Runs the command; returns Markdown to print. Throwing shows the error and keeps the session.
    public var run: @Sendable (_ arguments: [String]) async throws -> String
    /// Words tab completion offers after the command, given the words typed so far (without
    /// the command). Called on every Tab press, so it must answer from memory, never the network.
    public var completions: @Sendable (_ arguments: [String]) -> [String]
    /// For a command that shows things as they happen (a live view that runs until Ctrl-C):
    /// a front end that can print while it runs calls this instead of `run`, and cancels the
    /// task on Ctrl-C. Nil for ordinary commands.
    public var live: (@Sendable (_ arguments: [String], _ output: CommandOutput) async throws -> String)?
    /// True for a command that is itself a turn of the conversation (TIMEPOINT's `/chat`): a
    /// front end keeps what was typed and the answer in the transcript a person saves, as it
    /// does for messages. Status and listing commands (`/tasks`, `/credits`) are not kept.
    public var inTranscript = false

    public init(name: String, arguments: String = "", summary: String, usage: String,
                completions: @escaping @Sendable ([String]) -> [String] = { _ in [] },
                run: @escaping @Sendable ([String]) async throws -> String) {
        self.name = name
        self.arguments = arguments
        self.summary = summary
        self.usage = usage
        self.completions = completions
        self.run = run
    }

    /// A command that prints as it goes. `run` (for callers without a live output) gets
    /// an output that keeps nothing and says it is not interactive.
    public init(name: String, arguments: String = "", summary: String, usage: String,
                completions: @escaping @Sendable ([String]) -> [String] = { _ in [] },
                live: @escaping @Sendable ([String], CommandOutput) async throws -> String) {
        self.init(name: name, arguments: arguments, summary: summary, usage: usage, completions: completions) { arguments in
            try await live(arguments, CommandOutput(interactive: false) { _ in })
        }
        self.live = live
    }

    /// The same command, kept in the transcript (see `inTranscript`).
    public func keptInTranscript() -> BackendCommand {
        var command = self
        command.inTranscript = true
        return command
    }
}

/// Where a live command prints while it runs. The front end treats the text as it treats
/// any text from a server (cleaned of escape sequences, rendered as Markdown).
public struct CommandOutput: Sendable {
    /// False when input is not a terminal: a live view shows what there is and returns
    /// instead of waiting for a Ctrl-C a script cannot type.
    public let interactive: Bool
    private let emit: @Sendable (String) -> Void
    private let emitPlain: @Sendable (String) -> Void

    /// `plain` prints text as it is (cleaned, not read as Markdown); nil: through `emit`.
    public init(interactive: Bool, _ emit: @escaping @Sendable (String) -> Void, plain: (@Sendable (String) -> Void)? = nil) {
        self.interactive = interactive
        self.emit = emit
        self.emitPlain = plain ?? emit
    }

    /// Prints Markdown now.
    public func callAsFunction(_ markdown: String) { emit(markdown) }

    /// Prints a line as it is, for text from a server (a `*` or a backtick in it stays).
    public func plain(_ text: String) { emitPlain(text) }
}

/// A yes/no question put to the person after a task.
public struct BackendQuestion: Sendable {
    public var text: String
    /// When the answer is yes, the front end also sends this session's next requests at this
    /// trust level (e.g. after accepting an upgrade suggestion).
    public var trustLevel: Int?
    /// How a person answers yes by typing commands instead (e.g. `/trust-metrics set 1`): a
    /// front end whose input is not a terminal never asks, it shows the question and this.
    public var answerCommand: String?
    public var onYes: @Sendable () async throws -> String

    public init(text: String, trustLevel: Int? = nil, answerCommand: String? = nil, onYes: @escaping @Sendable () async throws -> String) {
        self.text = text
        self.trustLevel = trustLevel
        self.answerCommand = answerCommand
        self.onYes = onYes
    }
}
