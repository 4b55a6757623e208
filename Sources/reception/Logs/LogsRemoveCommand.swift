import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionLog

/// `reception logs rm ID|--before DATE|--all`: removes conversations and leaves no text of
/// them in the files.
struct LogsRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Remove a conversation, those before a date, or all; no text of them is left in the files.",
        discussion: """
        The file is compacted afterwards (VACUUM) and its write-ahead log emptied, so the removed text \
        cannot be read back from the database's free pages, its search index or its WAL.
        """)

    @Argument(help: ArgumentHelp("The conversation (its id, or the first characters of it); `last` for the most recent.", valueName: "id"))
    var id: String?

    @Option(name: .long, help: ArgumentHelp("Remove the conversations whose last message was sent before DATE.", valueName: "date"))
    var before: String?

    @Flag(name: .long, help: "Remove every conversation.")
    var all = false

    @Flag(name: [.short, .long], help: "Do not ask before removing with --before or --all at a terminal (without a terminal nothing is asked).")
    var yes = false

    func validate() throws {
        guard [id != nil, before != nil, all].filter({ $0 }).count == 1 else {
            throw ValidationError("Name one of: a conversation ID, --before DATE, --all.")
        }
        if let before, LogDate.parse(before) == nil { throw ValidationError(LogDate.usage(before, option: "--before")) }
    }

    func run() throws {
        let log = LogsCommand.log()
        guard log.exists else { return print("The conversation log is empty; there is nothing to remove.") }
        // Removing many cannot be undone and one typo ("--before 2099-01-01") takes them all:
        // at a terminal, say how many and ask. A script is never asked.
        if id == nil, !yes, isatty(STDIN_FILENO) == 1, isatty(STDERR_FILENO) == 1 {
            let date = before.flatMap { LogDate.parse($0) }
            let count = try LogsCommand.using(log) { try log.countRemovable(before: date) }
            guard count.conversations > 0 else { return print("No conversation was removed: none \(before.map { "ended before \($0)" } ?? "is in the log").") }
            StandardStreams.writeError("Remove \(Counted.phrase(count.conversations, "conversation")) (\(Counted.phrase(count.exchanges, "exchange")))? " +
                                       "They cannot be brought back. [y/N] ")
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
            guard answer == "y" || answer == "yes" else { return print("Nothing was removed.") }
        }
        let removal = try LogsCommand.using(log) { () -> Removal in
            if id == "last", let last = try log.conversation(nil) { return try log.remove(conversation: last.id) }
            if let id { return try log.remove(conversation: id) }
            if let before { return try log.remove(before: LogDate.parse(before)!) }
            return try log.removeAll()
        }
        guard removal.conversations > 0 else { return print("No conversation was removed: none \(before.map { "ended before \($0)" } ?? "is in the log").") }
        print("Removed \(Counted.phrase(removal.conversations, "conversation")) (\(Counted.phrase(removal.exchanges, "exchange"))); the file was compacted and holds no text of them.")
        if !removal.walEmptied {
            StandardStreams.writeError("warning: a running Reception is reading the log, so its write-ahead log (\(log.path)-wal) still holds the removed pages until that session writes again or ends.\n")
        }
    }
}
