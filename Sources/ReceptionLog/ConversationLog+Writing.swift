import Foundation
import GRDB
import ReceptionCore

extension ConversationLog {
    /// Records a new conversation (its first exchange follows). Saving one that is there
    /// already changes nothing.
    public func save(_ conversation: ConversationRecord) throws {
        try database().write { try insert(conversation, in: $0) }
    }

    func insert(_ conversation: ConversationRecord, in db: Database) throws {
        let conversation = scrubbed(conversation)
        try db.execute(sql: """
            INSERT INTO conversations (id, started_at, last_at, backend, endpoint, soul, model, title)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING
            """, arguments: [conversation.id, conversation.startedAt.timeIntervalSince1970, conversation.lastAt.timeIntervalSince1970,
                             conversation.backend, conversation.endpoint, conversation.soul, conversation.model,
                             conversation.title])
    }

    /// Records an exchange as it stands now: when its message has gone out (`ending` open),
    /// when its plan was approved, and when it ends. An exchange that is there already (the
    /// same request: a plan approved, a queued message delivered in a later session) stays in
    /// its conversation and is brought up to date. Once it has ended, the pieces of its
    /// streamed answer are folded into `shown`. Its conversation takes its backend, soul and
    /// model as the latest.
    public func save(_ exchange: ExchangeRecord) throws {
        let seq = try database().write { try upsert(exchange, writerPID: getpid(), in: $0) }
        lock.withLock {
            if exchange.ending == .open || exchange.ending == .planWaiting { seqByID[exchange.id] = seq } else { seqByID[exchange.id] = nil }
        }
    }

