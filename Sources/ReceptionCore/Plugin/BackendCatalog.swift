/// The backends a front end can name: the plugins the executable lists, each kind's built-in
/// profile, further built-in profiles the executable adds (`defaults`: the model servers'
/// usual local ports), and the profiles of the configuration file. A profile's name wins over
/// a built-in one of the same name.
public struct BackendCatalog: Sendable {
    public var plugins: [BackendPlugin]
    public var profiles: [BackendProfile]
    /// Built-in profiles beyond each kind's own, listed after them.
    public var defaults: [BackendProfile]
    public var environment: PluginEnvironment

    public init(plugins: [BackendPlugin], profiles: [BackendProfile] = [], defaults: [BackendProfile] = [], environment: PluginEnvironment) {
        self.plugins = plugins
        self.profiles = profiles
        self.defaults = defaults
        self.environment = environment
    }

    /// Every name, configured profiles first, then built-in ones, each with its plugin.
    public var entries: [(profile: BackendProfile, plugin: BackendPlugin)] {
        var result: [(BackendProfile, BackendPlugin)] = []
        var taken = Set<String>()
        for profile in profiles {
            guard let plugin = plugin(kind: profile.kind), taken.insert(profile.name).inserted else { continue }
            result.append((profile, plugin))
        }
        for plugin in plugins {
            guard let builtIn = plugin.builtInProfile?(environment), taken.insert(builtIn.name).inserted else { continue }
            result.append((builtIn, plugin))
        }
        for profile in defaults {
            guard let plugin = plugin(kind: profile.kind), taken.insert(profile.name).inserted else { continue }
            result.append((profile, plugin))
        }
        return result
    }

    public var names: [String] { entries.map(\.profile.name) }

    /// Configured profiles that take the name of a built-in backend, each said in words: the
    /// profile wins, so the built-in one of that name is out of reach (its defaults, its
    /// environment variables) for as long as the profile has the name. Said when the
    /// configuration is loaded, rather than found out when the wrong server answers.
    public var replacedBuiltIns: [String] {
        var said = Set<String>()
        return profiles.compactMap { profile in
            guard let origin = profile.origin, plugin(kind: profile.kind) != nil,
                  let builtIn = plugins.first(where: { $0.builtInProfile?(environment).name == profile.name }),
                  said.insert(profile.name).inserted else { return nil }
            if builtIn.kind == profile.kind {
                return "the profile \(profile.name) (\(origin)) replaces the built-in backend of the same name: --backend \(profile.name) uses this profile's settings, not the built-in ones."
            }
            return "the profile \(profile.name) (\(origin)) is of kind \(profile.kind) and takes the name of the built-in \(builtIn.kind) backend, which cannot be chosen while the profile has its name; rename the profile to keep both."
        }
    }

    public func plugin(kind: String) -> BackendPlugin? { plugins.first { $0.kind == kind } }

    /// The server the profile `name` points at now, without connecting: `.missing` when there
    /// is no such profile; `.names(nil)` when it names no server (or its kind cannot say).
    public func endpoint(of name: String) -> ProfileEndpoint {
        guard let (profile, plugin) = try? entry(named: name) else { return .missing }
        // Spelled as the descriptor spells it, so it compares with what the queue recorded.
        return .names(plugin.endpoint?(profile, environment).map(BackendDescriptor.endpointKey))
    }

    /// The profile of that name, or a clear error listing the names (with a did-you-mean).
    public func entry(named name: String) throws -> (profile: BackendProfile, plugin: BackendPlugin) {
        if let found = entries.first(where: { $0.profile.name == name }) { return found }
        let hint = closest(name, among: names).map { " Did you mean \($0)?" } ?? ""
        throw BackendCatalogError(description: "Unknown backend \"\(name)\".\(hint) Known: \(names.joined(separator: ", ")).")
    }

    /// Connects the named backend.
    public func connect(_ name: String) async throws -> BackendConnection {
        let (profile, plugin) = try entry(named: name)
        // A file's profiles were checked when the file was read; a built-in one comes from
        // environment variables, and one made in code from anything, so both are checked here
        // (`LOOP_SYMPHONY_URL=htp:/host` would be "unreachable" and queue messages for a server
        // that cannot exist; `pause_ms: -5` would reach the plugin unchecked).
        if let problem = plugin.problems(in: profile).first {
            let source = profile.origin.map { " (from \($0))" } ?? ""
            throw BackendCatalogError(description: String(problem.dropLast()) + "\(source).")
        }
        return try await plugin.connect(profile, environment)
    }
}

public struct BackendCatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// Where a profile points now (`BackendCatalog.endpoint(of:)`).
public enum ProfileEndpoint: Sendable, Hashable {
    case names(String?)
    case missing
}
