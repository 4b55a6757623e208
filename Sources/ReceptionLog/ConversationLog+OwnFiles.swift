import Foundation
import ReceptionCore

/// The files that make the log, so that nothing else is ever written over them: an export
/// given the database's own path with `--force` replaced the log with its export.
extension ConversationLog {
    /// True when writing a file at `candidate` would write one of the log's own files: the
    /// database, its journal files (`-wal`, `-shm`, `-journal`) or anything in its pending
    /// folder. Compared as the file system sees it, not as the names are spelt: each path with
    /// its folders resolved (`..`, a symbolic link on the way or at the name), and a file that
    /// is there by device and inode (a hard link to the database is the database).
    public func isOwnFile(_ candidate: String) -> Bool {
        guard path != ":memory:" else { return false }
        let target = FileIdentity.resolved(candidate)
        let folder = FileIdentity.resolved(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        let own = ["", "-wal", "-shm", "-journal"].map { folder + "/" + name + $0 }
        let pending = folder + "/" + name + "-pending"
        if own.contains(target) || target.hasPrefix(pending + "/") { return true }
        guard FileManager.default.fileExists(atPath: candidate) else { return false }
        let pendingFiles = ((try? FileManager.default.contentsOfDirectory(atPath: pending)) ?? []).map { pending + "/" + $0 }
        return (own + pendingFiles).contains { FileManager.default.fileExists(atPath: $0) && FileIdentity.same($0, candidate) }
    }
}
