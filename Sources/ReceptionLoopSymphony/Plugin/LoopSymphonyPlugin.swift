import Foundation
import ReceptionCore

/// The `loop-symphony` plugin: what `--backend loop-symphony` and profiles of kind
/// `loop-symphony` connect.
///
/// Without a profile, the built-in `loop-symphony` entry reads `LOOP_SYMPHONY_URL` (default
/// `http://127.0.0.1:8765`, where `reception serve loop-symphony` listens),
/// `LOOP_SYMPHONY_API_KEY` (on a loopback URL without one: the reference server's `dev-key`),
/// `LOOP_SYMPHONY_USER_ID` (default `$USER`) and `LOOP_SYMPHONY_TRUST_LEVEL`.
public enum LoopSymphonyPlugin {
    public static let kind = "loop-symphony"

    public static let options: [PluginOption] = [
        PluginOption("url", .url, help: "the server's base URL, e.g. https://loop.example.com", required: true),
        PluginOption("api_key", .secret, help: "the app's API key, sent as X-Api-Key"),
        PluginOption("user_id", .string, help: "sent as X-User-Id; the server maps it to its own user"),
        .trustLevel,
        PluginOption("stream", .boolean, help: "follow tasks over SSE (default true); false polls GET /task/{id}"),
    ]

    public static let plugin = plugin()

    /// The plugin; `roomInterval` is the heartbeat period of the session's room (tests shorten it).
    public static func plugin(roomInterval: Duration = .seconds(60)) -> BackendPlugin {
        BackendPlugin(
            kind: kind, summary: "Loop Symphony over HTTP + SSE: plans, trust, knowledge, rooms, heartbeats",
            options: options,
            discussion: """
            Without a profile: LOOP_SYMPHONY_URL (default http://127.0.0.1:8765), LOOP_SYMPHONY_API_KEY \
            (dev-key on a loopback URL), LOOP_SYMPHONY_USER_ID (default $USER), LOOP_SYMPHONY_TRUST_LEVEL.
            """,
            builtInProfile: builtInProfile,
            endpoint: { profile, _ in profile.string("url").map { LoopSymphonyConfiguration(baseURL: $0).baseURL } },
            connect: { profile, environment in
                try await connect(configuration(for: profile, environment: environment), name: profile.name,
                                  environment: environment, roomInterval: roomInterval)
            })
    }

    static func builtInProfile(_ environment: PluginEnvironment) -> BackendProfile {
        var values: [String: ProfileValue] = ["url": .string(environment[variable: "LOOP_SYMPHONY_URL"] ?? "http://127.0.0.1:8765")]
        if environment[variable: "LOOP_SYMPHONY_API_KEY"] != nil { values["api_key"] = .secretFromEnvironment("LOOP_SYMPHONY_API_KEY") }
        if let user = environment[variable: "LOOP_SYMPHONY_USER_ID"] ?? environment[variable: "USER"] { values["user_id"] = .string(user) }
        if let level = environment[variable: "LOOP_SYMPHONY_TRUST_LEVEL"] {
            values["trust_level"] = Int(level).map(ProfileValue.integer) ?? .string(level)
        }
        return BackendProfile(name: kind, kind: kind, values: values, origin: builtInOrigin)
    }

    static let builtInOrigin = "the LOOP_SYMPHONY_* environment variables"

