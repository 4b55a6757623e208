import Foundation
import GRDB
import ReceptionCore

/// Learnings reported with `/knowledge learn` while the server could not be reached: kept in
/// the cache's file (0600) and reported, oldest first, when the server answers again: after
/// the next successful heartbeat or before the next `/knowledge learn`.
///
/// At least once, not exactly once: the learnings endpoint has no idempotency key, so a crash
/// after the server accepted a batch and before the rows were removed reports it again. The
/// server aggregates learnings into entries by title, so a repeat adds weight, not a copy;
/// losing one instead would lose what the person taught.
extension KnowledgeCache {
    public struct PendingLearning: Sendable, Hashable {
        public var sequence: Int64
        public var category: String
        public var title: String
        public var content: String
        public var observedAt: String
    }

    /// Keeps a learning for later (committed when this returns); returns how many wait.
    @discardableResult
    public func keepLearning(category: String, title: String, content: String, observedAt: String) throws -> Int {
        try database.write { db in
            try db.execute(sql: "INSERT INTO pending_learnings (category, title, content, observed_at) VALUES (?, ?, ?, ?)",
                           arguments: [category, title, content, observedAt])
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pending_learnings") ?? 0
        }
    }

    /// Waiting learnings, oldest first.
    public func pendingLearnings() throws -> [PendingLearning] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM pending_learnings ORDER BY seq").map { row in
                PendingLearning(sequence: row["seq"], category: row["category"], title: row["title"],
                                content: row["content"], observedAt: row["observed_at"])
            }
        }
    }

    /// Forgets the learnings up to and including `sequence` (the server accepted them).
    public func removePendingLearnings(through sequence: Int64) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM pending_learnings WHERE seq <= ?", arguments: [sequence])
        }
    }

    /// Reports the waiting learnings as one batch from `roomID` (the session's room now; the
    /// one they were made in may be gone) with their own observation times, then forgets
    /// them. Returns how many the server accepted; throws, keeping them, when it did not.
    public func reportPendingLearnings(with client: LoopSymphonyClient, roomID: String) async throws -> Int {
        let pending = try pendingLearnings()
        guard let last = pending.last else { return 0 }
        let report = LearningsReport(roomID: roomID, learnings: pending.map {
            RoomLearning(category: $0.category, title: $0.title, content: $0.content, roomID: roomID, observedAt: $0.observedAt)
        })
        let accepted = try await client.knowledge.reportLearnings(report)
        try removePendingLearnings(through: last.sequence)
        return accepted.accepted
    }
}
