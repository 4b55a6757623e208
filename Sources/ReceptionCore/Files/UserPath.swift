import Foundation

/// A path a person typed, with `~` as their home: `$HOME` when it is set to an absolute path,
/// else the account's home directory. Foundation's `expandingTildeInPath` reads the account's
/// entry only, so with HOME pointing elsewhere (a test, a sandbox, a second profile) `/save
/// ~/t.md` wrote into the account's home, not the one the person is using.
public enum UserPath {
    public static func expand(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        return home(environment) + String(path.dropFirst())
    }

    /// `path` with the home folder written `~`, as a person would type it.
    public static func abbreviate(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let home = home(environment)
        guard home != "/", path == home || path.hasPrefix(home + "/") else { return path }
        return "~" + path.dropFirst(home.count)
    }

    /// The home folder `~` stands for.
    public static func home(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
    }
}
