import Foundation

/// XDG base directories (https://specifications.freedesktop.org/basedir-spec/), with the
/// spec's defaults when the variables are unset or not absolute.
enum XDG {
    static var configHome: URL { directory("XDG_CONFIG_HOME", default: ".config") }
    static var stateHome: URL { directory("XDG_STATE_HOME", default: ".local/state") }

    private static func directory(_ variable: String, default relative: String) -> URL {
        if let value = ProcessInfo.processInfo.environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(relative, isDirectory: true)
    }

    /// The folder holding `reception`, following symlinks, and its ancestors: lets a
    /// binary built in a checkout find the checkout's Souls/ from any working directory.
    static var executableAncestors: [URL] {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        var result: [URL] = []
        for _ in 0..<6 {
            result.append(directory)
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        return result
    }
}
