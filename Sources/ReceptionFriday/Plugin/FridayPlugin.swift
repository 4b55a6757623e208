import Foundation
import ReceptionCore

/// The `friday` plugin: what `--backend friday` and profiles of kind `friday` connect.
///
/// Without a profile, the built-in `friday` entry reads `FRIDAY_URL` (default
/// `ws://127.0.0.1:8787/ws`, where both `friday serve` and `reception serve friday` listen)
/// and `FRIDAY_IDLE_TIMEOUT` (seconds).
public enum FridayPlugin {
    public static let kind = "friday"

    public static let options: [PluginOption] = [
        PluginOption("url", .url, help: "the server's WebSocket URL, path included, e.g. ws://127.0.0.1:8787/ws", required: true),
        PluginOption("idle_timeout", .integer(1...3600),
                     help: "seconds of silence after Friday's last message before a question counts as unanswered (default 90)"),
    ]

    public static let plugin = BackendPlugin(
        kind: kind, summary: "Friday over WebSocket: streamed answers, tool use, permission questions",
        options: options,
        discussion: """
        Without a profile: FRIDAY_URL (default \(FridayConfiguration.defaultURL)) and FRIDAY_IDLE_TIMEOUT (seconds). \
        Friday has no field for intent: it is sent in the query's metadata.
        """,
        builtInProfile: builtInProfile,
        endpoint: { profile, _ in profile.string("url").map { FridayConfiguration(url: $0).url } },
        connect: { profile, _ in try await connect(configuration(for: profile), name: profile.name) })

    static func builtInProfile(_ environment: PluginEnvironment) -> BackendProfile {
        var values: [String: ProfileValue] = ["url": .string(environment[variable: "FRIDAY_URL"] ?? FridayConfiguration.defaultURL)]
        if let idle = environment[variable: "FRIDAY_IDLE_TIMEOUT"] {
            values["idle_timeout"] = Int(idle).map(ProfileValue.integer) ?? .string(idle)
        }
        return BackendProfile(name: kind, kind: kind, values: values, origin: "the FRIDAY_* environment variables")
    }

    public static func configuration(for profile: BackendProfile) throws -> FridayConfiguration {
        guard let url = profile.string("url") else { throw ProfileError(profile: profile, "it has no url.") }
        let lower = url.lowercased()
        guard lower.hasPrefix("ws://") || lower.hasPrefix("wss://") else {
            throw ProfileError(profile: profile, "url must be a ws:// or wss:// URL (Friday listens on ws://HOST:8787/ws); got \(RedactedURL.display(url)).")
        }
        // The WebSocket client reads "ws://user:pass@host" as the host "user": the messages
        // would go to a server the URL does not name. Friday takes no credentials in its URL.
        if RedactedURL.carriesCredentials(url) {
            throw ProfileError(profile: profile, "url must not carry a user name or password (Friday takes none, and the WebSocket client would connect to the user name as if it were the host); got \(RedactedURL.display(url)).")
        }
        var configuration = FridayConfiguration(url: url)
        if let value = profile.values["idle_timeout"] {
            guard case .integer(let seconds) = value, (1...3600).contains(seconds) else {
                throw ProfileError(profile: profile, "idle_timeout must be a number of seconds from 1 to 3600; got \(value.display).")
            }
            configuration.idleTimeout = .seconds(seconds)
        }
        return configuration
    }

    /// The connection: the backend, its session carried across `/new` and `reception -c`, and
    /// closing the socket when the front end leaves.
    /// The socket opens at once, so a server that is not there is said before the first
    /// question. Nothing listening there is not the end: the session starts offline with a
    /// notice, and each question tries the socket again (the offline queue keeps what cannot
    /// be sent). Something that answers but is not Friday's WebSocket is an error at once.
    public static func connect(_ configuration: FridayConfiguration, name: String) async throws -> BackendConnection {
        let backend = FridayBackend(configuration: configuration, name: name)
        var notice: String?
        do {
            try await backend.open()
        } catch BackendError.unreachable(_, let reason) {
            notice = "Friday at \(RedactedURL.display(configuration.url)) cannot be reached (\(reason)). Messages you send now are queued and sent when it answers."
        }
        return BackendConnection(backend: backend, notice: notice, continuity: FridayContinuity(backend: backend).continuity,
                                 shutdown: { await backend.close() })
    }
}
