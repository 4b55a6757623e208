import Foundation
import GRDB
import ReceptionCore

/// Moving the pending files that sessions wrote (`+Pending`) into the database, before
/// anything is read from it.
///
/// In one write transaction, so two readers never move the same lines twice (the second
/// waits for the first's transaction, then finds nothing left): under the folder's lock, each
/// pending file is renamed to `….folding` (a session still running starts a new file at its
/// next line), then every `….folding` file is applied, oldest first, and removed once the
/// transaction is committed. A reader killed before its commit leaves its `….folding` files
/// for the next one. The names of the files applied are recorded in the same transaction
/// (`folded_files`), so a reader killed between the commit and the removal leaves files the
/// next one removes without applying them again (the pieces of an answer would be doubled);
/// a name is dropped from the record once its file is gone.
///
/// Files are applied one after the other, in the order of their names, which is not the order
/// their lines were written across sessions: a message queued by one session and delivered by
/// a later one has lines in both files, and the queuing session's file may come second. Each
/// line carries when it was written, and a line about an exchange that is older than one
/// already applied for it in this move is stale and skipped (its answer would be overwritten
/// with "queued"). Every file's conversations are inserted before any exchange is applied,
/// since the delivering session's exchange refers to a conversation begun in the queuing
/// session's file. Lines of earlier moves are all older than those of this one: a file is
/// taken whole, under the folder's lock, and a session's next line starts a new file.
extension ConversationLog {
    /// True when sessions left lines that are not in the database yet.
    var hasPending: Bool {
        guard path != ":memory:", let names = try? FileManager.default.contentsOfDirectory(atPath: pendingFolder) else { return false }
        return names.contains { $0.hasSuffix(".jsonl") || $0.hasSuffix(".folding") }
    }

    /// Moves what is pending into `database`; returns how many lines were applied.
    @discardableResult
    func foldPending(into database: DatabaseQueue) throws -> Int {
        guard hasPending else { return 0 }
        let folder = pendingFolder
        var taken: [String] = []
        let applied: Int = try database.writeWithoutTransaction { db in
            var applied = 0
            try db.inTransaction(.immediate) {
                taken = try Self.takePendingFiles(in: folder, timeout: options.busyTimeout)
                let done = try Set(String.fetchAll(db, sql: "SELECT name FROM folded_files"))
                var dropped: [String] = []
                var latest: [String: Double] = [:]
                // Every conversation first: an exchange line refers to one that may be begun in
                // another session's file (a queued message delivered by a later session), and
                // one applied before its conversation is there would be refused.
                for name in taken where !done.contains(name) {
                    try insertConversations(from: folder + "/" + name, in: db)
                }
                for name in taken where !done.contains(name) {
                    applied += try applyPendingFile(folder + "/" + name, in: db, dropped: &dropped, latest: &latest)
                    try db.execute(sql: "INSERT INTO folded_files (name) VALUES (?)", arguments: [name])
                }
                // After every file: files are applied session by session, and the session (or
                // command) that dropped a queued message is not the one that queued it.
                try Self.markDropped(dropped, in: db)
                for name in done.subtracting(taken) {
                    try db.execute(sql: "DELETE FROM folded_files WHERE name = ?", arguments: [name])
                }
                return .commit
            }
            return applied
        }
        for name in taken { unlink(folder + "/" + name) }
        return applied
    }

