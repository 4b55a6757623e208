import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionLog
import ReceptionQueue
import ReceptionREPL

/// `reception queue`: the offline queue without a session. A chat session sends a backend's
/// queued messages as soon as it starts, before anything can be typed; this is the way to
/// read them, or drop one, first. It never sends anything and never creates the queue file.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List or drop messages queued while a backend was unreachable, without sending them.",
        discussion: """
        A chat session sends a backend's queued messages, oldest first, when it starts or switches to that \
        backend; run this first to see what waits, or to drop messages that should not go. Entries are \
        numbered as in the REPL's /queue. The queue is $XDG_STATE_HOME/reception/queue.sqlite \
        (default ~/.local/state/reception/queue.sqlite).
        """)

    @Argument(help: ArgumentHelp("list (the default), or drop N|all.", valueName: "action"))
    var action: [String] = []

    func validate() throws {
        switch action.first?.lowercased() {
        case nil, "list": guard action.count <= 1 else { throw ValidationError("list takes no arguments.") }
        case "drop":
            guard action.count == 2, action[1].lowercased() == "all" || Int(action[1]).map({ $0 >= 1 }) == true else {
                throw ValidationError("Usage: reception queue drop N|all (N as reception queue numbers them).")
            }
        default: throw ValidationError("Unknown action \(TerminalText.line(action[0], limit: 40)): use list or drop N|all.")
        }
    }

    func run() throws {
        let path = OfflineQueueControl.path(environment: PluginEnvironment.standard())
        let queue: OfflineQueue
        do { queue = try OfflineQueue(path: path) } catch {
            return try fail("The offline queue \(path) cannot be opened: \(PlainFile.reason(of: error))")
        }
        if let problem = queue.problem { StandardStreams.writeError("warning: \(problem)\n") }
        let items = try OfflineQueueControl(queue: queue).items()
        guard action.first?.lowercased() == "drop" else {
            StandardStreams.write(items.isEmpty ? "The offline queue is empty.\n"
                                                : QueueListing.render(items, current: nil, profiles: Self.profiles(items))
                                                  + "\nreception queue drop N|all forgets entries.\n")
            return
        }
        guard !items.isEmpty else {
            StandardStreams.write("The offline queue is empty; there is nothing to drop.\n")
            return
        }
        guard let chosen = QueueListing.choose(action[1], in: items) else {
            return try fail("There is no queued message \(TerminalText.line(action[1], limit: 40)); the queue holds \(items.count) (reception queue lists them).")
        }
        // One a running session is sending now may already be with the engine: dropping it
        // here forgets it, it does not stop it.
        for entry in try queue.entries() where chosen.contains(where: { $0.id == entry.id }) && entry.state == .sending {
            if let owner = entry.ownerPID, OfflineQueue.isAlive(owner) {
                StandardStreams.writeError("warning: “\(TerminalText.line(entry.request.text, limit: 60))” is being sent by a running Reception (process \(owner)); dropping it here does not stop it on the server.\n")
            }
        }
        let dropped = try OfflineQueueControl(queue: queue).drop(chosen.map(\.id))
        // Their exchanges in the log are no longer "queued": they will never be sent. (A log
        // turned off with `reception logs off` is left alone; it holds what it held.)
        if !LogSwitch(path: LogSwitch.path(in: .standard())).isOff {
            let log = LogsCommand.log()
            if log.exists { try? log.enqueueDropped(chosen.map(\.id)) }
        }
        StandardStreams.write(QueueListing.dropped(dropped, of: items.count) + "\n")
    }

    /// Where each queued message's profile points now (read from the configuration; no
    /// connection made, no key read), so an entry written for another server, or for a profile
    /// that is gone, says so. A configuration that does not load only leaves that out: the
    /// listing is still wanted.
    static func profiles(_ items: [QueuedItem]) -> [String: ProfileEndpoint] {
        guard let catalog = try? BackendSetup.catalog() else { return [:] }
        var profiles: [String: ProfileEndpoint] = [:]
        for name in Set(items.map(\.backend)) { profiles[name] = catalog.endpoint(of: name) }
        return profiles
    }

    /// A problem found while running: said on stderr, exit status 1 (usage errors are 64).
    private func fail(_ message: String) throws {
        StandardStreams.writeError("error: \(message)\n")
        throw ExitCode(1)
    }
}
