import Foundation
import ReceptionCore

/// The `loomi` plugin: what `--backend loomi` and profiles of kind `loomi` connect.
///
/// Without a profile, the built-in `loomi` entry reads `LOOMI_URL` (default
/// `http://127.0.0.1:8791`, where `reception serve loomi` listens) and `LOOMI_API_KEY`.
/// Connecting needs no network: the cached recipes can be read with the server stopped.
public enum LoomiPlugin {
    public static let kind = "loomi"

    public static let options: [PluginOption] = [
        PluginOption("url", .url, help: "the recipe agent's base URL, e.g. http://127.0.0.1:8791", required: true),
        PluginOption("api_key", .secret, help: "sent as Authorization: Bearer, to this URL only"),
        PluginOption("target_count", .integer(1...12), help: "how many recipes the agent is asked for (default 4)"),
        PluginOption("decision_ttl_s", .integer(300...600), help: "how long an agent decision is reused, in seconds (default 300)"),
        PluginOption("timeout_s", .integer(1...600), help: "longest wait for either call, in seconds (default 30)"),
    ]

    public static let plugin = BackendPlugin(
        kind: kind, summary: "Loomi recipe agent over HTTP: the answer at once, recipe cards as they arrive, cached for offline reading",
        options: options,
        discussion: """
        Without a profile: LOOMI_URL (default \(LoomiConfiguration.defaultURL)) and LOOMI_API_KEY. \
        Decisions are cached for 5 minutes and recipes for 24 hours in $XDG_CACHE_HOME/reception/loomi/PROFILE.sqlite.
        """,
        builtInProfile: builtInProfile,
        endpoint: { profile, _ in LoomiConfiguration(baseURL: profile.string("url") ?? LoomiConfiguration.defaultURL).baseURL },
        connect: { profile, environment in
            try connect(configuration(for: profile, environment: environment), name: profile.name,
                        cachePath: cachePath(profile: profile.name, environment: environment),
                        decisionTTL: TimeInterval(profile.integer("decision_ttl_s") ?? 300))
        })

    static func builtInProfile(_ environment: PluginEnvironment) -> BackendProfile {
        var values: [String: ProfileValue] = ["url": .string(environment[variable: "LOOMI_URL"] ?? LoomiConfiguration.defaultURL)]
        if environment[variable: "LOOMI_API_KEY"] != nil { values["api_key"] = .secretFromEnvironment("LOOMI_API_KEY") }
        return BackendProfile(name: kind, kind: kind, values: values, origin: "the LOOMI_* environment variables")
    }

    /// A client configuration for a profile, with its key read from where the profile says.
    public static func configuration(for profile: BackendProfile, environment: PluginEnvironment) throws -> LoomiConfiguration {
        guard let url = profile.string("url") else { throw ProfileError(profile: profile, "it has no url.") }
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw ProfileError(profile: profile, "url must be an http:// or https:// URL; got \(RedactedURL.display(url)).")
        }
        var configuration = LoomiConfiguration(baseURL: url, apiKey: try profile.secret("api_key", environment: environment),
                                               targetCount: profile.integer("target_count") ?? 4)
        if let seconds = profile.integer("timeout_s") {
            configuration.decisionTimeout = .seconds(seconds)
            configuration.recipesTimeout = .seconds(seconds)
        }
        switch profile.values["api_key"] {
        case .secretFromEnvironment(let variable)?: configuration.apiKeySource = "$\(variable)"
        case .secretFromFile(let path)?: configuration.apiKeySource = path
        default: break
        }
        return configuration
    }

    /// The connection: the backend with its cache, `/recipes` and `/recipe`. A cache that
    /// cannot be opened leaves the session working without one, and says why.
    public static func connect(_ configuration: LoomiConfiguration, name: String, cachePath: String,
                               decisionTTL: TimeInterval = 300, now: @escaping @Sendable () -> Date = { Date() }) throws -> BackendConnection {
        let client = LoomiClient(configuration: configuration)
        var cache: LoomiCache?
        var problem: String?
        do {
            let opened = try LoomiCache(path: cachePath, decisionTTL: decisionTTL, now: now)
            cache = opened
            problem = opened.problem
        } catch {
            problem = "The recipe cache \(cachePath) could not be opened (\(error)); this session works without it."
        }
        let backend = LoomiBackend(client: client, cache: cache, name: name)
        return BackendConnection(backend: backend, commands: LoomiCommands(backend: backend, cacheProblem: problem).all,
                                 notice: problem, shutdown: { await client.shutdown() })
    }

    /// `$XDG_CACHE_HOME/reception/loomi/PROFILE.sqlite` (default `~/.cache`).
    public static func cachePath(profile: String, environment: PluginEnvironment) -> String {
        let safe = String(profile.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        let base: String
        if let cache = environment[variable: "XDG_CACHE_HOME"], cache.hasPrefix("/") {
            base = cache + "/reception"
        } else if let home = environment[variable: "HOME"], home.hasPrefix("/") {
            base = home + "/.cache/reception"
        } else {
            base = environment.stateDirectory
        }
        return base + "/loomi/\(safe.isEmpty ? "loomi" : safe).sqlite"
    }
}