    /// Renames the pending files under the folder's lock; returns every `….folding` file,
    /// in the order their lines were written (each session's in its own order).
    private static func takePendingFiles(in folder: String, timeout: TimeInterval) throws -> [String] {
        let lock = open(folder + "/.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw ConversationLogError("\(folder) cannot be read: \(String(cString: strerror(errno)).lowercased())") }
        defer { close(lock) }
        guard lockPendingFolder(lock, LOCK_EX, timeout: timeout) else {
            throw ConversationLogError("another process has kept \(folder) locked")
        }
        defer { flock(lock, LOCK_UN) }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        // A number that grows from one reader to the next, so a file renamed now sorts after
        // one an earlier reader left behind for the same session; the reader's pid keeps two
        // readers' names apart even within one microsecond.
        let stamp = String(format: "%020llu", UInt64(Date().timeIntervalSince1970 * 1_000_000)) + "-\(getpid())"
        for name in names where name.hasSuffix(".jsonl") {
            let session = String(name.dropLast(".jsonl".count))
            rename(folder + "/" + name, folder + "/" + session + "." + stamp + ".folding")
        }
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".folding") }.sorted()
    }

    /// Applies one file's lines. A line that is not a whole entry (cut by a full disk or a
    /// crash) is skipped, and so is an entry the database refuses (an exchange of a
    /// conversation removed meanwhile); any other failure stops the move, which is retried by
    /// the next reader with nothing lost. `latest`: when the newest line applied so far for each
    /// exchange was written; an older line for it (an exchange line or a piece) is stale.
    private func applyPendingFile(_ path: String, in db: Database, dropped: inout [String], latest: inout [String: Double]) throws -> Int {
        // The session that wrote the file: its exchanges stay open while it lives.
        let name = URL(fileURLWithPath: path).lastPathComponent
        let writer = Int32(name.prefix { $0.isNumber }) ?? 0
        let decoder = JSONDecoder()
        var applied = 0
        try Self.forEachLine(in: path, limit: Self.longestPendingLine) { line in
            guard let entry = try? decoder.decode(PendingEntry.self, from: line) else { return }
            if let about = entry.exchange?.id ?? entry.shown?.exchangeID, let written = entry.writtenAt,
               let newer = latest[about], newer > written {
                return
            }
            do {
                if let conversation = entry.conversation { try insert(conversation, in: db) }
                if let exchange = entry.exchange {
                    _ = try upsert(exchange, writerPID: writer, in: db)
                    if let written = entry.writtenAt { latest[exchange.id] = written }
                }
                if let piece = entry.shown {
                    try insertShown(exchangeID: piece.exchangeID, shown: piece.shown, engineText: piece.engineText, in: db)
                }
                dropped += entry.dropped ?? []
                applied += 1
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                return
            } catch is ConversationLogError {
                // A piece of an exchange that is not there (removed with its conversation).
                return
            }
        }
        return applied
    }

    /// The conversations begun in one file. Only lines that hold one are decoded: the key
    /// `"conversation":` cannot occur inside a JSON string (its quotes would be escaped), and
    /// an exchange's own key is `"conversationID"`.
    private func insertConversations(from path: String, in db: Database) throws {
        let key = Data(#""conversation":"#.utf8)
        let decoder = JSONDecoder()
        try Self.forEachLine(in: path, limit: Self.longestPendingLine) { line in
            guard line.range(of: key) != nil, let conversation = try? decoder.decode(PendingEntry.self, from: line).conversation else { return }
            try insert(conversation, in: db)
        }
    }

    /// Queued exchanges dropped from the offline queue: never sent, and said so.
    static func markDropped(_ ids: [String], in db: Database) throws {
        for id in ids {
            try db.execute(sql: """
                UPDATE exchanges SET ending = 'cancelled', detail = ?, ended_at = COALESCE(ended_at, ?)
                WHERE id = ? AND ending = 'queued'
                """, arguments: [ExchangeRecord.droppedFromQueue, Date().timeIntervalSince1970, id])
        }
    }

    /// The longest line moved in: an exchange holds at most an engine's longest answer twice
    /// (as shown and as sent, a million characters each for a language model), JSON-escaped;
    /// a longer line is not one a session wrote, and is skipped.
    static let longestPendingLine = 64 << 20

    /// Calls `body` with each line of the file at `path` (the last one too, without its
    /// newline), read 64 KB at a time: a line longer than `limit` bytes is skipped whole, so
    /// what is held at once stays under `limit` however large the file.
    static func forEachLine(in path: String, limit: Int, _ body: (Data) throws -> Void) throws {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw ConversationLogError("\(path) cannot be read: \(String(cString: strerror(errno)).lowercased())")
        }
        defer { try? file.close() }
        var line = Data()
        var skipping = false
        while let chunk = try file.read(upToCount: 65_536), !chunk.isEmpty {
            var start = chunk.startIndex
            while let newline = chunk[start...].firstIndex(of: 0x0A) {
                if !skipping {
                    line.append(chunk[start..<newline])
                    if line.count <= limit { try body(line) }
                }
                line.removeAll(keepingCapacity: true)
                skipping = false
                start = newline + 1
            }
            if !skipping { line.append(chunk[start...]) }
            if line.count > limit {
                line = Data()
                skipping = true
            }
        }
        if !skipping, !line.isEmpty { try body(line) }
    }
}
