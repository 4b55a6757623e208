import Foundation
import ReceptionCore

/// Whether conversations are logged: on unless the person said `reception logs off`, which
/// is remembered as a small file beside the log (so that knowing it costs a `stat`, not
/// opening SQLite, and holds even when the database cannot be read).
public struct LogSwitch: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// `$XDG_DATA_HOME/reception/conversations.off`.
    public static func path(in environment: PluginEnvironment) -> String {
        environment.dataDirectory + "/conversations.off"
    }

    public var isOff: Bool { FileManager.default.fileExists(atPath: path) }

    /// When it was turned off.
    public var offSince: Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    public func turnOff() throws {
        try PrivateFile.prepare(path)
        try PrivateFile.write(Data("Reception does not log conversations while this file exists (reception logs on removes it).\n".utf8),
                              to: URL(fileURLWithPath: path))
    }

    public func turnOn() throws {
        guard isOff else { return }
        try FileManager.default.removeItem(atPath: path)
    }
}
