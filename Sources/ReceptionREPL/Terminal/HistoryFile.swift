import Foundation
import ReceptionCore

/// The file readline keeps typed lines in: what the person typed, so readable by them only.
enum HistoryFile {
    /// Makes `path` ready for readline, or says why it cannot be used (nil when it can). A
    /// missing file is created 0600 (and a missing folder 0700); an existing regular file is
    /// tightened to 0600. Anything else is refused, looked at without following a link: a FIFO
    /// would block the REPL before its first prompt, and through a link every line would be
    /// appended to a file someone else chose, with that file's mode.
    static func prepare(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else { return "the history file \(path) cannot be used (\(reason(errno)))" }
            let directory = (path as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return "the history file \(path) cannot be created (\(reason(errno)))" }
            close(descriptor)
            return nil
        }
        if let kind = PrivateFile.irregularKind(of: path) {
            return "the history file \(path) is \(kind), not a regular file"
        }
        if info.st_mode & 0o077 != 0, chmod(path, 0o600) != 0 {
            return "the history file \(path) can be read by others and cannot be made private (\(reason(errno)))"
        }
        return nil
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)).lowercased() }
}
