import Foundation
import GRDB
import ReceptionCore

/// Which conversations or exchanges a listing or a search keeps.
public struct LogFilter: Sendable, Hashable {
    /// A backend profile name.
    public var backend: String?
    /// A soul (its id or name, any case).
    public var soul: String?
    public var intent: IntentType?
    /// Only what was sent at or after this moment.
    public var since: Date?

    public init(backend: String? = nil, soul: String? = nil, intent: IntentType? = nil, since: Date? = nil) {
        self.backend = backend
        self.soul = soul
        self.intent = intent
        self.since = since
    }

    /// The conditions on an exchange row aliased `e`, and their arguments.
    var exchangeConditions: (sql: [String], arguments: StatementArguments) {
        var sql: [String] = []
        var arguments = StatementArguments()
        if let backend { sql.append("e.backend = ?"); arguments += [backend] }
        if let soul { sql.append("e.soul = ? COLLATE NOCASE"); arguments += [soul] }
        if let intent { sql.append("e.intent = ?"); arguments += [intent.rawValue] }
        if let since { sql.append("e.sent_at >= ?"); arguments += [since.timeIntervalSince1970] }
        return (sql, arguments)
    }

    var isEmpty: Bool { backend == nil && soul == nil && intent == nil && since == nil }
}

/// What `reception logs status` reports.
public struct LogStatistics: Sendable, Hashable {
    public var conversations: Int
    public var exchanges: Int
    public var first: Date?
    public var last: Date?
    /// The database, its WAL and shared-memory files together.
    public var bytes: Int64

    public init(conversations: Int = 0, exchanges: Int = 0, first: Date? = nil, last: Date? = nil, bytes: Int64 = 0) {
        self.conversations = conversations
        self.exchanges = exchanges
        self.first = first
        self.last = last
        self.bytes = bytes
    }
}

extension ConversationLog {
    /// The most recent conversations first (those with an exchange the filter keeps).
    public func conversations(matching filter: LogFilter = LogFilter(), limit: Int = 20) throws -> [ConversationRecord] {
        guard let database = try existingDatabase() else { return [] }
        return try database.read { db in
            var matching = ""
            var conditions = ""
            var arguments = StatementArguments()
            if !filter.isEmpty {
                let (sql, values) = filter.exchangeConditions
                let kept = "FROM exchanges e WHERE e.conversation_id = c.id AND \(sql.joined(separator: " AND "))"
                matching = """
                    , (SELECT COUNT(*) \(kept)) AS matching_count,
                    (SELECT e.backend \(kept) ORDER BY e.seq DESC LIMIT 1) AS matching_backend,
                    (SELECT e.soul \(kept) ORDER BY e.seq DESC LIMIT 1) AS matching_soul
                    """
                conditions = "WHERE EXISTS (SELECT 1 \(kept))"
                arguments += values + values + values + values
            }
            arguments += [limit]
            return try Row.fetchAll(db, sql: """
                SELECT c.*, (SELECT COUNT(*) FROM exchanges x WHERE x.conversation_id = c.id) AS exchange_count\(matching)
                FROM conversations c \(conditions) ORDER BY c.last_at DESC LIMIT ?
                """, arguments: arguments).map { try conversation($0) }
        }
    }

