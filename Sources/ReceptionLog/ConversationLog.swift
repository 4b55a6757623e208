import Foundation
import GRDB
import ReceptionCore
import ReceptionStorage

/// Every conversation held in the REPL, in SQLite: each conversation (where, with which soul
/// and model) and each exchange (the message as typed, its classification, the answer as
/// shown and the engine's own words, how it ended, the engine's ids, timings, tokens), with
/// full-text search over what was typed and shown.
///
/// **Files.** One database at `$XDG_DATA_HOME/reception/conversations.sqlite` (`path(in:)`),
/// 0600 in a 0700 folder, in WAL mode, so that two REPLs write to it at once (one waits for
/// the other's commit, a few microseconds) and `reception logs` reads while they write.
///
/// **Nothing shown is lost.** An exchange is written when the message has gone out, again as
/// each piece of a streamed answer is about to be printed (`enqueueShown`, written first), and
/// when it ends. Pending lines and commits (`synchronous = NORMAL`, in WAL mode) survive the
/// process being killed at any moment (a power cut may lose the last ones). An exchange left
/// open by a process that is gone is closed as `interrupted`, with what it had shown, by the
/// next process that reads the log.
///
/// **Nothing secret.** Every text written has the session's secrets (the keys and passwords its
/// profiles name, `redacting`) replaced by `[secret]`, and servers are kept without the user
/// name, password or query of their URL. Deleted text is overwritten (`secure_delete`), and the
/// removals of `reception logs rm` compact the file and empty its WAL (see `+Removing`).
///
/// **Sessions do not load SQLite.** The REPL appends what it logs to a pending file of its own
/// (`enqueue`, `+Pending`), which the next process that reads the log moves into the database
/// (`+Folding`). The database is opened on first read, never at start.
public final class ConversationLog: @unchecked Sendable {
    public let path: String
    let options: PrivateDatabase.Options
    /// Texts never written: replaced by `[secret]` wherever they occur.
    let secrets: [String]
    /// Guards `opened`, `seqByID` and `pending`.
    let lock = NSLock()
    nonisolated(unsafe) var opened: DatabaseQueue?
    /// This process's pending file, once it wrote a line (`+Pending`).
    nonisolated(unsafe) var pending: PendingWriter?
    /// The row number of each exchange this process wrote, so a streamed piece needs no lookup.
    nonisolated(unsafe) var seqByID: [String: Int64] = [:]

    /// `busyTimeout`: how long a write waits for another process's lock before it fails (the
    /// REPL waits a moment, then stops logging rather than hold the answer up).
    public init(path: String, redacting secrets: [String] = [], busyTimeout: TimeInterval = 5, readOnly: Bool = false) {
        self.path = path
        // A short value would blank ordinary words; keys and passwords are longer than this.
        self.secrets = Array(Set(secrets.filter { $0.count >= 6 })).sorted { $0.count > $1.count }
        options = PrivateDatabase.Options(busyTimeout: busyTimeout, durableCommits: false, cacheKiB: 512, secureDelete: true,
                                          readOnly: readOnly)
    }

    /// `$XDG_DATA_HOME/reception/conversations.sqlite`.
    public static func path(in environment: PluginEnvironment) -> String {
        environment.dataDirectory + "/conversations.sqlite"
    }

    /// True when there is a log: the file, or lines sessions wrote for it (asking opens nothing).
    public var exists: Bool { FileManager.default.fileExists(atPath: path) || hasPending }

    /// The open database, with what sessions left pending moved in: opened, created and
    /// migrated on first use. A process that can write closes the exchanges that processes
    /// killed mid-answer left open.
    func database() throws -> DatabaseQueue {
        try lock.withLock {
            let database: DatabaseQueue
            var first = false
            if let opened {
                database = opened
            } else {
                database = try PrivateDatabase.open(path: path, options: options, migrations: Self.migrations)
                opened = database
                first = true
            }
            guard !options.readOnly else { return database }
            if try foldPending(into: database) > 0 || first { try Self.closeInterrupted(in: database) }
            return database
        }
    }

    /// A reading database, or nil when there is no log yet (reading never creates one).
    func existingDatabase() throws -> DatabaseQueue? {
        if lock.withLock({ opened != nil }) || path == ":memory:" || exists { return try database() }
        return nil
    }

    /// `text` with every secret replaced.
    func scrub(_ text: String) -> String {
        secrets.reduce(text) { $0.contains($1) ? $0.replacingOccurrences(of: $1, with: "[secret]") : $0 }
    }

    func scrub(_ text: String?) -> String? { text.map(scrub) }

    /// Text that is read, searched and exported as it was shown: scrubbed, and without escape
    /// sequences or control characters (newlines and tabs stay). A message that held
    /// `ESC [31m red` was found by `31mred` and not by "red", and hidden payloads (a window
    /// title, a link's target) were found though nobody saw them.
    func readable(_ text: String) -> String {
        TerminalText.clean(scrub(text))
    }

    /// `conversation` with every text that can hold a secret scrubbed.
    func scrubbed(_ conversation: ConversationRecord) -> ConversationRecord {
        var scrubbed = conversation
        scrubbed.endpoint = scrub(conversation.endpoint)
        scrubbed.title = readable(conversation.title)
        return scrubbed
    }

    /// `exchange` with every text that can hold a secret scrubbed (the engine's state too).
    func scrubbed(_ exchange: ExchangeRecord) -> ExchangeRecord {
        var e = exchange
        e.endpoint = scrub(e.endpoint)
        e.message = readable(e.message)
        e.goal = e.goal.map(readable)
        e.shown = readable(e.shown)
        e.engineText = scrub(e.engineText)
        e.detail = scrub(e.detail)
        e.engineState = e.engineState.mapValues(scrub)
        return e
    }

    /// True when a process with this id exists (ours or another user's).
    static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}

/// A log problem, in words.
public struct ConversationLogError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
