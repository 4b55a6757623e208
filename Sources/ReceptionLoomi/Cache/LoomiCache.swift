import Foundation
import GRDB
import ReceptionCore

/// The two caches of seed 004's "Caching and optimization strategy", in one SQLite file:
///
/// - agent decisions, keyed by the conversation, the dish, its constraints and the number
///   of recipes asked for, kept a short time (5–10 minutes: "food preferences change");
/// - recipe data by id, kept 24 hours, so a recipe seen once can be read again with the
///   server stopped (`/recipes`, `/recipe ID`).
///
/// Recipe ids are keyed with their session: the agent numbers recipes per session memory
/// (`session_recipe_003`), so the same id can name another recipe in another session
/// (upstream-contracts §5). Both tables are bounded; the oldest rows go first.
///
/// The file is readable by its owner only (0600 in a 0700 directory). A file SQLite cannot
/// read is moved aside (`…corrupt-DATE`, never deleted) and a new cache started; `problem`
/// says so. A row that does not decode is treated as absent.
public final class LoomiCache: Sendable {
    public struct Decision: Sendable, Hashable {
        public var decision: AgentDecision
        /// The session the decision's ids belong to.
        public var sessionID: String
        public var search: RecipeSearch
        public var storedAt: Date
    }

    public struct Recipe: Sendable, Hashable {
        public var recipe: RecipeRecord
        public var sessionID: String
        public var fetchedAt: Date
    }

    public static let maxDecisions = 200
    public static let maxRecipes = 1_000
    /// The largest recipe kept, as JSON: a server's record of any size never fills the disk
    /// (a larger one is still shown, just not kept). At most `maxRecipes` × this on disk.
    public static let maxRecipeBytes = 128 << 10

    private let database: DatabaseQueue
    public let path: String
    /// Set when the file could not be read and was kept aside: say it to the person.
    public let problem: String?
    public let decisionTTL: TimeInterval
    public let recipeTTL: TimeInterval
    private let now: @Sendable () -> Date

    /// Opens (creating if needed) the cache at `path` (`":memory:"` for a throwaway one).
    /// `now` is the clock (tests move it); the TTLs are in seconds.
    public init(path: String, decisionTTL: TimeInterval = 300, recipeTTL: TimeInterval = 86_400,
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        self.path = path
        self.decisionTTL = decisionTTL
        self.recipeTTL = recipeTTL
        self.now = now
        guard path != ":memory:" else {
            database = try Self.open(path: path)
            problem = nil
            return
        }
        // The cache holds what the person searched for: readable by its owner only.
        try PrivateFile.prepare(path)
        do {
            database = try Self.open(path: path)
            problem = nil
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            // A cache is rebuilt from the server, but the damaged file is kept for whoever wants to look.
            let aside = try PrivateFile.setAside(path)
            database = try Self.open(path: path)
            problem = "The recipe cache \(path) could not be read (\(error.message ?? "SQLite error \(error.resultCode.rawValue)")); it was kept as \(aside) and a new, empty cache started."
        }
    }

