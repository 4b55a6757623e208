import Foundation
import ReceptionCore
import ReceptionStorage

/// What a REPL writes while it runs: one line of JSON per change (a conversation begun, an
/// exchange as it stands, a piece of an answer about to be shown), appended to a file of its
/// own in `conversations.sqlite-pending/`, and moved into the database by the next process
/// that reads the log (`+Folding`): `reception logs`, `-c`, `/history`.
///
/// Why a session does not write the database itself:
/// - SQLite is not loaded by a session that only talks: its code and the first write's
///   memory are some 2 MB of the REPL's resident memory, half again what the rest of one
///   answer costs.
/// - An append never waits for another process's transaction (a `reception logs rm`
///   compacting the file, another REPL), so a locked database does not stop the log.
/// - A line written before a piece is printed survives the process being killed, as a
///   commit in WAL mode did (neither survives a power cut: no `fsync`).
///
/// The pending files are 0600 in a 0700 folder, and hold text already scrubbed of secrets.
extension ConversationLog {
    /// One line of a pending file: exactly one of the first four is set.
    struct PendingEntry: Codable {
        var conversation: ConversationRecord?
        var exchange: ExchangeRecord?
        var shown: Piece?
        /// Exchanges kept in the offline queue and dropped from it: never sent.
        var dropped: [String]?
        /// When the line was written (seconds since 1970): the files of several sessions are
        /// applied one after the other, and a line older than one already applied for the same
        /// exchange is stale (`+Folding`). Nil in lines written before it was added.
        var writtenAt: Double?

        struct Piece: Codable {
            var exchangeID: String
            var shown: String
            var engineText: String
        }
    }

    /// The folder of the files waiting to be moved into the database.
    public var pendingFolder: String { path + "-pending" }

    /// Appends a new conversation to this process's pending file.
    public func enqueue(_ conversation: ConversationRecord) throws {
        try append(PendingEntry(conversation: scrubbed(conversation)))
    }

    /// Appends an exchange as it stands (`save`'s rules apply when it is moved in).
    public func enqueue(_ exchange: ExchangeRecord) throws {
        try append(PendingEntry(exchange: scrubbed(exchange)))
    }

    /// Appends that the queued messages with these ids (their exchanges' ids) were dropped
    /// from the offline queue (`reception queue drop`, `/queue drop`): their exchanges then
    /// read "dropped from the offline queue, never sent", not "queued" for ever.
    public func enqueueDropped(_ exchangeIDs: [String]) throws {
        guard !exchangeIDs.isEmpty else { return }
        try append(PendingEntry(dropped: exchangeIDs))
    }

    /// Appends a piece of the answer being streamed, before it is printed.
    public func enqueueShown(exchangeID: String, shown: String, engineText: String) throws {
        try append(PendingEntry(shown: PendingEntry.Piece(exchangeID: exchangeID, shown: readable(shown), engineText: scrub(engineText))))
    }

    /// One line, written whole or not at all: a write cut short (a full disk) is taken back,
    /// so the next line does not run into it.
    private func append(_ entry: PendingEntry) throws {
        var entry = entry
        entry.writtenAt = Date().timeIntervalSince1970
        var line = try JSONEncoder().encode(entry)
        line.append(0x0A)
        try lock.withLock {
            if pending == nil { pending = try PendingWriter(log: self) }
            try pending!.append(line)
        }
    }

    /// Takes the pending folder's lock (`LOCK_SH` to append, `LOCK_EX` to take the files),
    /// waiting at most `timeout`; false when another process kept it that long.
    static func lockPendingFolder(_ descriptor: Int32, _ operation: Int32, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while flock(descriptor, operation | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, Date() < deadline else { return false }
            usleep(5_000)
        }
        return true
    }

    /// The writing end of this process's pending file.
    struct PendingWriter {
        let folder: String
        let name: String
        /// The folder's lock: shared while a line is appended, exclusive while a reader takes
        /// the files to move them in.
        let lockDescriptor: Int32
        let busyTimeout: TimeInterval
        let logPath: String

        /// Checks that what is written can be moved in later (the database is not damaged,
        /// of a newer schema or read-only) and makes the folder.
        init(log: ConversationLog) throws {
            logPath = log.path
            busyTimeout = log.options.busyTimeout
            try Self.checkDatabase(log.path)
            folder = log.pendingFolder
            // The folder made 0700 (its parents too) and the lock file 0600, a link at either refused.
            do {
                try PrivateFile.prepare(folder + "/.lock")
            } catch {
                throw ConversationLogError("the conversation log \(log.path) cannot be used: \(PrivateDatabase.reason(error))")
            }
            lockDescriptor = open(folder + "/.lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            guard lockDescriptor >= 0 else { throw Self.failure(log.path, errno: errno) }
            name = "\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16)).jsonl"
        }

        func append(_ line: Data) throws {
            guard ConversationLog.lockPendingFolder(lockDescriptor, LOCK_SH, timeout: busyTimeout) else {
                throw ConversationLogError("the conversation log \(logPath) cannot be used: \(PrivateDatabase.Reason.locked)")
            }
            defer { flock(lockDescriptor, LOCK_UN) }
            // Opened by name each time: a reader that took the file renamed it, and the next
            // line starts a new one.
            let descriptor = open(folder + "/" + name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw Self.failure(logPath, errno: errno) }
            defer { close(descriptor) }
            var info = stat()
            let start = fstat(descriptor, &info) == 0 ? info.st_size : -1
            let failed: Int32? = line.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return nil
            }
            if let failed {
                if start >= 0 { ftruncate(descriptor, start) }
                throw Self.failure(logPath, errno: failed)
            }
        }

        /// A database that is there must be one this program can move entries into: read
        /// from its header (the first 100 bytes), without loading SQLite.
        static func checkDatabase(_ path: String) throws {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                if errno == ENOENT { return }
                throw failure(path, errno: errno)
            }
            defer { close(descriptor) }
            var header = [UInt8](repeating: 0, count: 100)
            let count = read(descriptor, &header, header.count)
            guard count > 0 else { return }
            let magic = Array("SQLite format 3".utf8) + [0]
            guard count >= magic.count, Array(header[0..<magic.count]) == magic else {
                throw ConversationLogError("the conversation log \(path) cannot be used: \(PrivateDatabase.Reason.notADatabase)")
            }
            if count == header.count {
                let version = header[60..<64].reduce(0) { $0 << 8 | Int($1) }
                if version > ConversationLog.schemaVersion {
                    let newer = PrivateDatabase.NewerSchema(found: version, known: ConversationLog.schemaVersion)
                    throw ConversationLogError("the conversation log \(path) cannot be used: \(newer.description)")
                }
            }
            if access(path, W_OK) != 0 { throw failure(path, errno: errno) }
        }

        static func failure(_ path: String, errno code: Int32) -> ConversationLogError {
            ConversationLogError("the conversation log \(path) cannot be used: \(PrivateDatabase.reason(errno: code))")
        }
    }
}
