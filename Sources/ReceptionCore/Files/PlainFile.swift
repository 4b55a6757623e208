import Foundation

/// Reads a file a person named (a corpus, a soul, a configuration) with errors in plain
/// words: a directory, a FIFO or a device is refused before any read (a FIFO would block
/// for ever), and so is a file larger than the limit; Foundation's "The operation could not
/// be completed" never reaches the person.
public enum PlainFile {
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong, for callers that word it their own way.
        public enum Kind: Sendable, Hashable { case missing, directory, notRegular, tooLarge, unreadable }
        public var path: String
        public var reason: String
        public var kind: Kind = .unreadable
        public var description: String { "\(path): \(reason)" }

        public init(path: String, reason: String, kind: Kind = .unreadable) {
            self.path = path
            self.reason = reason
            self.kind = kind
        }
    }

    /// The whole file, if it is a regular file (after symbolic links) of at most `limit` bytes.
    ///
    /// The file is opened first and then examined through the descriptor (`fstat`), so what is
    /// checked is what is read: a name checked and then opened could be swapped in between
    /// (for a FIFO that blocks the read for ever, or for another file). `inspect` sees the
    /// opened file's mode before anything is read (a secret's permissions, say) and may throw.
    public static func read(_ path: String, limit: Int = 256 << 20, inspect: (_ mode: mode_t) throws -> Void = { _ in }) throws -> Data {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw Problem(path: path, reason: reason(errno: code), kind: code == ENOENT ? .missing : .unreadable)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Problem(path: path, reason: reason(errno: errno)) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Problem(path: path, reason: "is a directory, not a file", kind: .directory)
        case S_IFIFO: throw Problem(path: path, reason: "is a named pipe (FIFO), not a regular file", kind: .notRegular)
        case S_IFSOCK: throw Problem(path: path, reason: "is a socket, not a regular file", kind: .notRegular)
        case S_IFCHR, S_IFBLK: throw Problem(path: path, reason: "is a device, not a regular file", kind: .notRegular)
        default: throw Problem(path: path, reason: "is not a regular file", kind: .notRegular)
        }
        try inspect(info.st_mode)
        guard Int(info.st_size) <= limit else {
            throw Problem(path: path, reason: "is \(Int(info.st_size)) bytes, more than the \(limit) (\(limit >= 1 << 20 ? "\(limit >> 20) MB" : "\(limit >> 10) KB")) this reads", kind: .tooLarge)
        }
        _ = fcntl(descriptor, F_SETFL, O_RDONLY)
        do {
            return try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw Problem(path: path, reason: "cannot be read (\(reason(errno: errno)))")
        }
    }

    /// The file as UTF-8 text; bytes that are not UTF-8 are an error naming the first offset.
    public static func readText(_ path: String, limit: Int = 256 << 20, inspect: (_ mode: mode_t) throws -> Void = { _ in }) throws -> String {
        let data = try read(path, limit: limit, inspect: inspect)
        guard let text = String(validatingUTF8Bytes: data) else {
            let offset = firstInvalidUTF8Offset(data) ?? 0
            throw Problem(path: path, reason: "is not UTF-8 text (the bytes at offset \(offset) are not valid UTF-8)")
        }
        return text
    }

    /// Why a Foundation file operation failed, in the same plain words: the POSIX reason under
    /// Foundation's wrapper ("permission denied"), never `Error Domain=NSCocoaErrorDomain Code=513`.
    public static func reason(of error: any Error) -> String {
        if let code = errnoCode(of: error) { return reason(errno: code) }
        // Our own errors say themselves; bridged they would read "The operation could not be completed".
        // (Cast through Any: on Linux the compiler deems the direct cast always true and warns.)
        if !(error is CocoaError), let described = error as Any as? CustomStringConvertible { return described.description }
        // On Linux Foundation often gives no POSIX error under its own: its code, in words.
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or folder"
            case .fileWriteNoPermission, .fileReadNoPermission: return "permission denied"
            case .fileWriteVolumeReadOnly: return "the file system is read-only"
            case .fileWriteOutOfSpace: return "no space left on the device"
            case .fileWriteFileExists: return "a file of that name exists"
            default: break
            }
        }
        return (error as NSError).localizedDescription
    }

    /// Why a name that `FileManager.fileExists` denies is not there to read, when the name
    /// itself is there: a link in a loop ("too many symbolic links") or to nothing. Nil when
    /// the name is absent too. (`fileExists` follows links, so a loop read as "no such file".)
    public static func brokenLink(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return nil }
        guard stat(path, &info) != 0 else { return nil }
        return errno == ELOOP ? "a symbolic link in a loop (too many symbolic links)" : "a symbolic link to \(reason(errno: errno) == "no such file" ? "nothing" : reason(errno: errno))"
    }

    /// The system's error code behind a Foundation error: the error itself when it is a POSIX
    /// one, or the POSIX error Foundation wrapped in its own (`NSUnderlyingErrorKey`).
    public static func errnoCode(of error: any Error) -> Int32? {
        let error = error as NSError
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        return [underlying, error].compactMap { $0 }.first { $0.domain == NSPOSIXErrorDomain }.map { Int32($0.code) }
    }

    /// A failed system call on a file, in words a person can act on.
    public static func reason(errno code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        case ENOTDIR: "a part of the path is not a directory"
        case ELOOP: "too many symbolic links"
        case ENAMETOOLONG: "the path is too long"
        default: String(cString: strerror(code)).lowercased()
        }
    }

    /// The offset of the first byte that is not part of valid UTF-8, nil when every byte is.
    public static func firstInvalidUTF8Offset(_ data: Data) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}

extension String {
    /// The bytes as UTF-8, or nil if any of them is not valid UTF-8.
    init?(validatingUTF8Bytes data: Data) {
        guard let text = String(bytes: data, encoding: .utf8) else { return nil }
        self = text
    }
}
