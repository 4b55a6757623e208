import Foundation
import GRDB
import ReceptionCore

/// A SQLite file that holds someone's data (a queue of messages, a log of conversations):
/// readable by its owner only (0600 in a 0700 folder, a symbolic link refused), in WAL mode
/// so that readers never wait for a writer, with its schema versioned by `PRAGMA user_version`
/// and migrated one step at a time, each step in a transaction of its own.
///
/// A file written by a newer Reception (a version above the last step known here) is not
/// touched: `open` throws `PrivateDatabase.NewerSchema`, and the caller says so.
public enum PrivateDatabase {
    /// How hard a commit is kept, and how long to wait for another process's write.
    public struct Options: Sendable {
        /// Waited for a lock another connection holds before giving up with `SQLITE_BUSY`.
        public var busyTimeout: TimeInterval
        /// True: every commit is on the disk before it returns (`synchronous = FULL`, survives
        /// a power cut). False: `NORMAL`, which in WAL mode survives the process being killed
        /// at any moment and costs no `fsync` per commit.
        public var durableCommits: Bool
        /// The page cache's upper bound, in KiB (SQLite's default is 2000).
        public var cacheKiB: Int
        /// True: deleted content is overwritten with zeros (`secure_delete`), so what a person
        /// removed cannot be read back from the file's free pages.
        public var secureDelete: Bool

        /// True: opened for reading only (a file on a read-only disk can still be read); the
        /// schema is checked but not migrated, and nothing is created.
        public var readOnly: Bool

        public init(busyTimeout: TimeInterval = 5, durableCommits: Bool = true, cacheKiB: Int = 2000, secureDelete: Bool = false,
                    readOnly: Bool = false) {
            self.readOnly = readOnly
            self.busyTimeout = busyTimeout
            self.durableCommits = durableCommits
            self.cacheKiB = cacheKiB
            self.secureDelete = secureDelete
        }
    }

    /// One step of a schema: run once, in order, in a transaction that also sets `user_version`.
    public struct Migration: Sendable {
        public var version: Int
        public var apply: @Sendable (Database) throws -> Void

        public init(version: Int, _ apply: @escaping @Sendable (Database) throws -> Void) {
            self.version = version
            self.apply = apply
        }
    }

    /// The file's schema is newer than any this program knows.
    public struct NewerSchema: Error, CustomStringConvertible {
        public var found: Int
        public var known: Int
        public init(found: Int, known: Int) {
            self.found = found
            self.known = known
        }

        public var description: String {
            "it was written by a newer version of Reception (schema version \(found); this one knows up to \(known))"
        }
    }

    /// A file opened for reading only whose schema has not been brought up to date yet.
    public struct OlderSchema: Error, CustomStringConvertible {
        public var found: Int
        public var known: Int
        public var description: String {
            found == 0 ? "it holds nothing yet" : "its schema (version \(found)) must be brought up to version \(known), which needs it to be writable"
        }
    }

    /// Opens `path`, creating it (and its folder) when missing, and brings its schema up to
    /// the last of `migrations`. `":memory:"` opens a database in memory (tests).
    public static func open(path: String, options: Options = Options(), migrations: [Migration]) throws -> DatabaseQueue {
        if path != ":memory:", !options.readOnly { try PrivateFile.prepare(path) }
        var configuration = Configuration()
        configuration.readonly = options.readOnly
        configuration.busyMode = .timeout(options.busyTimeout)
        let synchronous = options.durableCommits ? "FULL" : "NORMAL"
        let cache = options.cacheKiB
        let secureDelete = options.secureDelete
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            try db.execute(sql: "PRAGMA cache_size = -\(cache)")
            if secureDelete { try db.execute(sql: "PRAGMA secure_delete = ON") }
        }
        let database = path == ":memory:" ? try DatabaseQueue(configuration: configuration)
                                          : try DatabaseQueue(path: path, configuration: configuration)
        // Reading the schema version is what fails first on a file that is not a database.
        let version = try database.read { try Int.fetchOne($0, sql: "PRAGMA user_version") ?? 0 }
        let known = migrations.map(\.version).max() ?? 0
        guard version <= known else { throw NewerSchema(found: version, known: known) }
        if options.readOnly {
            guard version == known else { throw OlderSchema(found: version, known: known) }
            return database
        }
        if path != ":memory:" {
            // The -wal and -shm files take the database's mode.
            _ = try database.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode = WAL") }
        }
        for migration in migrations.sorted(by: { $0.version < $1.version }) where migration.version > version {
            try database.inTransaction(.immediate) { db in
                // Another process may have run this step while this one waited for the lock.
                if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < migration.version {
                    try migration.apply(db)
                    try db.execute(sql: "PRAGMA user_version = \(migration.version)")
                }
                return .commit
            }
        }
        return database
    }

    /// True for the errors of a file SQLite cannot read as a database (damaged, or not one).
    public static func isDamaged(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode)
    }

    /// The words for what goes wrong most, the same whether SQLite or a plain write met it.
    public enum Reason {
        public static let locked = "another process has kept it locked"
        public static let readOnly = "it cannot be written (the file or its folder is read-only)"
        public static let full = "the disk is full"
        public static let notADatabase = "the file is not a database SQLite can read (damaged, or something else)"
    }

    /// A failed system call on the database's files, in the same words as `reason(_:)`, and
    /// as any other file's (`PlainFile`) where the database has none of its own.
    public static func reason(errno code: Int32) -> String {
        switch code {
        case ENOSPC, EDQUOT: Reason.full
        case EACCES, EPERM, EROFS: Reason.readOnly
        default: PlainFile.reason(errno: code)
        }
    }

    /// Why SQLite refused, in words a person can act on (never "SQLite error 5").
    public static func reason(_ error: any Error) -> String {
        if let newer = error as? NewerSchema { return newer.description }
        if let older = error as? OlderSchema { return older.description }
        if let failure = error as? PrivateFile.Failure { return failure.description }
        guard let error = error as? DatabaseError else { return PlainFile.reason(of: error) }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return Reason.locked
        case .SQLITE_READONLY:
            return Reason.readOnly
        case .SQLITE_FULL:
            return Reason.full
        case .SQLITE_NOTADB:
            return Reason.notADatabase
        case .SQLITE_CORRUPT:
            return "the database is damaged"
        case .SQLITE_CANTOPEN:
            return "it cannot be opened (\(error.message ?? "no reason given"))"
        case .SQLITE_PERM, .SQLITE_AUTH:
            return "permission denied"
        case .SQLITE_IOERR:
            return "a disk error (\(error.message ?? "input/output error"))"
        default:
            return error.message ?? "\(error.resultCode)"
        }
    }
}
