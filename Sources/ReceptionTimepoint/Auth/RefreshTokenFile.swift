import Foundation
import ReceptionCore

/// The one place the refresh token lives between runs: a small JSON file of mode 0600 in a
/// 0700 directory under the XDG state directory, tied to the server it came from.
///
/// Writes are atomic: the new content goes to a fresh 0600 file beside it, is flushed to the
/// disk (`fsync`), and replaces the old file in one `rename`, after which the directory is
/// flushed too. A crash at any moment leaves either the old file or the new one, whole.
/// Leftover temporary files of a crashed write are removed on the next load.
public struct RefreshTokenFile: Sendable {
    public let path: String
    /// The server the token belongs to: a token is never sent to another one.
    public let origin: String
    /// Runs at each stage of a write (`WriteStage`); the crash test uses it to kill the
    /// process at exactly that moment. Empty otherwise.
    let atStage: @Sendable (WriteStage) -> Void

    /// The moments of a write at which a crash leaves something different on the disk.
    public enum WriteStage: String, Sendable, CaseIterable {
        /// The new token is known; nothing is written yet.
        case answered
        /// The temporary file exists, empty.
        case temporaryCreated = "temporary-created"
        /// The temporary file holds the whole new content, flushed; the old file is in place.
        case temporaryWritten = "temporary-written"
        /// The new file has replaced the old one; the directory is not flushed yet.
        case replaced
    }

    public init(path: String, origin: String, atStage: @escaping @Sendable (WriteStage) -> Void = { _ in }) {
        self.path = path
        self.origin = origin
        self.atStage = atStage
    }

    public enum Loaded: Sendable, Hashable {
        case none
        case token(SecretToken)
        /// The file names another server (the profile's url changed).
        case otherServer(String)
        /// The file is not ours to read (mode, content): said in words, never with its content.
        case unusable(String)
    }

    struct Content: Codable {
        var origin: String
        var refreshToken: String
        enum CodingKeys: String, CodingKey { case origin, refreshToken = "refresh_token" }
    }

    public func load() -> Loaded {
        removeLeftovers()
        // Opened first, then examined through the descriptor: what is checked is what is read.
        let data: Data
        do {
            data = try PlainFile.read(path, limit: 16 << 10) { mode in
                guard mode & 0o077 == 0 else { throw LaxMode(mode: mode) }
            }
        } catch let problem as PlainFile.Problem {
            switch problem.kind {
            case .missing: return .none
            case .directory, .notRegular: return .unusable("\(path) is not a regular file")
            default: return .unusable("\(path) does not hold a saved sign-in")
            }
        } catch let lax as LaxMode {
            return .unusable("\(path) can be read by other users (mode \(String(format: "%04o", lax.mode & 0o777))), so it is not used; sign in again and it is written 0600")
        } catch {
            return .unusable("\(path) does not hold a saved sign-in")
        }
        guard let content = try? Wire.decode(Content.self, from: data), !content.refreshToken.isEmpty else {
            return .unusable("\(path) does not hold a saved sign-in")
        }
        guard content.origin == origin else { return .otherServer(content.origin) }
        return .token(SecretToken(content.refreshToken))
    }

    /// Replaces the file with one holding `token`, atomically and durably.
    public func save(_ token: SecretToken) throws {
        atStage(.answered)
        let data = try Wire.encode(Content(origin: origin, refreshToken: token.reveal())) + Data("\n".utf8)
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The mode above is for a new folder only: one made earlier with a laxer mode is
        // tightened, as the queue's and the caches' folders are.
        chmod(directory, 0o700)
        let temporary = "\(directory)/.\((path as NSString).lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileProblem(path: temporary, action: "create") }
        atStage(.temporaryCreated)
        var written = 0
        let ok = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = write(fd, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 { if errno == EINTR { continue }; return false }
                written += count
            }
            return fsync(fd) == 0
        }
        close(fd)
        guard ok else {
            unlink(temporary)
            throw FileProblem(path: temporary, action: "write")
        }
        atStage(.temporaryWritten)
        guard rename(temporary, path) == 0 else {
            let problem = FileProblem(path: path, action: "replace")
            unlink(temporary)
            throw problem
        }
        atStage(.replaced)
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Forgets the sign-in (logout, account deletion, a token the server revoked).
    public func remove() {
        unlink(path)
        removeLeftovers()
    }

    /// Temporary files of a write that never reached its rename (a crash): they hold a token.
    private func removeLeftovers() {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = ".\((path as NSString).lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            // Another live process may be writing its own: only files of dead writers go.
            let pid = name.dropFirst(prefix.count).split(separator: ".").first.flatMap { Int32($0) }
            if let pid, pid != getpid(), kill(pid, 0) == 0 { continue }
            if pid == getpid() { continue }
            unlink("\(directory)/\(name)")
        }
    }

    struct FileProblem: Error, CustomStringConvertible {
        var path: String
        var action: String
        let reason = String(cString: strerror(errno))
        var description: String { "Cannot \(action) \(path): \(reason)" }
    }
}

/// A token file others can read: not used.
private struct LaxMode: Error { var mode: mode_t }
