import Foundation
import GRDB

/// A row of the log read without trusting it. The database is a file of the person's, which
/// other tools can change (an edited value, a damaged page): a value of the wrong type, a date
/// or a duration that is not a finite number, is refused with where it is, never turned into
/// a crash. GRDB's subscripts stop the process on a value they cannot convert, and print the
/// whole row (the message and the answer) as they do; here the error names the table, the
/// row and the column, and no text of the conversation.
struct StoredRow {
    let row: Row
    /// The log's file, for the error.
    let path: String
    /// "exchanges" or "conversations".
    let table: String
    /// The row, as the error names it ("seq 12", "id 1a2b…").
    let key: String

    init(_ row: Row, path: String, table: String, key: String) {
        self.row = row
        self.path = path
        self.table = table
        self.key = key
    }

    /// The value of `column`, which must be there and of the type.
    func required<Value: DatabaseValueConvertible>(_ column: String, as type: Value.Type = Value.self) throws -> Value {
        guard let value = try optional(column, as: type) else { throw unreadable(column) }
        return value
    }

    /// The value of `column`, nil when it is NULL or not a column of the row; an error when it
    /// is of another type.
    func optional<Value: DatabaseValueConvertible>(_ column: String, as type: Value.Type = Value.self) throws -> Value? {
        guard let stored = row[column] as DatabaseValue?, !stored.isNull else { return nil }
        guard let value = Value.fromDatabaseValue(stored) else { throw unreadable(column) }
        if let number = value as? Double, !number.isFinite { throw unreadable(column) }
        return value
    }

    /// A moment stored as seconds since 1970.
    func date(_ column: String) throws -> Date {
        Date(timeIntervalSince1970: try required(column, as: Double.self))
    }

    func optionalDate(_ column: String) throws -> Date? {
        try optional(column, as: Double.self).map(Date.init(timeIntervalSince1970:))
    }

    /// A boolean stored as 0 or 1 (false when NULL).
    func flag(_ column: String) throws -> Bool {
        try optional(column, as: Bool.self) ?? false
    }

    func unreadable(_ column: String) -> ConversationLogError {
        ConversationLogError("the conversation log \(path) holds a value Reception cannot read (table \(table), \(key), column \(column)): it was changed by another program or is damaged")
    }
}

extension ConversationLog {
    /// An exchange row, for `StoredRow`: named by its row number, which holds no text.
    func storedExchange(_ row: Row) -> StoredRow {
        let seq = (row["seq"] as DatabaseValue?).flatMap(Int64.fromDatabaseValue).map { "row seq \($0)" } ?? "a row"
        return StoredRow(row, path: path, table: "exchanges", key: seq)
    }

    /// A conversation row, for `StoredRow`: named by the first characters of its id.
    func storedConversation(_ row: Row) -> StoredRow {
        let id = (row["id"] as DatabaseValue?).flatMap(String.fromDatabaseValue).map { "id " + String($0.prefix(8)) } ?? "a row"
        return StoredRow(row, path: path, table: "conversations", key: id)
    }
}
