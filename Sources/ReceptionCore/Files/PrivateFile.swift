import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file that holds someone's data (a queue of messages, a cache of what they searched for):
/// readable by its owner only, and never deleted when it cannot be read.
public enum PrivateFile {
    /// Writes conversation data so that only its owner can read it: the bytes go to a new
    /// file beside the target, 0600 from its creation and flushed to the disk, which then
    /// replaces it in one rename, so there is never a moment when the text is readable by
    /// others or half written.
    ///
    /// A device, a FIFO, a socket or a symbolic link at `url` is refused, never replaced: the
    /// rename would put the file where `/dev/null` or a link someone placed was.
    public static func write(_ data: Data, to url: URL) throws {
        if let kind = irregularKind(of: url.path) {
            throw Failure(description: "\(url.path) is \(kind), not a regular file; it is left as it is")
        }
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        // open(2) gives the file its 0600 mode as it creates it: FileManager's createFile wrote
        // the bytes into a 0666-less-umask file first and tightened it only afterwards.
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw creationFailure(in: directory, errno: errno) }
        var written = 0
        let complete = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 { if errno == EINTR { continue }; return false }
                written += count
            }
            // On the disk before the rename: a crash leaves the old file or the new one, whole.
            return fsync(descriptor) == 0
        }
        let writeError = errno
        close(descriptor)
        guard complete else {
            unlink(temporary.path)
            throw Failure(description: "cannot write a file in \(directory.path) (\(String(cString: strerror(writeError)).lowercased()))")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno)).lowercased()
            unlink(temporary.path)
            throw Failure(description: reason)
        }
    }

    /// Why no file could be made in `directory`, in the words the person needs.
    private static func creationFailure(in directory: URL, errno code: Int32) -> Failure {
        switch code {
        case ENOENT: Failure(description: "the folder \(directory.path) does not exist")
        case ENOTDIR: Failure(description: "\(directory.path) is not a folder")
        case EACCES, EPERM: Failure(description: "cannot create a file in \(directory.path) (permission denied)")
        default: Failure(description: "cannot create a file in \(directory.path) (\(String(cString: strerror(code)).lowercased()))")
        }
    }

    /// What is at `path` when it is there and is not a regular file ("a symbolic link", "a
    /// device"), looked at without following a link; nil for a regular file or nothing.
    public static func irregularKind(of path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFLNK: return "a symbolic link"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "something other than a file"
        }
    }

    /// Why the file could not be written, in plain words (never `NSCocoaErrorDomain error 512`).
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes `path`'s directory (0700) and the file itself (0600, empty) if missing, and tightens
    /// the modes of ones that predate us with laxer modes: the group's and others' bits are
    /// cleared, the owner's kept (a file the person made read-only stays read-only, and is
    /// then reported as such, never quietly made writable again). A symbolic link at `path` is refused:
    /// following it would make the file it points to 0600 (as root, `/dev/zero`) and have
    /// SQLite write its journal files beside that file, outside the private folder.
    public static func prepare(_ path: String) throws {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            throw Failure(description: "it is a symbolic link, which is not followed for private data (the file it points to would be changed); remove the link")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        ownerOnly(directory.path)
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        } else {
            ownerOnly(path)
        }
    }

    /// Clears the group's and others' permission bits, leaving the owner's as they are.
    private static func ownerOnly(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return }
        chmod(path, info.st_mode & 0o700)
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
