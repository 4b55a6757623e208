import Foundation

/// Where the tests write their files: one folder per test process in the system's temporary
/// folder, removed with everything in it when the process exits.
///
/// Hundreds of tests each make a home, a corpus or a copy of a persona, and removing each one
/// at the end of its test would take a `defer` in every one of them (and a failed `#require`
/// skips nothing after it, so some would still be left). One folder per run, removed by an
/// `atexit` handler, leaves nothing behind a passing or failing run, third-party text included.
/// Only a run killed by a signal leaves its folder; the next run does not read it.
public enum Scratch {
    /// The run's folder: `reception-tests-PID-RANDOM` in the temporary folder. Nobody else can
    /// list it (0711), but a test that runs Reception as another user (`nobody`, for a
    /// read-only log when the tests run as root) can reach that user's home inside it.
    public static let root: URL = {
        let base = FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("reception-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
        // Not withIntermediateDirectories: a folder already there (made by someone else) fails.
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o711])
        } catch {
            fatalError("cannot make the tests' scratch folder \(url.path): \(error)")
        }
        rootPath = url.path
        atexit { if let path = Scratch.rootPath { try? FileManager.default.removeItem(atPath: path) } }
        return url
    }()

    /// The root's path for the exit handler, which can capture nothing.
    nonisolated(unsafe) private static var rootPath: String?

    /// A path in the run's folder, not created: `NAME-UUID` plus `suffix` (".jsonl").
    public static func url(_ name: String, suffix: String = "") -> URL {
        root.appendingPathComponent("\(name)-\(UUID().uuidString)\(suffix)")
    }

    /// A new empty folder in the run's folder, `NAME-UUID`.
    public static func directory(_ name: String) throws -> URL {
        let url = url(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
