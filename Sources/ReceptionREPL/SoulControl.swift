import ReceptionCore
import Synchronization

/// What the REPL needs from the personality layer, so it does not depend on how souls
/// are stored or parsed.
public protocol SoulControl: Sendable {
    var currentName: String { get }
    /// The id `names()` lists the current soul under, if it is listed.
    var currentID: String? { get }
    /// What finds the current soul again with `use` in a later session (the conversation
    /// log keeps it for `--continue`): its listed id, else the file it was read from.
    var currentReference: String? { get }
    /// The soul's name, and its id when that differs ("Reception (default)"), for the status
    /// line: cheap, it is on the way to the first prompt.
    var currentLabel: String { get }
    var greeting: String? { get }
    func names() -> [String]
    /// `names()` with how many errors each soul's file has (`/soul` marks those it cannot use).
    func listing() -> [(id: String, errors: Int)]
    /// Switches to a soul by name or path; returns a confirmation line.
    func use(_ nameOrPath: String) throws -> String
    /// The current soul's source, as Markdown.
    func show() -> String
    /// Re-reads the current soul file; returns what happened (lint errors keep the old soul).
    func reload() -> String
    /// Reloads if the file changed on disk since the last check; returns a message if so.
    func reloadIfChanged() -> String?
    /// `/soul why`: what the language-model rewrite stage did with the last answer.
    func why() -> String
}

extension SoulControl {
    public var currentReference: String? { currentID ?? currentName }

    public func listing() -> [(id: String, errors: Int)] { names().map { ($0, 0) } }

    /// The soul's own name, and the id `/soul list` and `reception logs` show it under when
    /// that differs ("Reception (default)", "Ambrose (butler)"): one soul, recognisably the same
    /// everywhere it is named.
    public var currentLabel: String {
        guard let id = currentID, id.lowercased() != currentName.lowercased() else { return currentName }
        return "\(currentName) (\(id))"
    }

    public func why() -> String {
        "The rewrite stage is off: answers show the soul's deterministic rendering. `--rewrite PROFILE` turns it on."
    }
}

/// The names tab completion offers that change while the REPL runs (the current
/// backend's extra commands), shared between the REPL and its line reader.
public final class CompletionWords: Sendable {
    private let commands = Mutex<[BackendCommand]>([])
    public init() {}
    public var extensionCommands: [String] { commands.withLock { $0.map(\.name) } }

    /// The connected backend's commands (replaced when the person switches backend).
    public func use(_ backendCommands: [BackendCommand]) { commands.withLock { $0 = backendCommands } }

    /// What the backend command `name` offers after `arguments`.
    public func arguments(for name: String, _ arguments: [String]) -> [String] {
        guard let command = commands.withLock({ $0.first { $0.name == name } }) else { return [] }
        return command.completions(arguments)
    }
}
