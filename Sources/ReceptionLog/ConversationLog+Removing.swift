import Foundation
import GRDB
import ReceptionCore

/// What a removal took away.
public struct Removal: Sendable, Hashable {
    public var conversations: Int
    public var exchanges: Int
    /// False when another process was reading the log, so the WAL could not be emptied yet:
    /// the old pages leave it at the next checkpoint (when that process is done).
    public var walEmptied = true
}

extension ConversationLog {
    /// Removes one conversation (its id, or the first characters of it) and everything it held.
    public func remove(conversation id: String) throws -> Removal {
        guard let conversation = try conversation(id) else {
            throw ConversationLogError("there is no conversation “\(TerminalText.line(id, limit: 40))” in the log (reception logs lists them)")
        }
        return try remove(where: "id = ?", [conversation.id])
    }

    /// Removes the conversations whose last exchange was before `date`.
    public func remove(before date: Date) throws -> Removal {
        let (condition, arguments) = Self.condition(before: date)
        return try remove(where: condition, arguments)
    }

    /// Removes every conversation.
    public func removeAll() throws -> Removal {
        let (condition, arguments) = Self.condition(before: nil)
        return try remove(where: condition, arguments)
    }

    /// The conversations a removal takes: those whose last exchange was before `date`, or all.
    private static func condition(before date: Date?) -> (String, StatementArguments) {
        date.map { ("last_at < ?", [$0.timeIntervalSince1970]) } ?? ("1", [])
    }

    /// What `remove(before:)` (or, with no date, `removeAll()`) would take away, removing
    /// nothing: for the question asked before it.
    public func countRemovable(before date: Date?) throws -> Removal {
        guard let database = try existingDatabase() else { return Removal(conversations: 0, exchanges: 0) }
        let (condition, arguments) = Self.condition(before: date)
        return try database.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM conversations WHERE \(condition)) AS conversations,
                       (SELECT COUNT(*) FROM exchanges WHERE conversation_id IN (SELECT id FROM conversations WHERE \(condition))) AS exchanges
                """, arguments: arguments + arguments)!
            return Removal(conversations: row["conversations"], exchanges: row["exchanges"])
        }
    }

    /// Deletes, then leaves no text of what was deleted anywhere in the files: the search
    /// index is rebuilt from what remains (an FTS5 index keeps a deleted document's words until
    /// its segments are merged), deleted pages were zeroed as they were freed
    /// (`secure_delete`), `VACUUM` rewrites the file without its free pages, and a truncating
    /// checkpoint empties the WAL, which still held the old pages.
    private func remove(where condition: String, _ arguments: StatementArguments) throws -> Removal {
        guard let database = try existingDatabase() else { return Removal(conversations: 0, exchanges: 0) }
        let removal = try database.write { db -> Removal in
            let exchanges = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM exchanges WHERE conversation_id IN (SELECT id FROM conversations WHERE \(condition))
                """, arguments: arguments) ?? 0
            // Remembered, so that what a session still carrying one on says from now on is kept.
            try db.execute(sql: """
                INSERT OR REPLACE INTO removed_conversations (id, removed_at)
                SELECT id, ? FROM conversations WHERE \(condition)
                """, arguments: [Date().timeIntervalSince1970] + arguments)
            try db.execute(sql: "DELETE FROM conversations WHERE \(condition)", arguments: arguments)
            let conversations = db.changesCount
            if conversations > 0 {
                try db.execute(sql: "INSERT INTO exchanges_search(exchanges_search) VALUES ('rebuild')")
            }
            return Removal(conversations: conversations, exchanges: exchanges)
        }
        guard removal.conversations > 0 else { return removal }
        var compacted = removal
        compacted.walEmptied = try compact(database)
        return compacted
    }

    /// Rewrites the file without free pages and empties the WAL; false when a reader kept
    /// the WAL from being emptied.
    func compact(_ database: DatabaseQueue) throws -> Bool {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "VACUUM")
            // busy, frames in the WAL, frames checkpointed: emptied when busy is 0.
            let result = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            return (result?[0] as Int?) == 0
        }
    }
}
