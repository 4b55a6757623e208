import Foundation

/// A file that holds someone's data (a queue of messages, a cache of what they searched for):
/// readable by its owner only, and never deleted when it cannot be read.
public enum PrivateFile {
    /// Writes conversation data so that only its owner can read it: the bytes go to a new
    /// 0600 file beside the target, which then replaces it in one rename, so there is never a
    /// moment when the text is readable by others or half written.
    public static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
                throw Failure(description: "the folder \(directory.path) does not exist")
            }
            if !isDirectory.boolValue { throw Failure(description: "\(directory.path) is not a folder") }
            throw Failure(description: "cannot create a file in \(directory.path) (\(FileManager.default.isWritableFile(atPath: directory.path) ? "no space left, or a name too long?" : "permission denied"))")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno)).lowercased()
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(description: reason)
        }
    }

    /// Why the file could not be written, in plain words (never `NSCocoaErrorDomain error 512`).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

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
        let stamp = path + ".corrupt-" + formatter.string(from: Date())
        // Two damaged files in the same second must not collide: a rename onto an existing
        // name fails, and the second file would be neither kept aside nor replaced.
        var aside = stamp
        var number = 2
        while ["", "-journal", "-wal", "-shm"].contains(where: { FileManager.default.fileExists(atPath: aside + $0) }) {
            aside = "\(stamp)-\(number)"
            number += 1
        }
        for suffix in ["", "-journal", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
        }
        _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        return aside
    }
}