    private static func open(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        // Two REPLs on the same profile share the file: wait for the other's write.
        configuration.busyMode = .timeout(5)
        let database = path == ":memory:" ? try DatabaseQueue(configuration: configuration)
                                          : try DatabaseQueue(path: path, configuration: configuration)
        // Reading the schema version is what fails first on a file that is not a database; a
        // damaged one may only show in the integrity check.
        let version = try database.read { try Int.fetchOne($0, sql: "PRAGMA user_version") ?? 0 }
        let check = try database.read { try String.fetchOne($0, sql: "PRAGMA quick_check") }
        if let check, check != "ok" {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: check)
        }
        if version < 1 {
            try createSchema(database)
        }
        // A database of another shape (another program's file at this path) is as unreadable
        // to this cache as a damaged one.
        do {
            try database.read { db in
                _ = try Row.fetchOne(db, sql: "SELECT key, session_id, search, decision, stored_at FROM decisions LIMIT 0")
                _ = try Row.fetchOne(db, sql: "SELECT session_id, recipe_id, title, body, fetched_at FROM recipes LIMIT 0")
            }
        } catch let error as DatabaseError {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "its tables are not a recipe cache's: \(error.message ?? "\(error.resultCode)")")
        }
        return database
    }

    private static func createSchema(_ database: DatabaseQueue) throws {
        try database.inTransaction(.immediate) { db in
            if try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 < 1 {
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS decisions (
                        key TEXT PRIMARY KEY NOT NULL,
                        session_id TEXT NOT NULL,
                        search TEXT NOT NULL,
                        decision TEXT NOT NULL,
                        stored_at REAL NOT NULL
                    );
                    CREATE TABLE IF NOT EXISTS recipes (
                        session_id TEXT NOT NULL,
                        recipe_id TEXT NOT NULL,
                        title TEXT,
                        body TEXT NOT NULL,
                        fetched_at REAL NOT NULL,
                        PRIMARY KEY (session_id, recipe_id)
                    );
                    CREATE INDEX IF NOT EXISTS recipes_by_id ON recipes(recipe_id);
                    PRAGMA user_version = 1;
                    """)
            }
            return .commit
        }
    }

    /// The cache's clock (tests move it), for saying how old an entry is.
    public func currentDate() -> Date { now() }

    // MARK: Decisions

    /// The decision stored under `key`, unless it is older than the decision TTL.
    public func decision(forKey key: String) throws -> Decision? {
        let oldest = now().timeIntervalSince1970 - decisionTTL
        return try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM decisions WHERE key = ? AND stored_at >= ?", arguments: [key, oldest]),
                  let decisionText = Self.text(row, "decision"), let searchText = Self.text(row, "search"),
                  let decision = try? Wire.decode(AgentDecision.self, from: Data(decisionText.utf8)),
                  let search = try? Wire.decode(RecipeSearch.self, from: Data(searchText.utf8)),
                  let sessionID = Self.text(row, "session_id"), let storedAt = Self.number(row, "stored_at") else { return nil }
            return Decision(decision: decision, sessionID: sessionID, search: search, storedAt: Date(timeIntervalSince1970: storedAt))
        }
    }

    public func storeDecision(_ decision: AgentDecision, key: String, sessionID: String, search: RecipeSearch) throws {
        let stamp = now().timeIntervalSince1970
        let decisionJSON = String(decoding: try Wire.encode(decision), as: UTF8.self)
        let searchJSON = String(decoding: try Wire.encode(search), as: UTF8.self)
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO decisions(key, session_id, search, decision, stored_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [key, sessionID, searchJSON, decisionJSON, stamp])
            try db.execute(sql: "DELETE FROM decisions WHERE stored_at < ?", arguments: [stamp - decisionTTL])
            try db.execute(sql: "DELETE FROM decisions WHERE key NOT IN (SELECT key FROM decisions ORDER BY stored_at DESC LIMIT ?)",
                           arguments: [Self.maxDecisions])
        }
    }

    /// Forgets one decision (its ids turned out to belong to a session the server lost).
    public func removeDecision(forKey key: String) throws {
        try database.write { try $0.execute(sql: "DELETE FROM decisions WHERE key = ?", arguments: [key]) }
    }

    // MARK: Recipes

    /// The recipe `id` of `sessionID`, unless older than the recipe TTL.
    public func recipe(id: String, sessionID: String) throws -> Recipe? {
        let oldest = now().timeIntervalSince1970 - recipeTTL
        return try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM recipes WHERE session_id = ? AND recipe_id = ? AND fetched_at >= ?",
                             arguments: [sessionID, id, oldest]).flatMap(Self.recipe(from:))
        }
    }

    /// The freshest recipe named `id`, this session's first (for `/recipe ID`).
    public func lookup(id: String, preferring sessionID: String?) throws -> Recipe? {
        let oldest = now().timeIntervalSince1970 - recipeTTL
        return try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM recipes WHERE recipe_id = ? AND fetched_at >= ?
                ORDER BY (session_id = ?) DESC, fetched_at DESC LIMIT 20
                """, arguments: [id, oldest, sessionID ?? ""]).lazy.compactMap(Self.recipe(from:)).first
        }
    }

    /// Fresh recipes, newest first.
    public func recipes(limit: Int = 50) throws -> [Recipe] {
        let oldest = now().timeIntervalSince1970 - recipeTTL
        return try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM recipes WHERE fetched_at >= ? ORDER BY fetched_at DESC, rowid DESC LIMIT ?",
                             arguments: [oldest, limit]).compactMap(Self.recipe(from:))
        }
    }

    /// Keeps a recipe for the recipe TTL; returns false when it is too large to keep.
    @discardableResult
    public func store(_ recipe: RecipeRecord, sessionID: String) throws -> Bool {
        let stamp = now().timeIntervalSince1970
        let encoded = try Wire.encode(recipe.raw)
        guard encoded.count <= Self.maxRecipeBytes else { return false }
        let body = String(decoding: encoded, as: UTF8.self)
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO recipes(session_id, recipe_id, title, body, fetched_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [sessionID, recipe.id, recipe.title, body, stamp])
            try db.execute(sql: "DELETE FROM recipes WHERE fetched_at < ?", arguments: [stamp - recipeTTL])
            try db.execute(sql: "DELETE FROM recipes WHERE rowid NOT IN (SELECT rowid FROM recipes ORDER BY fetched_at DESC LIMIT ?)",
                           arguments: [Self.maxRecipes])
        }
        return true
    }

    private static func recipe(from row: Row) -> Recipe? {
        guard let body = text(row, "body"),
              let value = try? Wire.decode(JSONValue.self, from: Data(body.utf8)),
              let record = RecipeRecord(value),
              let sessionID = text(row, "session_id"), let fetchedAt = number(row, "fetched_at") else { return nil }
        return Recipe(recipe: record, sessionID: sessionID, fetchedAt: Date(timeIntervalSince1970: fetchedAt))
    }

    /// A column as text, or nil when it is missing or of another type: a file someone else
    /// wrote must not crash the REPL (GRDB's typed subscripts stop the process on a mismatch).
    private static func text(_ row: Row, _ column: String) -> String? {
        guard row.hasColumn(column) else { return nil }
        let value: DatabaseValue = row[column]
        if case .string(let text) = value.storage { return text }
        return nil
    }

    private static func number(_ row: Row, _ column: String) -> Double? {
        guard row.hasColumn(column) else { return nil }
        let value: DatabaseValue = row[column]
        switch value.storage {
        case .double(let number): return number
        case .int64(let number): return Double(number)
        default: return nil
        }
    }
}