    /// A ready client configuration for a profile, with its key read from where the profile says.
    public static func configuration(for profile: BackendProfile, environment: PluginEnvironment) throws -> LoopSymphonyConfiguration {
        guard let url = profile.string("url") else { throw ProfileError(profile: profile, "it has no url.") }
        var trust = 0
        if let value = profile.values["trust_level"] {
            guard case .integer(let level) = value, (0...2).contains(level) else {
                throw ProfileError(profile: profile, "trust_level must be 0, 1 or 2; got \(value.display).")
            }
            trust = level
        }
        var configuration = LoopSymphonyConfiguration(baseURL: url, apiKey: try profile.secret("api_key", environment: environment),
                                                      userID: profile.string("user_id"), defaultTrustLevel: trust,
                                                      prefersStreaming: profile.boolean("stream") ?? true)
        if profile.values["trust_level"] != nil {
            configuration.trustLevelSource = profile.name == kind && profile.origin == builtInOrigin
                ? "$LOOP_SYMPHONY_TRUST_LEVEL" : "the profile's trust_level (\(profile.origin ?? profile.name))"
        }
        switch profile.values["api_key"] {
        case .secretFromEnvironment(let variable)?: configuration.apiKeySource = "$\(variable)"
        case .secretFromFile(let path)?: configuration.apiKeySource = path
        default: break
        }
        if configuration.apiKey == nil, let host = URL(string: configuration.baseURL)?.host, ["127.0.0.1", "localhost", "::1"].contains(host) {
            configuration.apiKey = "dev-key"  // the reference server's documented development key, not a secret
            configuration.apiKeyIsDevelopmentDefault = true
        }
        return configuration
    }

