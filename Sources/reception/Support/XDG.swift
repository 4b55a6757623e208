import Foundation

/// XDG base directories (https://specifications.freedesktop.org/basedir-spec/), with the
/// spec's defaults when the variables are unset or not absolute.
enum XDG {
    static var stateHome: URL { directory("XDG_STATE_HOME", default: ".local/state") }

    private static func directory(_ variable: String, default relative: String) -> URL {
        if let value = ProcessInfo.processInfo.environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(relative, isDirectory: true)
    }
}
