import Foundation

/// Writes files that hold conversation data so that only their owner can read them: the
/// bytes go to a new 0600 file beside the target, which then replaces it in one rename, so
/// there is never a moment when the text is readable by others or half written.
enum PrivateFile {
    static func write(_ data: Data, to url: URL) throws {
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
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
