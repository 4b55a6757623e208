import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file that holds someone's data (a queue of messages, a cache of what they searched for):
/// readable by its owner only, and never deleted when it cannot be read.
public enum PrivateFile {
    /// What `write` does when something is already at the file's name.
    public enum Existing: Sendable {
        /// A regular file there is replaced (in one rename); anything else is refused.
        case replaceRegularFile
        /// Nothing there is ever replaced: the write fails, saying so (`Failure.alreadyExists`).
        case refuse
    }

    /// Writes conversation data so that only its owner can read it: the bytes go to a new
    /// file beside the target, 0600 from its creation and flushed to the disk, which then
    /// takes the target's name in one step, so there is never a moment when the text is
    /// readable by others or half written.
    ///
    /// Nothing is checked first and acted on later, where the name could be swapped for a
    /// link in between: the new file is made with `O_EXCL | O_NOFOLLOW` in the folder opened
    /// once (`openat`), and it takes the name with `linkat` (`.refuse`: fails if anything is
    /// there, atomically) or `renameat` (`.replaceRegularFile`), neither of which follows a
    /// link at the name. A device, a FIFO, a socket or a link found at the name is refused,
    /// never written through; one placed there in the instant between that look and the
    /// rename is replaced by the file, never written through either.
    public static func write(_ data: Data, to url: URL, existing: Existing = .replaceRegularFile) throws {
        try write(to: url, existing: existing) { append in try append(data) }
    }

    /// As `write(_:to:existing:)`, with the bytes produced as they are written (an export of
    /// the whole conversation log is never held in memory at once): `produce` is given a
    /// function that appends bytes to the new file. The file takes its name only once
    /// `produce` returns; when it or a write throws, nothing is left at the name or beside it.
    public static func write(to url: URL, existing: Existing = .replaceRegularFile,
                             _ produce: (_ append: (Data) throws -> Void) throws -> Void) throws {
        let directory = url.deletingLastPathComponent()
        let name = url.lastPathComponent
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw creationFailure(in: directory, errno: errno) }
        defer { close(folder) }
        var info = stat()
        if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            if existing == .refuse { throw Failure(description: "\(url.path) already exists", alreadyExists: true) }
            if let kind = irregularKind(mode: info.st_mode) {
                throw Failure(description: "\(url.path) is \(kind), not a regular file; it is left as it is")
            }
        }
        let temporary = ".\(name).\(UUID().uuidString.prefix(8)).tmp"
        // open(2) gives the file its 0600 mode as it creates it: FileManager's createFile wrote
        // the bytes into a 0666-less-umask file first and tightened it only afterwards.
        let descriptor = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw creationFailure(in: directory, errno: errno, folderOpened: true) }
        let writeFailure = { (code: Int32) in
            Failure(description: "cannot write a file in \(directory.path) (\(String(cString: strerror(code)).lowercased()))")
        }
        do {
            try produce { data in
                guard writeAll(data, to: descriptor) else { throw writeFailure(errno) }
            }
            guard fsync(descriptor) == 0 else { throw writeFailure(errno) }
        } catch {
            close(descriptor)
            unlinkat(folder, temporary, 0)
            throw error
        }
        close(descriptor)
        switch existing {
        case .refuse:
            let linked = linkat(folder, temporary, folder, name, 0) == 0
            let linkError = errno
            unlinkat(folder, temporary, 0)
            guard linked else {
                if linkError == EEXIST { throw Failure(description: "\(url.path) already exists", alreadyExists: true) }
                throw Failure(description: String(cString: strerror(linkError)).lowercased())
            }
        case .replaceRegularFile:
            guard renameat(folder, temporary, folder, name) == 0 else {
                let reason = String(cString: strerror(errno)).lowercased()
                unlinkat(folder, temporary, 0)
                throw Failure(description: reason)
            }
        }
        // The new name on the disk too: a crash after this keeps the file.
        fsync(folder)
    }

    /// Writes every byte (a short write is continued); false on an error (`errno` says which).
    public static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        var written = 0
        return data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 { if errno == EINTR { continue }; return false }
                written += count
            }
            return true
        }
    }

    /// Why no file could be made in `directory`, in the words the person needs. With the folder
    /// already open, "no such file" is a folder that makes no new files (`/proc`), not a
    /// missing one.
    private static func creationFailure(in directory: URL, errno code: Int32, folderOpened: Bool = false) -> Failure {
        switch code {
        case ENOENT where folderOpened: Failure(description: "cannot create a file in \(directory.path) (the folder takes no new files)")
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
        return irregularKind(mode: info.st_mode)
    }

    /// What a file of this mode is, when it is not a regular file ("a symbolic link", "a device").
    public static func irregularKind(mode: mode_t) -> String? {
        switch mode & S_IFMT {
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
        /// Something was at the name, and `.refuse` left it there.
        public var alreadyExists = false

        public init(description: String, alreadyExists: Bool = false) {
            self.description = description
            self.alreadyExists = alreadyExists
        }
    }

    /// Makes `path`'s directory (0700) and the file itself (0600, empty) if missing, and tightens
    /// the modes of ones that predate us with laxer modes: the group's and others' bits are
    /// cleared, the owner's kept (a file the person made read-only stays read-only, and is
    /// then reported as such, never quietly made writable again). A symbolic link at `path` is refused:
    /// following it would make the file it points to 0600 (as root, `/dev/zero`) and have
    /// SQLite write its journal files beside that file, outside the private folder.
    ///
    /// The file is opened once with `O_NOFOLLOW` (a link there fails the open itself; there is
    /// no look first that a swap could outrun) and its mode is checked and tightened on that
    /// descriptor, so a chmod never reaches a file a link points to. SQLite then opens the
    /// file by name, in a folder only its owner can change.
    public static func prepare(_ path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let folder = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw creationFailure(in: directory, errno: errno) }
        defer { close(folder) }
        var info = stat()
        if fstat(folder, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 != 0 { fchmod(folder, info.st_mode & 0o700) }
        // O_NONBLOCK: a FIFO put there must not hold the open; it is refused below. Read-only:
        // fchmod needs ownership, not write access, and a file its owner made read-only is
        // opened as well (SQLite then reports it as read-only).
        let descriptor = openat(folder, URL(fileURLWithPath: path).lastPathComponent,
                                O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP {
                throw Failure(description: "it is a symbolic link, which is not followed for private data (the file it points to would be changed); remove the link")
            }
            if code == EISDIR { throw Failure(description: "it is a folder, not a file") }
            throw Failure(description: "it cannot be opened (\(String(cString: strerror(code)).lowercased()))")
        }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { throw Failure(description: "it cannot be examined (\(String(cString: strerror(errno)).lowercased()))") }
        if let kind = irregularKind(mode: info.st_mode) { throw Failure(description: "it is \(kind), not a regular file") }
        if info.st_mode & 0o077 != 0 { fchmod(descriptor, info.st_mode & 0o700) }
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
        // Created here, never opened through a link someone put at the name meanwhile.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
        return aside
    }
}