    /// The conversation whose id is `id` or starts with it (as people type the first
    /// characters a listing shows); the most recent one when `id` is nil. Nil when none; an
    /// error when a prefix fits several.
    public func conversation(_ id: String?) throws -> ConversationRecord? {
        guard let database = try existingDatabase() else { return nil }
        return try database.read { db in
            let rows: [Row]
            let select = "SELECT c.*, (SELECT COUNT(*) FROM exchanges x WHERE x.conversation_id = c.id) AS exchange_count FROM conversations c"
            if let id {
                // Empty, it would be a prefix of every id.
                guard !id.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw ConversationLogError("an empty id names no conversation (reception logs lists them)")
                }
                let typed = id.lowercased()
                if let exact = try Row.fetchOne(db, sql: "\(select) WHERE c.id = ?", arguments: [typed]) { return try conversation(exact) }
                // A prefix: LIKE's wildcards in what was typed are taken literally.
                let escaped = typed.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                    .replacingOccurrences(of: "_", with: "\\_")
                rows = try Row.fetchAll(db, sql: "\(select) WHERE c.id LIKE ? ESCAPE '\\' ORDER BY c.last_at DESC LIMIT 6",
                                        arguments: [escaped + "%"])
                if rows.count > 1 {
                    throw ConversationLogError("\(rows.count > 5 ? "more than 5" : String(rows.count)) conversations start with “\(TerminalText.line(id, limit: 40))”; type more of the id")
                }
            } else {
                rows = try Row.fetchAll(db, sql: "\(select) ORDER BY c.last_at DESC LIMIT 1")
            }
            return try rows.first.map { try conversation($0) }
        }
    }

    /// A conversation's exchanges, oldest first: all of them, or the last `last`.
    public func exchanges(of conversationID: String, last: Int? = nil) throws -> [ExchangeRecord] {
        guard let database = try existingDatabase() else { return [] }
        return try database.read { db in
            let rows: [Row]
            if let last {
                rows = try Row.fetchAll(db, sql: """
                    SELECT * FROM (SELECT * FROM exchanges WHERE conversation_id = ? ORDER BY sent_at DESC, seq DESC LIMIT ?)
                    ORDER BY sent_at, seq
                    """, arguments: [conversationID, last])
            } else {
                // In the order they were sent: two sessions that carried one conversation on are
                // moved in file by file, not line by line in time.
                rows = try Row.fetchAll(db, sql: "SELECT * FROM exchanges WHERE conversation_id = ? ORDER BY sent_at, seq", arguments: [conversationID])
            }
            return try rows.map { try exchange($0, in: db) }
        }
    }

    /// Every exchange the filter keeps, oldest first, a batch at a time (exports of the whole
    /// log never hold it in memory at once).
    public func forEachExchange(matching filter: LogFilter = LogFilter(), conversation: String? = nil,
                                _ body: (ExchangeRecord) throws -> Void) throws {
        guard let database = try existingDatabase() else { return }
        var after: Int64 = 0
        while true {
            let batch: [(Int64, ExchangeRecord)] = try database.read { db in
                var (sql, arguments) = filter.exchangeConditions
                sql.insert("e.seq > ?", at: 0)
                arguments = [after] + arguments
                if let conversation { sql.append("e.conversation_id = ?"); arguments += [conversation] }
                return try Row.fetchAll(db, sql: "SELECT e.* FROM exchanges e WHERE \(sql.joined(separator: " AND ")) ORDER BY e.seq LIMIT 500",
                                        arguments: arguments).map { (try storedExchange($0).required("seq", as: Int64.self), try exchange($0, in: db)) }
            }
            guard let last = batch.last else { return }
            for (_, exchange) in batch { try body(exchange) }
            after = last.0
        }
    }

    public func statistics() throws -> LogStatistics {
        let bytes = ["", "-wal", "-shm"].reduce(Int64(0)) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int64) ?? 0)
        }
        guard let database = try existingDatabase() else { return LogStatistics(conversations: 0, exchanges: 0, bytes: 0) }
        return try database.read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT COUNT(*) FROM conversations) AS conversations, (SELECT COUNT(*) FROM exchanges) AS exchanges,
                       (SELECT MIN(started_at) FROM conversations) AS first, (SELECT MAX(last_at) FROM conversations) AS last
                """)!
            let r = StoredRow(row, path: path, table: "conversations", key: "their first and last dates")
            return LogStatistics(conversations: try r.required("conversations"), exchanges: try r.required("exchanges"),
                                 first: try r.optionalDate("first"), last: try r.optionalDate("last"), bytes: bytes)
        }
    }

    // MARK: rows

    /// A conversation row (`StoredRow`: a value it cannot read is an error naming where it is).
    func conversation(_ row: Row) throws -> ConversationRecord {
        let r = storedConversation(row)
        var record = ConversationRecord(id: try r.required("id"), startedAt: try r.date("started_at"), lastAt: try r.date("last_at"),
                                        backend: try r.required("backend"), soul: try r.optional("soul"), model: try r.optional("model"),
                                        title: try r.optional("title") ?? "", exchangeCount: try r.optional("exchange_count") ?? 0)
        // Stored already in the log's spelling.
        record.endpoint = try r.optional("endpoint")
        if let count = try r.optional("matching_count", as: Int.self) {
            record.matching = .init(exchanges: count, backend: try r.optional("matching_backend") ?? record.backend,
                                    soul: try r.optional("matching_soul"))
        }
        return record
    }

    /// An exchange row; one still being answered (or whose writer was killed and nobody
    /// has closed it yet) shows the pieces shown so far. A value it cannot read is an error
    /// naming where it is (`StoredRow`).
    func exchange(_ row: Row, in db: Database) throws -> ExchangeRecord {
        let r = storedExchange(row)
        let ending = ExchangeRecord.Ending(rawValue: try r.required("ending")) ?? .open
        var shown: String = try r.optional("shown") ?? ""
        var engineText: String? = try r.optional("engine_text")
        if ending == .open {
            let pieces = try Row.fetchAll(db, sql: "SELECT shown, engine_text FROM shown_pieces WHERE exchange_seq = ? ORDER BY n",
                                          arguments: [try r.required("seq", as: Int64.self)])
            let stored = pieces.map { StoredRow($0, path: path, table: "shown_pieces", key: r.key) }
            shown += try stored.map { try $0.optional("shown", as: String.self) ?? "" }.joined()
            let raw = try stored.map { try $0.optional("engine_text", as: String.self) ?? "" }.joined()
            if !raw.isEmpty { engineText = (engineText ?? "") + raw }
        }
        let stateJSON: String? = try r.optional("engine_state")
        let state = stateJSON.flatMap { try? Wire.decode([String: String].self, from: Data($0.utf8)) } ?? [:]
        var record = ExchangeRecord(
            id: try r.required("id"), conversationID: try r.required("conversation_id"), sentAt: try r.date("sent_at"),
            endedAt: try r.optionalDate("ended_at"), backend: try r.required("backend"),
            soul: try r.optional("soul"), model: try r.optional("model"), message: try r.required("message"), goal: try r.optional("goal"),
            trustLevel: try r.optional("trust_level"),
            intent: (try r.optional("intent", as: String.self)).map(IntentType.init(wire:)), intentConfidence: try r.optional("intent_confidence"),
            intentByHand: try r.flag("intent_by_hand"), urgency: (try r.optional("urgency", as: String.self)).map(UrgencyLevel.init(wire:)),
            urgencyConfidence: try r.optional("urgency_confidence"), urgencyByHand: try r.flag("urgency_by_hand"), shown: shown,
            engineText: engineText, ending: ending, engineOutcome: (try r.optional("engine_outcome", as: String.self)).map(Outcome.init(wire:)),
            plan: (try r.optional("plan", as: String.self)).flatMap(ExchangeRecord.PlanDecision.init(rawValue:)), detail: try r.optional("detail"),
            taskID: try r.optional("task_id"), engineState: state, firstCharacterMilliseconds: try r.optional("first_character_ms"),
            totalMilliseconds: try r.optional("total_ms"), inputTokens: try r.optional("input_tokens"), outputTokens: try r.optional("output_tokens"))
        record.endpoint = try r.optional("endpoint")
        return record
    }
}
