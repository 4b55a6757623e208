import Foundation

/// A kind of backend, as an executable lists it: the way swift-argument-parser's root
/// command lists its subcommands, Reception's executable lists plugins, and each adapter
/// module exports one. Nothing here depends on a front end: the REPL, a test or another
/// app connects a profile the same way.
///
/// ```swift
/// public enum EchoPlugin {
///     public static let plugin = BackendPlugin(
///         kind: "echo", summary: "answers with what you said",
///         options: [.init("prefix", .string, help: "put before every answer")]
///     ) { profile, _ in
///         BackendConnection(backend: EchoBackend(name: profile.name, prefix: profile.string("prefix") ?? ""))
///     }
/// }
/// ```
public struct BackendPlugin: Sendable {
    /// What profiles name in `kind`, and the name of the built-in profile: `local`, `loop-symphony`.
    public var kind: String
    /// One line for `/backend` and `reception backends`.
    public var summary: String
    /// What a profile of this kind may set. Anything else is an error, located in the file.
    public var options: [PluginOption]
    /// Longer help: where the server is by default, which environment variables it reads.
    public var discussion: String
    /// The profile used when the person names the kind itself and no profile of that name
    /// exists (e.g. `--backend loop-symphony` reads `LOOP_SYMPHONY_URL`). Nil: the kind
    /// cannot be used without a profile.
    public var builtInProfile: (@Sendable (PluginEnvironment) -> BackendProfile)?
    /// The server a profile points at, as its backend's `descriptor.endpoint` will name it,
    /// worked out from its url alone (no connection, no key read): `reception queue` tells by
    /// it that a queued message was written for a server its profile no longer names. Nil: no
    /// server, or not known.
    public var endpoint: (@Sendable (BackendProfile, PluginEnvironment) -> String?)?
    /// Connects a validated profile: reaches the server, opens caches, starts background work.
    public var connect: @Sendable (BackendProfile, PluginEnvironment) async throws -> BackendConnection

    public init(kind: String, summary: String, options: [PluginOption] = [], discussion: String = "",
                builtInProfile: (@Sendable (PluginEnvironment) -> BackendProfile)? = { _ in BackendProfile(name: "", kind: "") },
                endpoint: (@Sendable (BackendProfile, PluginEnvironment) -> String?)? = nil,
                connect: @escaping @Sendable (BackendProfile, PluginEnvironment) async throws -> BackendConnection) {
        self.kind = kind
        self.summary = summary
        self.options = options
        self.discussion = discussion
        if let builtInProfile {
            self.builtInProfile = { environment in
                var profile = builtInProfile(environment)
                if profile.name.isEmpty { profile.name = kind }
                profile.kind = kind
                return profile
            }
        } else {
            self.builtInProfile = nil
        }
        self.endpoint = endpoint
        self.connect = connect
    }

    /// The declared option of that name.
    public func option(named name: String) -> PluginOption? { options.first { $0.name == name } }
}

/// What a plugin may read from the process: the environment and the XDG directories
/// (so tests can point everything at a scratch home).
public struct PluginEnvironment: Sendable {
    public var variables: [String: String]
    /// `$XDG_DATA_HOME/reception` (caches, databases).
    public var dataDirectory: String
    /// `$XDG_STATE_HOME/reception` (sessions, tokens).
    public var stateDirectory: String
    /// `$XDG_CONFIG_HOME/reception`.
    public var configDirectory: String

    public init(variables: [String: String], dataDirectory: String, stateDirectory: String, configDirectory: String) {
        self.variables = variables
        self.dataDirectory = dataDirectory
        self.stateDirectory = stateDirectory
        self.configDirectory = configDirectory
    }

    /// The XDG base directories of `variables`, with the spec's defaults when a variable is
    /// unset or not absolute. `$HOME` comes first: Foundation's home lookup reads the password
    /// database and ignores `$HOME` on Linux, which would put the files of a session run with
    /// another `HOME` (a test, a sandbox, `sudo -E`) in the wrong place.
    public static func standard(_ variables: [String: String] = ProcessInfo.processInfo.environment) -> PluginEnvironment {
        let home = UserPath.home(variables)
        func xdg(_ name: String, _ fallback: String) -> String {
            let base = variables[name].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/" + fallback
            return base + "/reception"
        }
        return PluginEnvironment(variables: variables, dataDirectory: xdg("XDG_DATA_HOME", ".local/share"),
                                 stateDirectory: xdg("XDG_STATE_HOME", ".local/state"),
                                 configDirectory: xdg("XDG_CONFIG_HOME", ".config"))
    }

    /// A non-empty variable, or nil.
    public subscript(variable name: String) -> String? {
        variables[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
