import Foundation

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
        let target = Self.resolved(candidate)
        let folder = Self.resolved(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        let own = ["", "-wal", "-shm", "-journal"].map { folder + "/" + name + $0 }
        let pending = folder + "/" + name + "-pending"
        if own.contains(target) || target.hasPrefix(pending + "/") { return true }
        var found = stat()
        guard stat(candidate, &found) == 0 else { return false }
        let pendingFiles = ((try? FileManager.default.contentsOfDirectory(atPath: pending)) ?? []).map { pending + "/" + $0 }
        return (own + pendingFiles).contains { file in
            var info = stat()
            return stat(file, &info) == 0 && info.st_dev == found.st_dev && info.st_ino == found.st_ino
        }
    }

    /// `path` absolute, with its folder's symbolic links and `..` resolved, and the name too
    /// when it is a link to something that is there; spelt as typed where nothing resolves.
    static func resolved(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL
        if let real = realPath(absolute.path) { return real }
        let parent = absolute.deletingLastPathComponent().path
        return (realPath(parent) ?? parent) + "/" + absolute.lastPathComponent
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
