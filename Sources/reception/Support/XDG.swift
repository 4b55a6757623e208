import Foundation

/// XDG base directories (https://specifications.freedesktop.org/basedir-spec/), with the
/// spec's defaults when the variables are unset or not absolute.
enum XDG {
    static var stateHome: URL { directory("XDG_STATE_HOME", default: ".local/state") }
    static var dataHome: URL { directory("XDG_DATA_HOME", default: ".local/share") }

    /// `$HOME` when it is set and absolute, else the account's home directory. Foundation's
    /// `homeDirectoryForCurrentUser` reads the password database and ignores `$HOME` on Linux,
    /// which would put files of a session run with another `HOME` (a test, a sandbox, `sudo -E`)
    /// in the wrong place.
    static var home: URL {
        if let value = ProcessInfo.processInfo.environment["HOME"], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    private static func directory(_ variable: String, default relative: String) -> URL {
        if let value = ProcessInfo.processInfo.environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        return home.appendingPathComponent(relative, isDirectory: true)
    }
}
