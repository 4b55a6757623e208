import Foundation
import GRDB
import ReceptionCore

/// Requests that could not be sent because their backend was unreachable, kept in SQLite
/// until it answers (seed 000 §15 note 8, "Offline handling").
///
/// One row per request, in the order they were queued (`seq`). A row is written, and its
/// transaction committed, before anyone is told the request is queued. It is deleted only
/// once the backend accepted the request (see `OfflineQueueMiddleware`). While it is being
/// sent it is marked `sending` with the sending process's id, so a second Reception on the
/// same file does not send it too, and a Reception started after a crash (`kill -9`) knows
/// that this request may already have reached the engine.
///
/// The file is readable by its owner only (0600, in a 0700 directory), in WAL mode with
/// `synchronous = FULL`: a committed row survives the process being killed and a power cut.
/// A file SQLite cannot read is never deleted: it is renamed aside (`…corrupt-DATE`) and a new
/// queue started; `problem` says so with both paths.
public final class OfflineQueue: @unchecked Sendable {
    /// Where an entry stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// Waiting for its backend.
        case queued
        /// Being sent (by the process `ownerPID`); if that process died, the engine may or may
        /// not have received it.
        case sending
    }

    /// What the queue holds: a task (a message) or something else a front end sends later.
    public enum Kind: String, Sendable, Hashable, Codable {
        case task
    }

    public struct Entry: Sendable, Hashable {
        /// The request's id, which is also the task id the engine receives.
        public var id: String
        /// The order of queueing (increasing).
        public var sequence: Int64
        /// The backend profile it was sent to (it is only ever sent to that one).
        public var backend: String
        /// The server that profile pointed at then (`BackendDescriptor.endpoint`); it is only
        /// ever sent to that server. Nil for an embedded backend, and for entries queued
        /// before the queue recorded it (those follow the name alone, as they did then).
        public var destination: String?
        public var kind: Kind
        public var request: ReceptionRequest
        public var createdAt: Date
        public var state: State
        public var ownerPID: Int32?
        public var attempts: Int
        /// Why the last attempt did not deliver it.
        public var lastError: String?
    }

    public let path: String
    /// Guards `opened` and `openingProblem`: the database is opened on first need, from any task.
    private let lock = NSLock()
    nonisolated(unsafe) private var opened: DatabaseQueue?
    nonisolated(unsafe) private var openingProblem: String?

    /// Set when the file could not be read and was kept aside: say it to the person.
    public var problem: String? { lock.withLock { openingProblem } }

    /// Opens the queue at `path` if the file exists (so a damaged file is reported at once);
    /// otherwise the file, and SQLite with it, waits for the first request to queue. Most
    /// sessions never queue anything, and opening SQLite costs about 2 MB of memory and
    /// a few milliseconds at start (docs/benchmarks.md). `":memory:"` for tests.
    public init(path: String) throws {
        self.path = path
        if path == ":memory:" || FileManager.default.fileExists(atPath: path) {
            _ = try writableDatabase()
        }
    }

    /// The open database; when the file does not exist yet, nil unless `creating`
    /// (reading an absent queue needs no file, and must not leave one behind).
    private func database(creating: Bool) throws -> DatabaseQueue? {
        try lock.withLock {
            if let opened { return opened }
            // Another Reception may have created the file since we started.
            guard creating || FileManager.default.fileExists(atPath: path) else { return nil }
            let (database, problem) = try Self.openOrCreate(path: path)
            opened = database
            openingProblem = problem
            return database
        }
    }

    private func writableDatabase() throws -> DatabaseQueue {
        guard let database = try self.database(creating: true) else { preconditionFailure("creating always opens") }
        return database
    }

    private static func openOrCreate(path: String) throws -> (DatabaseQueue, String?) {
        if path == ":memory:" { return (try open(path: path), nil) }
        // The queue holds messages: readable by its owner only.
        try PrivateFile.prepare(path)
        do {
            return (try open(path: path), nil)
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            // Never lose data: keep the damaged file (and its journal) where a person can find it.
            let aside = try PrivateFile.setAside(path)
            return (try open(path: path),
                    "The offline queue \(path) could not be read (\(error.resultCode)); it was kept as \(aside) and a new, empty queue started. Messages queued in it were not sent.")
        }
    }

    private static func open(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        // Two REPLs may share the file: wait for the other's write instead of failing at once.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // A committed row is on disk before the person is told "queued".
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let database = path == ":memory:" ? try DatabaseQueue(configuration: configuration)
                                          : try DatabaseQueue(path: path, configuration: configuration)
        if path != ":memory:" {
            // Readers never block the writer; the -wal and -shm files take the database's mode.
            _ = try database.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") }
        }
        // Reading the schema version is what fails first on a file that is not a database.
        let version = try database.read { try Int.fetchOne($0, sql: "PRAGMA user_version") ?? 0 }
        if version < 1 {
            try database.inTransaction(.immediate) { db in
                if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < 1 {
                    try db.execute(sql: """
                        CREATE TABLE IF NOT EXISTS queue_entries (
                            seq INTEGER PRIMARY KEY AUTOINCREMENT,
                            id TEXT NOT NULL UNIQUE,
                            backend TEXT NOT NULL,
                            kind TEXT NOT NULL DEFAULT 'task',
                            request TEXT NOT NULL,
                            created_at REAL NOT NULL,
                            state TEXT NOT NULL DEFAULT 'queued',
                            owner_pid INTEGER,
                            attempts INTEGER NOT NULL DEFAULT 0,
                            last_error TEXT
                        )
                        """)
                    try db.execute(sql: "PRAGMA user_version = 1")
                }
                return .commit
            }
        }
        if version < 2 {
            try database.inTransaction(.immediate) { db in
                if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < 2 {
                    try db.execute(sql: "ALTER TABLE queue_entries ADD COLUMN destination TEXT")
                    try db.execute(sql: "PRAGMA user_version = 2")
                }
                return .commit
            }
        }
        return database
    }

    // MARK: - Writing

    /// Queues a request for `backend` at `destination` (committed when this returns).
    /// Queueing the same request id twice keeps the first row. Returns how many entries now
    /// wait for that backend. `heldBy` (a process id) keeps it for that process while it runs:
    /// a session that queued it behind its own delivery sends it next, and no other session
    /// takes it meanwhile.
    @discardableResult
    public func enqueue(_ request: ReceptionRequest, backend: String, destination: String? = nil, kind: Kind = .task,
                        reason: String? = nil, at date: Date = Date(), heldBy: Int32? = nil) throws -> Int {
        let json = String(decoding: try Wire.encode(StoredRequest(request)), as: UTF8.self)
        return try writableDatabase().write { db in
            try db.execute(sql: """
                INSERT INTO queue_entries (id, backend, destination, kind, request, created_at, state, last_error, owner_pid)
                VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?) ON CONFLICT(id) DO NOTHING
                """, arguments: [request.id, backend, destination, kind.rawValue, json, date.timeIntervalSince1970, reason, heldBy])
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM queue_entries WHERE backend = ?", arguments: [backend]) ?? 0
        }
    }

    /// Marks an entry as being sent by this process, unless another living process is sending
    /// it. Returns the entry as it was before (its state says whether an earlier attempt may
    /// have reached the engine), or nil when it is gone or another process has it.
    public func claim(_ id: String, pid: Int32 = getpid()) throws -> Entry? {
        guard let database = try self.database(creating: false) else { return nil }
        return try database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM queue_entries WHERE id = ?", arguments: [id]) else { return nil }
            let entry = try Self.entry(row)
            // Sent, or held to be sent next, by another process that still runs.
            if let owner = entry.ownerPID, owner != pid, Self.isAlive(owner) { return nil }
            try db.execute(sql: "UPDATE queue_entries SET state = 'sending', owner_pid = ?, attempts = attempts + 1 WHERE id = ?",
                           arguments: [pid, id])
            return entry
        }
    }

    /// The attempt did not deliver it: back to waiting, with the reason.
    public func release(_ id: String, error: String?) throws {
        guard let database = try self.database(creating: false) else { return }
        try database.write { db in
            try db.execute(sql: "UPDATE queue_entries SET state = 'queued', owner_pid = NULL, last_error = ? WHERE id = ?",
                           arguments: [error, id])
        }
    }

    /// Delivered (or dropped by the person): forgets it. Returns false when it was not there.
    @discardableResult
    public func remove(_ id: String) throws -> Bool {
        guard let database = try self.database(creating: false) else { return false }
        return try database.write { db in
            try db.execute(sql: "DELETE FROM queue_entries WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Forgets every entry (of one backend, or all). Returns how many.
    @discardableResult
    public func removeAll(backend: String? = nil) throws -> Int {
        guard let database = try self.database(creating: false) else { return 0 }
        return try database.write { db in
            if let backend {
                try db.execute(sql: "DELETE FROM queue_entries WHERE backend = ?", arguments: [backend])
            } else {
                try db.execute(sql: "DELETE FROM queue_entries")
            }
            return db.changesCount
        }
    }

    // MARK: - Reading

    /// Entries, oldest first (of one backend, or all).
    public func entries(backend: String? = nil) throws -> [Entry] {
        guard let database = try self.database(creating: false) else { return [] }
        return try database.read { db in
            let rows = if let backend {
                try Row.fetchAll(db, sql: "SELECT * FROM queue_entries WHERE backend = ? ORDER BY seq", arguments: [backend])
            } else {
                try Row.fetchAll(db, sql: "SELECT * FROM queue_entries ORDER BY seq")
            }
            return try rows.map(Self.entry)
        }
    }

    public func entry(_ id: String) throws -> Entry? {
        guard let database = try self.database(creating: false) else { return nil }
        return try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM queue_entries WHERE id = ?", arguments: [id]).map(Self.entry)
        }
    }

    public func count(backend: String? = nil) throws -> Int {
        try entries(backend: backend).count
    }

    private static func entry(_ row: Row) throws -> Entry {
        let json: String = row["request"]
        let stored = try Wire.decode(StoredRequest.self, from: Data(json.utf8))
        return Entry(id: row["id"], sequence: row["seq"], backend: row["backend"], destination: row["destination"],
                     kind: Kind(rawValue: row["kind"]) ?? .task, request: stored.request,
                     createdAt: Date(timeIntervalSince1970: row["created_at"]),
                     state: State(rawValue: row["state"]) ?? .queued, ownerPID: row["owner_pid"],
                     attempts: row["attempts"], lastError: row["last_error"])
    }

    /// True when `entry` may go to `backend` at `destination`: the same name and, when the
    /// entry recorded its server, the same server.
    public static func belongs(_ entry: Entry, to backend: String, at destination: String?) -> Bool {
        BackendDescriptor.queued(for: entry.backend, at: entry.destination, goesTo: backend, at: destination)
    }

    /// True when a process with this id exists (ours or another user's).
    public static func isAlive(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}

/// A `ReceptionRequest` in full, as the queue stores it (its `Encodable` form is the
/// `/request` view, which leaves the classification's detail and the action out).
struct StoredRequest: Codable {
    var id: String
    var text: String
    var conversation: [ConversationTurn]
    var classification: IntentClassification?
    var trustLevel: Int
    var goal: String?
    var sessionID: String
    var attachments: [String]
    var systemPrompt: String?
    var extensions: [String: JSONValue]

    init(_ request: ReceptionRequest) {
        id = request.id
        text = request.text
        conversation = request.conversation
        classification = request.classification
        trustLevel = request.trustLevel
        goal = request.goal
        sessionID = request.sessionID
        attachments = request.attachments
        systemPrompt = request.systemPrompt
        extensions = request.extensions
    }

    var request: ReceptionRequest {
        ReceptionRequest(id: id, action: .submit, text: text, conversation: conversation, classification: classification,
                         trustLevel: trustLevel, goal: goal, sessionID: sessionID, attachments: attachments,
                         systemPrompt: systemPrompt, extensions: extensions)
    }
}
