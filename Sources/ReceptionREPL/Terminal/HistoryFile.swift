import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ReceptionCore

/// The file readline's history is kept in: what the person typed, so readable by them only.
///
/// It is opened once, with `O_NOFOLLOW`, and every line is appended through that descriptor.
/// readline's own history functions open the file by name at each call, so a name checked at
/// start and swapped for a link later (while the session ran) had every later line appended
/// to the file the link pointed to; and a check followed by a `chmod` by name could tighten
/// that file instead. Here the checks are made on the descriptor (`fstat`, `fchmod`), and
/// nothing is ever opened by that name again except to trim it, again with `O_NOFOLLOW`.
final class HistoryFile: Sendable {
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The history file at `path`, or why it cannot be used. A missing file is created 0600 (and
    /// a missing folder 0700); an existing regular file is tightened to 0600. Anything else is
    /// refused: a FIFO would block the REPL before its first prompt, and through a link every
    /// line would be appended to a file someone else chose, with that file's mode.
    static func open(_ path: String) -> (file: HistoryFile?, problem: String?) {
        let directory = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // O_NONBLOCK: a FIFO at the name must not hold the open (it is refused just below).
        let descriptor = Glibc.open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ELOOP: return (nil, "the history file \(path) is a symbolic link, not a regular file")
            case EISDIR: return (nil, "the history file \(path) is a folder, not a regular file")
            default: return (nil, "the history file \(path) cannot be used (\(reason(code)))")
            }
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let problem = "the history file \(path) cannot be used (\(reason(errno)))"
            close(descriptor)
            return (nil, problem)
        }
        if let kind = PrivateFile.irregularKind(mode: info.st_mode) {
            close(descriptor)
            return (nil, "the history file \(path) is \(kind), not a regular file")
        }
        if info.st_mode & 0o077 != 0, fchmod(descriptor, 0o600) != 0 {
            let problem = "the history file \(path) can be read by others and cannot be made private (\(reason(errno)))"
            close(descriptor)
            return (nil, problem)
        }
        // Reads and appends block as usual from here.
        _ = fcntl(descriptor, F_SETFL, O_RDWR | O_APPEND)
        return (HistoryFile(path: path, descriptor: descriptor), nil)
    }

    /// Why the file at `path` cannot be used, nil when it can (it is then made ready: created,
    /// or tightened to 0600).
    static func prepare(_ path: String) -> String? { open(path).problem }

    /// The lines kept, oldest first (at most the last 8 MB of the file are read).
    func lines() -> [String] {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return [] }
        let size = Int(info.st_size)
        let start = max(0, size - (8 << 20))
        var bytes = [UInt8](repeating: 0, count: size - start)
        var read = 0
        while read < bytes.count {
            let count = bytes[read...].withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(start + read)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            read += count
        }
        var text = String(decoding: bytes[0..<read], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        if start > 0, !text.isEmpty { text.removeFirst() }  // the first line read may be cut
        return text
    }

    /// Adds one line at the end of the file, at once (nothing is lost on a crash).
    func append(_ line: String) {
        _ = PrivateFile.writeAll(Data((line + "\n").utf8), to: descriptor)
    }

    /// Keeps the file to its last `limit` lines when it grew well past them. The short file
    /// replaces it in one rename (`PrivateFile`), which never follows a link at the name; this
    /// descriptor still names the old file, so later lines go to one opened again with
    /// `O_NOFOLLOW`.
    func trimmed(to limit: Int) -> HistoryFile {
        let kept = lines()
        guard kept.count > limit + limit / 4 else { return self }
        let text = kept.suffix(limit).joined(separator: "\n") + "\n"
        guard (try? PrivateFile.write(Data(text.utf8), to: URL(fileURLWithPath: path))) != nil,
              let reopened = Self.open(path).file else { return self }
        return reopened
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)).lowercased() }
}
