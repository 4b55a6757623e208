import Foundation
import ReceptionCore

/// The `codex` plugin: OpenAgents Codex workers through the Laravel API.
///
/// Without a profile, the built-in `codex` entry reads `CODEX_URL` (default
/// `http://127.0.0.1:8790`, where `reception serve codex` listens) and the Sanctum token from
/// `CODEX_TOKEN`; a profile takes `token_env` or a 0600 `token_file`.
public enum CodexPlugin {
    public static let kind = "codex"
    public static let defaultURL = "http://127.0.0.1:8790"
    /// The reference server's development token, offered on a loopback URL with none configured.
    public static let developmentToken = "reception-dev-token"

    public static let options: [PluginOption] = [
        PluginOption("url", .url, help: "the OpenAgents site, e.g. https://openagents.com (/api/runtime/codex/workers is added)", required: true),
        PluginOption("token", .secret, help: "the Sanctum personal access token, sent as Authorization: Bearer to this URL only"),
        PluginOption("tail_ms", .integer(1...120_000), help: "how long one long poll of the stream stays open, in milliseconds (default 15000)"),
        PluginOption("reconcile_s", .integer(1...3_600), help: "seconds between snapshot reconciliations while watching (default 30)"),
        PluginOption("handshake_source", .string, help: "the source of ios/handshake events (default autopilot-ios, the only one the desktop answers)"),
        PluginOption("handshake_timeout_s", .integer(1...600), help: "seconds to wait for desktop/handshake_ack (default 30)"),
        PluginOption("message_method", .string, help: "the method a typed message is sent with (default turn/start)"),
    ]

    public static let plugin = BackendPlugin(
        kind: kind, summary: "OpenAgents Codex workers: list, live timelines, requests, stop, desktop handshake",
        options: options,
        discussion: """
        Without a profile: CODEX_URL (default \(defaultURL)) and the token from CODEX_TOKEN. On a loopback URL \
        without a token, the reference server's development token is sent.
        """,
        builtInProfile: builtInProfile,
        endpoint: { profile, _ in profile.string("url").map { CodexConfiguration(baseURL: $0).baseURL } },
        connect: { profile, environment in
            let (configuration, watch) = try configuration(for: profile, environment: environment)
            return try await connect(configuration, watch: watch, name: profile.name)
        })

    static func builtInProfile(_ environment: PluginEnvironment) -> BackendProfile {
        var values: [String: ProfileValue] = ["url": .string(environment[variable: "CODEX_URL"] ?? defaultURL)]
        if environment[variable: "CODEX_TOKEN"] != nil { values["token"] = .secretFromEnvironment("CODEX_TOKEN") }
        if let tail = environment[variable: "CODEX_TAIL_MS"].flatMap(Int.init) { values["tail_ms"] = .integer(tail) }
        return BackendProfile(name: kind, kind: kind, values: values, origin: "the CODEX_* environment variables")
    }

    /// The client configuration and watch options of a profile; the token is read from where
    /// the profile says (a file must be 0600) and never appears in a message.
    public static func configuration(for profile: BackendProfile, environment: PluginEnvironment) throws -> (CodexConfiguration, CodexWatcher.Options) {
        guard let url = profile.string("url") else { throw ProfileError(profile: profile, "it has no url.") }
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw ProfileError(profile: profile, "url must be an http:// or https:// URL; got \(RedactedURL.display(url)).")
        }
        var token = try profile.secret("token", environment: environment)
        var source: String?
        switch profile.values["token"] {
        case .secretFromEnvironment(let variable)?: source = "$\(variable)"
        case .secretFromFile(let path)?: source = path
        default:
            if isLoopback(url) {
                token = developmentToken
                source = "the reference server's development token"
            }
        }
        var configuration = CodexConfiguration(baseURL: url, token: token, tokenSource: source)
        if let tail = profile.integer("tail_ms") { configuration.tailMS = tail }
        if let sourceName = profile.string("handshake_source"), !sourceName.isEmpty { configuration.handshakeSource = sourceName }
        if let seconds = profile.integer("handshake_timeout_s") { configuration.handshakeTimeout = .seconds(seconds) }
        if let method = profile.string("message_method"), !method.isEmpty { configuration.messageMethod = method }
        var watch = CodexWatcher.Options()
        watch.tailMS = configuration.tailMS
        if let seconds = profile.integer("reconcile_s") { watch.reconcileEvery = .seconds(seconds) }
        return (configuration, watch)
    }

    /// Connects: lists one worker, which checks the address and the token at once.
    public static func connect(_ configuration: CodexConfiguration, watch: CodexWatcher.Options = CodexWatcher.Options(),
                               name: String) async throws -> BackendConnection {
        let client = CodexClient(configuration: configuration)
        do {
            _ = try await client.list(limit: 1)
        } catch let error as CodexError where error.state == .unauthorized {
            await client.shutdown()
            let from = configuration.tokenSource.map { "the token from \($0)" } ?? "the request without a token"
            throw CodexConnectError(description: "The server at \(RedactedURL.display(configuration.baseURL)) refused \(from) (HTTP 401: \(error.message)). Set CODEX_TOKEN or the profile's token_env/token_file to a Sanctum personal access token. [x-request-id \(error.requestID)]")
        } catch {
            await client.shutdown()
            throw error
        }
        let backend = CodexBackend(client: client, name: name)
        return BackendConnection(backend: backend, commands: CodexCommands(backend: backend, watchOptions: watch).all,
                                 notice: "Codex workers at \(RedactedURL.display(configuration.baseURL)): /workers lists them, /worker ID watches one live.",
                                 shutdown: { await client.shutdown() })
    }

    static func isLoopback(_ url: String) -> Bool {
        guard let host = URLComponents(string: url)?.host?.lowercased() else { return false }
        return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]"
    }
}

public struct CodexConnectError: Error, Sendable, CustomStringConvertible {
    public var description: String
}