    /// Connects: checks the server is there, then sets up the backend, its commands, the trust
    /// question after tasks and the room presence (register, heartbeat with knowledge sync into
    /// the SQLite cache, deregister on shutdown).
    public static func connect(_ configuration: LoopSymphonyConfiguration, name: String, environment: PluginEnvironment,
                               roomInterval: Duration = .seconds(60)) async throws -> BackendConnection {
        var connecting = LoopSymphonyClient(configuration: configuration)
        var notice: String?
        // A server that cannot be reached at all: connect offline, so what the person sends can
        // wait in the offline queue. Any other failure is said at once.
        var offline = false
        do {
            _ = try await connecting.health.check()
        } catch BackendError.unreachable(_, let reason) {
            offline = true
            // The key is spoken of only when one was configured: the reference server's
            // development key, sent on loopback when none was, is nobody's to check.
            let keyUnchecked = configuration.apiKey != nil && !configuration.apiKeyIsDevelopmentDefault ? " (the API key could not be checked)" : ""
            notice = "The server at \(RedactedURL.display(configuration.baseURL)) cannot be reached (\(reason)). Messages you send now are queued and sent when it answers\(keyUnchecked)."
        } catch BackendError.http(let status, let detail) {
            // Something answers, but not Loop Symphony's health check: name the URL, and the
            // likely cause for a 404 (a URL with a path, or another server's port).
            await connecting.shutdown()
            let url = RedactedURL.display(configuration.baseURL)
            let hint = status == 404
                ? " Is \(url) Loop Symphony's base URL? It is the server's root, with no path: GET /health must answer there."
                : ""
            throw LoopSymphonyConnectError(description: "The server at \(url) answered GET /health with HTTP \(status): \(Sentences.ended(detail))\(hint)")
        } catch {
            await connecting.shutdown()
            throw error
        }
        // Check the key once, on an endpoint that requires it: the server ignores a bad key on
        // optional-auth endpoints, so tasks would run unattributed and trust never build up.
        var serverTrustLevel: Int?
        if configuration.apiKey != nil && !offline {
            do {
                serverTrustLevel = try await connecting.trust.metrics().currentTrustLevel
            } catch BackendError.http(let status, let detail) where status == 401 || status == 403 {
                await connecting.shutdown()
                guard configuration.apiKeyIsDevelopmentDefault else {
                    throw LoopSymphonyConnectError(description: "The server at \(RedactedURL.display(configuration.baseURL)) refused the API key from \(configuration.apiKeySource ?? "the configuration") (HTTP \(status): \(detail)). Without a valid key tasks run unattributed and trust never builds up; check the key, or the app's status on the server.")
                }
                // The reference server's development key means nothing to a real server: go on
                // without a key, and say so.
                var keyless = configuration
                keyless.apiKey = nil
                keyless.apiKeyIsDevelopmentDefault = false
                connecting = LoopSymphonyClient(configuration: keyless)
                notice = "This server does not know the reference server's development key: going on without an API key, so tasks are not attributed to an app. Set LOOP_SYMPHONY_API_KEY or a profile's api_key_env."
            } catch {
                // Trust metrics unavailable for another reason: the session still works.
            }
        }
        let client = connecting
        let serverLevel = serverTrustLevel
        let backend = LoopSymphonyBackend(client: client, name: name)
        let path = cachePath(profile: name, environment: environment)
        let cache: KnowledgeCache?
        let cacheProblem: String?
        do {
            cache = try KnowledgeCache(path: path)
            cacheProblem = nil
        } catch {
            // The session still works without the cache; /knowledge says why it is missing.
            cache = nil
            cacheProblem = "The local knowledge cache \(path) could not be opened: \(error)"
        }
        let log = RoomLog()
        let presence = RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: cache,
                                    interval: roomInterval, onEvent: { log.record($0) })
        let room = Task { try? await presence.run() }
        let advisor = TrustAdvisor(client: client)
        let asked = AskedLevels()
        let commands = LoopSymphonyCommands(client: client, cache: cache, cacheProblem: cacheProblem, presence: presence, log: log,
                                            plansAwaitingApproval: { backend.plansAwaitingApproval }).all
        return BackendConnection(
            backend: backend,
            commands: commands,
            afterTask: { _ in
                // Checks for an upgrade suggestion; asks once per suggested level per session.
                guard let offer = try? await advisor.offer(), asked.firstTime(offer.suggestedLevel) else { return nil }
                return BackendQuestion(text: offer.question, trustLevel: offer.suggestedLevel,
                                       answerCommand: "/trust-metrics set \(offer.suggestedLevel), then /trust \(offer.suggestedLevel)") {
                    let metrics = try await advisor.accept(offer)
                    return "Trust level on the server is now **\(metrics.currentTrustLevel)** (\(TrustAdvisor.levelName(metrics.currentTrustLevel)))."
                }
            },
            // A level the configuration sets explicitly wins, and `--trust` over it; without one,
            // the server's level is used, so an upgrade accepted in an earlier session stays.
            defaultTrustLevel: configuration.trustLevelSource != nil ? configuration.defaultTrustLevel
                : serverLevel ?? configuration.defaultTrustLevel,
            notice: notice,
            trustLevelDisagreement: { sessionLevel, chosenByPerson in
                guard let server = serverLevel, server != sessionLevel else { return nil }
                let source = chosenByPerson ? "you chose (--trust)" : configuration.trustLevelSource ?? "the configuration says"
                return "The server at \(RedactedURL.display(configuration.baseURL)) keeps trust level \(server) (\(TrustAdvisor.levelName(server))) for this app and user; this session sends level \(sessionLevel) (\(TrustAdvisor.levelName(sessionLevel))), as \(source)\(chosenByPerson ? "" : " says"). `/trust-metrics set \(sessionLevel)` makes the server's record agree."
            },
            shutdown: {
                room.cancel()
                _ = await room.value
                await client.shutdown()
            })
    }

    /// `$XDG_DATA_HOME/reception/loop-symphony/PROFILE.sqlite`.
    public static func cachePath(profile: String, environment: PluginEnvironment) -> String {
        let safe = profile.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return environment.dataDirectory + "/loop-symphony/\(String(safe)).sqlite"
    }
}

/// A Loop Symphony server that cannot be used as configured, in words.
public struct LoopSymphonyConnectError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Remembers which trust levels were already offered in this session.
final class AskedLevels: @unchecked Sendable {
    private let lock = NSLock()
    private var levels: Set<Int> = []
    func firstTime(_ level: Int) -> Bool { lock.lock(); defer { lock.unlock() }; return levels.insert(level).inserted }
}

/// The last room events of one session, for `/rooms log`.
public final class RoomLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [(Date, RoomPresence.Event)] = []
    public init() {}
    func record(_ event: RoomPresence.Event) {
        lock.lock()
        events.append((Date(), event))
        if events.count > 50 { events.removeFirst() }
        lock.unlock()
    }
    var recent: [(Date, RoomPresence.Event)] { lock.lock(); defer { lock.unlock() }; return events }
}
