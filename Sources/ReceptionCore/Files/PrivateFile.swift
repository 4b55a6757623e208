import Foundation

/// A file that holds someone's data (a queue of messages, a cache of what they searched for):
/// readable by its owner only, and never deleted when it cannot be read.
public enum PrivateFile {
    /// Makes `path`'s directory (0700) and the file itself (0600, empty) if missing, and tightens
    /// the modes of ones that predate us with laxer modes.
    public static func prepare(_ path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        } else {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
    }

    /// Moves a damaged database and its journal files (`-journal`, `-wal`, `-shm`) to
    /// `PATH.corrupt-YYYYMMDD-HHMMSS` where a person can find them, leaves a new empty 0600 file
    /// at `path`, and returns the path the damaged file now has.
    public static func setAside(_ path: String) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let aside = path + ".corrupt-" + formatter.string(from: Date())
        for suffix in ["", "-journal", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
        }
        _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        return aside
    }
}
