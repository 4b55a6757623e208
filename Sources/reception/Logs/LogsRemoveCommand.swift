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

    @Flag(name: [.short, .long], help: "Remove with --before or --all without asking; without a terminal to ask at, they remove nothing unless given this.")
    var yes = false

    func validate() throws {
        try LogsCommand.checkID(id)
        guard [id != nil, before != nil, all].filter({ $0 }).count == 1 else {
            throw ValidationError("Name one of: a conversation ID, --before DATE, --all.")
        }
        if let before, LogDate.parse(before) == nil { throw ValidationError(LogDate.usage(before, option: "--before")) }
    }

    func run() throws {
        let log = LogsCommand.log()
        guard log.exists else { return print("The conversation log is empty; there is nothing to remove.") }
        // One cut-off for the question and the removal: "--before 7d" read twice would move
        // while the question waits, and remove what was never counted.
        let cutoff = before.flatMap { LogDate.parse($0) }
        // The cut-off as a moment ("--before 30d" is "before 2026-11-07 18:02"), not as typed.
        let noneRemoved = "No conversation was removed: none \(cutoff.map { "ended before \(ConversationExport.timestamp($0).prefix(16))" } ?? "is in the log")."
        // `last` is the newest conversation's id, looked up once.
        var target = id
        if id == "last" {
            guard let last = try LogsCommand.using(log, { try log.conversation(nil) }) else {
                return print("The conversation log holds no conversation; there is nothing to remove.")
            }
            target = last.id
        }
        // Removing many cannot be undone and one typo ("--before 2099-01-01") takes them all:
        // when a person types the answer, say how many and ask, on the terminal itself (standard
        // error may be a file). A script (standard input not a terminal) is never asked, and
        // removes many only when it says so with --yes: run from cron, over ssh without a
        // terminal or from an editor, an unconfirmed --all would empty the log unseen.
        if id == nil, !yes {
            let count = try LogsCommand.using(log) { try log.countRemovable(before: cutoff) }
            guard count.conversations > 0 else { return print(noneRemoved) }
            let what = "\(Counted.phrase(count.conversations, "conversation")) (\(Counted.phrase(count.exchanges, "exchange")))"
            guard isatty(STDIN_FILENO) == 1 else {
                throw LogsCommand.fail("nothing was removed: this would remove \(what), which cannot be brought back, " +
                                       "and without a terminal there is no one to ask. Add --yes to remove them.")
            }
            // A "y" typed before the question appeared is no answer to it.
            let discarded = TypedAhead.discard() ? "(What was typed before this question was discarded.)\n" : ""
            let question = discarded + "Remove \(what)? They cannot be brought back. [y/N] "
            if let terminal = FileHandle(forWritingAtPath: "/dev/tty") {
                terminal.write(Data(question.utf8))
                try? terminal.close()
            } else {
                StandardStreams.writeError(question)
            }
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
            guard answer == "y" || answer == "yes" else { return print("Nothing was removed.") }
        }
        let removal = try LogsCommand.using(log) { () -> Removal in
            if let target { return try log.remove(conversation: target) }
            if let cutoff { return try log.remove(before: cutoff) }
            return try log.removeAll()
        }
        guard removal.conversations > 0 else { return print(noneRemoved) }
        print("Removed \(Counted.phrase(removal.conversations, "conversation")) (\(Counted.phrase(removal.exchanges, "exchange"))); the file was compacted and holds no text of them.")
        if !removal.walEmptied {
            StandardStreams.writeError("warning: a running Reception is reading the log, so its write-ahead log (\(log.path)-wal) still holds the removed pages until that session writes again or ends.\n")
        }
    }
}
