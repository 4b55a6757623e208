import Foundation
import Testing

/// Third-party data the tests read in place and the project never commits: the human-written
/// corpora and the published personas, in the `shared` folder beside the repository
/// (`../shared`). CI has that folder; a clone on its own does not, so a test that needs it is
/// skipped there with a reason that names the folder, and `.ci/run` turns the absence into a
/// failure (it sets `RECEPTION_REQUIRE_SHARED=1`), so nothing is silently skipped in CI.
public enum SharedData {
    /// The repository's root, from this file's place in it (`Tests/Support/`).
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared`, beside the repository.
    public static let folder = repository.deletingLastPathComponent().appendingPathComponent("shared")

    /// A file or folder under `../shared`.
    public static func url(_ relativePath: String) -> URL { folder.appendingPathComponent(relativePath) }

    /// Whether a missing folder must fail the tests rather than skip them (CI).
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["RECEPTION_REQUIRE_SHARED"] == "1" }

    public static func isPresent(_ relativePath: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url(relativePath).path, isDirectory: &isDirectory)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test or suite when `../shared/RELATIVE_PATH` exists, and skips it with a reason
    /// naming that path when it does not. Under `RECEPTION_REQUIRE_SHARED=1` the test always runs,
    /// so an absent folder fails it where the data is read.
    public static func needsShared(_ relativePath: String) -> Self {
        .enabled(
            if: SharedData.isRequired || SharedData.isPresent(relativePath),
            Comment(rawValue: "needs \(SharedData.url(relativePath).standardizedFileURL.path) (third-party data beside the repository, not part of a clone)")
        )
    }
}