    /// `save`'s statements, in a transaction of the caller's. `writerPID`: the process that
    /// writes the exchange while it is open (its answer streaming), so that the exchange is
    /// closed as interrupted once that process is gone.
    func upsert(_ exchange: ExchangeRecord, writerPID: Int32, in db: Database) throws -> Int64 {
        let e = scrubbed(exchange)
        if try sentBeforeRemoval(e, in: db) {
            throw ConversationLogError("the exchange \(e.id) was sent before its conversation was removed")
        }
        do {
            try writeExchange(e, writerPID: writerPID, in: db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            guard try restartRemovedConversation(of: e, in: db) else { throw error }
            try writeExchange(e, writerPID: writerPID, in: db)
        }
        guard let seq = try Int64.fetchOne(db, sql: "SELECT seq FROM exchanges WHERE id = ?", arguments: [e.id]) else {
            throw ConversationLogError("the exchange \(e.id) was not stored")
        }
        if e.ending != .open {
            try db.execute(sql: "DELETE FROM shown_pieces WHERE exchange_seq = ?", arguments: [seq])
        }
        try db.execute(sql: """
            UPDATE conversations SET last_at = MAX(last_at, ?), backend = ?, endpoint = ?, soul = ?,
                model = COALESCE(?, model), title = CASE WHEN title = '' THEN ? ELSE title END
            WHERE id = (SELECT conversation_id FROM exchanges WHERE seq = ?)
            """, arguments: [e.sentAt.timeIntervalSince1970, e.backend, e.endpoint, e.soul, e.model,
                             Self.title(e.message), seq])
        return seq
    }

    /// True for an exchange of a removed conversation that was sent before the removal (`reception
    /// logs rm` while a session carried it on): it stays removed, whatever comes later. Asked
    /// of every line, not only of those whose conversation is gone: once something said after
    /// the removal has started the conversation again, a plan that was waiting at the removal
    /// and closed afterwards would otherwise bring its text back.
    private func sentBeforeRemoval(_ e: ExchangeRecord, in db: Database) throws -> Bool {
        guard let removedAt = try Double.fetchOne(db, sql: "SELECT removed_at FROM removed_conversations WHERE id = ?",
                                                  arguments: [e.conversationID]) else { return false }
        return e.sentAt.timeIntervalSince1970 <= removedAt
    }

    /// An exchange sent after its conversation was removed (by `reception logs rm`, while the
    /// session carrying it on ran) starts that conversation again, as a shell's history keeps
    /// what is typed after it was cleared: the removal took what was there, not what was yet to
    /// be said (one sent before it never gets here: `sentBeforeRemoval`). The removal stays
    /// recorded, so that it goes on refusing what was sent before it.
    private func restartRemovedConversation(of e: ExchangeRecord, in db: Database) throws -> Bool {
        guard try Double.fetchOne(db, sql: "SELECT removed_at FROM removed_conversations WHERE id = ?",
                                  arguments: [e.conversationID]) != nil else { return false }
        try insert(ConversationRecord(id: e.conversationID, startedAt: e.sentAt, backend: e.backend, endpoint: e.endpoint,
                                      soul: e.soul, model: e.model), in: db)
        return true
    }

    /// The exchange's row, inserted or brought up to date.
    private func writeExchange(_ e: ExchangeRecord, writerPID: Int32, in db: Database) throws {
        try db.execute(sql: Self.insertExchange + "\n" + """
            ON CONFLICT(id) DO UPDATE SET
                ended_at = excluded.ended_at, backend = excluded.backend, endpoint = excluded.endpoint,
                soul = excluded.soul, model = COALESCE(excluded.model, model), goal = excluded.goal,
                trust_level = excluded.trust_level,
                intent = COALESCE(excluded.intent, intent), intent_confidence = COALESCE(excluded.intent_confidence, intent_confidence),
                intent_by_hand = MAX(excluded.intent_by_hand, intent_by_hand),
                urgency = COALESCE(excluded.urgency, urgency), urgency_confidence = COALESCE(excluded.urgency_confidence, urgency_confidence),
                urgency_by_hand = MAX(excluded.urgency_by_hand, urgency_by_hand),
                shown = excluded.shown, engine_text = excluded.engine_text, ending = excluded.ending,
                engine_outcome = excluded.engine_outcome, plan = COALESCE(excluded.plan, plan), detail = excluded.detail,
                task_id = COALESCE(excluded.task_id, task_id), engine_state = COALESCE(excluded.engine_state, engine_state),
                first_character_ms = COALESCE(excluded.first_character_ms, first_character_ms),
                total_ms = excluded.total_ms, input_tokens = COALESCE(excluded.input_tokens, input_tokens),
                output_tokens = COALESCE(excluded.output_tokens, output_tokens), writer_pid = excluded.writer_pid
            """, arguments: try Self.arguments(e, writerPID: e.ending == .open ? Int64(writerPID) : nil))
    }

    /// Every column of an exchange, in the order of `arguments(_:writerPID:)`.
    static let insertExchange = """
        INSERT INTO exchanges (id, conversation_id, sent_at, ended_at, backend, endpoint, soul, model, message, goal,
            trust_level, intent, intent_confidence, intent_by_hand, urgency, urgency_confidence, urgency_by_hand,
            shown, engine_text, ending, engine_outcome, plan, detail, task_id, engine_state, first_character_ms,
            total_ms, input_tokens, output_tokens, writer_pid)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// An exchange's values for `insertExchange` (`writerPID`: the process still writing it).
    static func arguments(_ e: ExchangeRecord, writerPID: Int64?) throws -> StatementArguments {
        let state: String? = e.engineState.isEmpty ? nil : String(decoding: try Wire.encode(e.engineState), as: UTF8.self)
        return [
            e.id, e.conversationID, e.sentAt.timeIntervalSince1970, e.endedAt?.timeIntervalSince1970, e.backend,
            e.endpoint, e.soul, e.model, e.message, e.goal, e.trustLevel, e.intent?.rawValue,
            e.intentConfidence, e.intentByHand, e.urgency?.rawValue, e.urgencyConfidence, e.urgencyByHand,
            e.shown, e.engineText, e.ending.rawValue, e.engineOutcome?.rawValue, e.plan?.rawValue,
            e.detail, e.taskID, state, e.firstCharacterMilliseconds, e.totalMilliseconds, e.inputTokens,
            e.outputTokens, writerPID,
        ]
    }

    /// Records many ended exchanges of existing conversations in one transaction (an import;
    /// the benchmark's 100,000). Each is written as `save` would write it.
    public func save(_ exchanges: [ExchangeRecord]) throws {
        try database().write { db in
            for exchange in exchanges {
                let e = scrubbed(exchange)
                try db.execute(sql: Self.insertExchange, arguments: try Self.arguments(e, writerPID: nil))
                try db.execute(sql: """
                    UPDATE conversations SET last_at = MAX(last_at, ?), title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?
                    """, arguments: [e.sentAt.timeIntervalSince1970, Self.title(e.message), e.conversationID])
            }
        }
    }

    /// Adds a piece of the answer being streamed for `exchangeID` (saved open first), as it is
    /// about to be shown, and the engine's text it came from. Committed when this returns.
    public func appendShown(exchangeID: String, shown: String, engineText: String) throws {
        let known = lock.withLock { seqByID[exchangeID] }
        try database().write { try insertShown(exchangeID: exchangeID, seq: known, shown: shown, engineText: engineText, in: $0) }
    }

    func insertShown(exchangeID: String, seq known: Int64? = nil, shown: String, engineText: String, in db: Database) throws {
        guard let seq = try known ?? Int64.fetchOne(db, sql: "SELECT seq FROM exchanges WHERE id = ?", arguments: [exchangeID]) else {
            throw ConversationLogError("no exchange \(exchangeID) to add the answer to")
        }
        try db.execute(sql: "INSERT INTO shown_pieces (exchange_seq, shown, engine_text) VALUES (?, ?, ?)",
                       arguments: [seq, readable(shown), scrub(engineText)])
    }

    /// A conversation's title: its first message on one line, clipped.
    static func title(_ message: String) -> String {
        let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > 120 ? String(line.prefix(119)) + "…" : line
    }

    /// Closes the exchanges whose writing process is gone (killed mid-answer): what they had
    /// shown becomes their answer, and they read as `interrupted`. Returns how many.
    @discardableResult
    static func closeInterrupted(in database: DatabaseQueue) throws -> Int {
        let open = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT seq, writer_pid FROM exchanges WHERE ending = 'open'")
        }
        // Read as stored values: a value of another type (an edited file) must not stop every
        // reader of the log; such an exchange is closed, as one whose writer is unknown.
        let orphans: [Int64] = open.compactMap { row in
            guard let seq = (row["seq"] as DatabaseValue?).flatMap(Int64.fromDatabaseValue) else { return nil }
            let pid = (row["writer_pid"] as DatabaseValue?).flatMap(Int64.fromDatabaseValue)
            guard let pid, pid != Int64(getpid()), isAlive(Int32(truncatingIfNeeded: pid)) else {
                return pid == Int64(getpid()) ? nil : seq
            }
            return nil
        }
        guard !orphans.isEmpty else { return 0 }
        try database.write { db in
            for seq in orphans {
                let pieces = try Row.fetchAll(db, sql: "SELECT shown, engine_text FROM shown_pieces WHERE exchange_seq = ? ORDER BY n",
                                              arguments: [seq])
                let shown = pieces.compactMap { ($0["shown"] as DatabaseValue?).flatMap(String.fromDatabaseValue) }.joined()
                let engineText = pieces.compactMap { ($0["engine_text"] as DatabaseValue?).flatMap(String.fromDatabaseValue) }.joined()
                try db.execute(sql: """
                    UPDATE exchanges SET ending = 'interrupted', shown = shown || ?,
                        engine_text = CASE WHEN ? = '' THEN engine_text ELSE COALESCE(engine_text, '') || ? END,
                        writer_pid = NULL
                    WHERE seq = ? AND ending = 'open'
                    """, arguments: [shown, engineText, engineText, seq])
                try db.execute(sql: "DELETE FROM shown_pieces WHERE exchange_seq = ?", arguments: [seq])
            }
        }
        return orphans.count
    }
}
