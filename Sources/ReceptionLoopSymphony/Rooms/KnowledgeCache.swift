import Foundation
import ReceptionCore
import GRDB

/// Local SQLite cache of the knowledge a Loop Symphony server pushes to a room through
/// heartbeat piggybacking (seed 000 §8 "Knowledge Sync", §15 note 4).
///
/// Tables: `knowledge_entries` (one row per entry id) and `sync_state` (key/value; holds
/// `server_version`). Deltas are applied in one transaction: upsert `entries`, delete
/// `removed_ids`, store `server_version`, so a crash never leaves a half-applied delta.
public final class KnowledgeCache: Sendable {
    public struct Entry: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
        public static let databaseTableName = "knowledge_entries"
        public var id: String
        public var category: String
        public var title: String
        public var content: String
        public var source: String?
        public var confidence: Double?
        /// JSON array of strings.
        public var tags: String
        public var version: Int
        public var updatedAt: String?

        enum CodingKeys: String, CodingKey {
            case id, category, title, content, source, confidence, tags, version, updatedAt = "updated_at"
        }

        public var tagList: [String] { (try? JSONDecoder().decode([String].self, from: Data(tags.utf8))) ?? [] }
    }

    let database: DatabaseQueue
    public let path: String

    /// Opens (creating if needed) the cache at `path`; `":memory:"` for a throwaway cache.
    public init(path: String) throws {
        self.path = path
        if path != ":memory:" {
            // The cache holds what the server knows about the person: readable by its owner
            // only (a cache written by an older Reception is tightened). SQLite gives its
            // journal files the database file's mode.
            try PrivateFile.prepare(path)
        }
        // Two REPLs on the same profile share this file: wait for the other's write instead of
        // failing with "database is locked" at once.
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        database = path == ":memory:" ? try DatabaseQueue(configuration: configuration)
                                      : try DatabaseQueue(path: path, configuration: configuration)
        // Most opens find the schema in place: check with a read, so a session's start does
        // not queue for the write lock behind another session's sync.
        let schemaVersion = try database.read { try Int.fetchOne($0, sql: "PRAGMA user_version") ?? 0 }
        guard schemaVersion < 2 else { return }
        try database.inTransaction(.immediate) { db in
            // The schema check and its creation in one IMMEDIATE transaction: two sessions
            // opening a new cache at once would otherwise both see no tables and both create
            // them (GRDB's migrator reads its table before it takes the write lock).
            // `user_version` counts the schema changes; files from before it have the v1
            // tables already, hence "if not exists".
            if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < 1 {
                try db.create(table: "knowledge_entries", ifNotExists: true) { t in
                    t.primaryKey("id", .text)
                    t.column("category", .text).notNull()
                    t.column("title", .text).notNull()
                    t.column("content", .text).notNull()
                    t.column("source", .text)
                    t.column("confidence", .double)
                    t.column("tags", .text).notNull().defaults(to: "[]")
                    t.column("version", .integer).notNull()
                    t.column("updated_at", .text)
                }
                try db.create(table: "sync_state", ifNotExists: true) { t in
                    t.primaryKey("key", .text)
                    t.column("value", .text).notNull()
                }
                try db.execute(sql: "PRAGMA user_version = 1")
            }
            if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < 2 {
                // Learnings made while the server could not be reached (see +PendingLearnings).
                try db.create(table: "pending_learnings", ifNotExists: true) { t in
                    t.autoIncrementedPrimaryKey("seq")
                    t.column("category", .text).notNull()
                    t.column("title", .text).notNull()
                    t.column("content", .text).notNull()
                    t.column("observed_at", .text).notNull()
                }
                try db.execute(sql: "PRAGMA user_version = 2")
            }
            return .commit
        }
    }

    /// The `server_version` last applied; nil before the first sync.
    public func serverVersion() throws -> Int? {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM sync_state WHERE key = 'server_version'").flatMap(Int.init)
        }
    }

    /// Applies a delta. Returns how many entries were upserted and removed.
    ///
    /// With `asSnapshot`, `updates` is everything the server has: the first sync of a room id
    /// the server has never seen (upstream-contracts §1.7 note 10: the server computes deltas
    /// per room, from what that room last received). Entries it does not name are then
    /// dropped, so an entry removed on the server while no session was running does not
    /// linger here forever; they count as removed.
    @discardableResult
    public func apply(_ updates: KnowledgeUpdates, asSnapshot: Bool = false) throws -> (upserted: Int, removed: Int) {
        try database.write { db in
            var removed = 0
            if asSnapshot {
                let kept = Set(updates.entries.map(\.id))
                for id in try String.fetchAll(db, sql: "SELECT id FROM knowledge_entries") where !kept.contains(id) {
                    if try Entry.deleteOne(db, key: id) { removed += 1 }
                }
            }
            for entry in updates.entries {
                let tags = String(decoding: try JSONEncoder().encode(entry.tags), as: UTF8.self)
                try Entry(id: entry.id, category: entry.category, title: entry.title, content: entry.content,
                          source: entry.source, confidence: entry.confidence, tags: tags, version: entry.version,
                          updatedAt: entry.updatedAt).save(db)
            }
            for id in updates.removedIDs {
                if try Entry.deleteOne(db, key: id) { removed += 1 }
            }
            try db.execute(sql: "INSERT INTO sync_state(key, value) VALUES('server_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [String(updates.serverVersion)])
            return (updates.entries.count, removed)
        }
    }

    public func entries(category: String? = nil) throws -> [Entry] {
        try database.read { db in
            var request = Entry.order(Column("category"), Column("title"))
            if let category { request = request.filter(Column("category") == category) }
            return try request.fetchAll(db)
        }
    }

    public func count() throws -> Int { try database.read { try Entry.fetchCount($0) } }

    /// Entries whose title, content or tags contain `text` (case-insensitive), for offline use.
    public func search(_ text: String) throws -> [Entry] {
        let pattern = "%\(text.lowercased())%"
        return try database.read { db in
            try Entry.fetchAll(db, sql: """
                SELECT * FROM knowledge_entries
                WHERE lower(title) LIKE ? OR lower(content) LIKE ? OR lower(tags) LIKE ?
                ORDER BY category, title
                """, arguments: [pattern, pattern, pattern])
        }
    }
}
