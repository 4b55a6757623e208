import Foundation
import ReceptionCore
import ReceptionLoopSymphony
import ReceptionREPL

/// The Loop Symphony entries of `--backend` / `/backend`:
/// - one per profile of kind `loop-symphony` in `$XDG_CONFIG_HOME/reception/backends.json`;
/// - `loop-symphony` itself (unless a profile takes that name): `$LOOP_SYMPHONY_URL` (default
///   `http://127.0.0.1:8765`, where `reception serve loop-symphony` listens), key from
///   `$LOOP_SYMPHONY_API_KEY` (on a loopback URL without one: the reference server's `dev-key`),
///   user from `$LOOP_SYMPHONY_USER_ID`.
enum LoopSymphonyCatalog {
    static func entries(environment: [String: String] = ProcessInfo.processInfo.environment) -> [BackendEntry] {
        let store = BackendProfileStore(environment: environment)
        var entries: [BackendEntry] = []
        var names: Set<String> = []
        let profiles: [BackendProfile]
        do {
            profiles = try store.load()
        } catch {
            // A broken profiles file must not stop the REPL; selecting the entry explains it.
            let message = String(describing: error)
            entries.append(BackendEntry(name: "loop-symphony-profiles", summary: "unreadable: \(store.path)") {
                throw BackendProfileError.unreadable(path: store.path, reason: message)
            })
            profiles = []
        }
        for profile in profiles where profile.kind == "loop-symphony" {
            names.insert(profile.name)
            entries.append(BackendEntry(name: profile.name, summary: "Loop Symphony profile: \(profile.summary)") {
                try await LoopSymphonySessionFactory.session(configuration: try store.configuration(for: profile), name: profile.name)
            })
        }
        if !names.contains("loop-symphony") {
            let configuration = defaultConfiguration(environment: environment)
            entries.append(BackendEntry(name: "loop-symphony", summary: "Loop Symphony at \(configuration.baseURL) (HTTP + SSE)") {
                try await LoopSymphonySessionFactory.session(configuration: configuration, name: "loop-symphony")
            })
        }
        return entries
    }

    static func defaultConfiguration(environment: [String: String]) -> LoopSymphonyConfiguration {
        var configuration = LoopSymphonyConfiguration.fromEnvironment(environment)
            ?? LoopSymphonyConfiguration(baseURL: "http://127.0.0.1:8765")
        if configuration.apiKey == nil, let host = URL(string: configuration.baseURL)?.host, ["127.0.0.1", "localhost", "::1"].contains(host) {
            configuration.apiKey = "dev-key"  // the reference server's documented development key, not a secret
        }
        if configuration.userID == nil { configuration.userID = environment["USER"] }
        return configuration
    }
}

/// Builds the REPL session for a Loop Symphony server: the backend, its slash commands, the
/// trust question after tasks, and the room presence (register, heartbeat every 60 s with
/// knowledge sync into the SQLite cache, deregister on exit or backend switch).
enum LoopSymphonySessionFactory {
    static func session(configuration: LoopSymphonyConfiguration, name: String,
                        roomInterval: Duration = .seconds(60)) async throws -> BackendSession {
        let client = LoopSymphonyClient(configuration: configuration)
        // Fail early and clearly when the server is not there.
        do {
            _ = try await client.health.check()
        } catch {
            await client.shutdown()
            throw error
        }
        let backend = LoopSymphonyBackend(client: client, name: name)
        let path = cachePath(profile: name)
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
        let presence = RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: cache,
                                    interval: roomInterval, onEvent: { RoomLog.shared.record($0) })
        let room = Task { try? await presence.run() }
        let advisor = TrustAdvisor(client: client)
        let asked = AskedLevels()
        let commands = LoopSymphonyCommands(client: client, cache: cache, cacheProblem: cacheProblem, presence: presence).all
        return BackendSession(
            backend: backend,
            commands: commands,
            afterTask: { _ in
                // Checks for an upgrade suggestion; asks once per suggested level per session.
                guard let offer = try? await advisor.offer(), asked.firstTime(offer.suggestedLevel) else { return nil }
                return REPLQuestion(text: offer.question, trustLevel: offer.suggestedLevel) {
                    let metrics = try await advisor.accept(offer)
                    return "Trust level on the server is now **\(metrics.currentTrustLevel)** (\(TrustAdvisor.levelName(metrics.currentTrustLevel)))."
                }
            },
            defaultTrustLevel: configuration.defaultTrustLevel,
            shutdown: {
                room.cancel()
                _ = await room.value
                await client.shutdown()
            })
    }

    /// `$XDG_DATA_HOME/reception/loop-symphony/PROFILE.sqlite`.
    static func cachePath(profile: String) -> String {
        let safe = profile.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return XDG.dataHome.appendingPathComponent("reception/loop-symphony/\(String(safe)).sqlite").path
    }
}

/// Remembers which trust levels were already offered in this session.
final class AskedLevels: @unchecked Sendable {
    private let lock = NSLock()
    private var levels: Set<Int> = []
    func firstTime(_ level: Int) -> Bool { lock.lock(); defer { lock.unlock() }; return levels.insert(level).inserted }
}

/// The last room events, for `/rooms sync-log`.
final class RoomLog: @unchecked Sendable {
    static let shared = RoomLog()
    private let lock = NSLock()
    private var events: [(Date, RoomPresence.Event)] = []
    func record(_ event: RoomPresence.Event) {
        lock.lock()
        events.append((Date(), event))
        if events.count > 50 { events.removeFirst() }
        lock.unlock()
    }
    var recent: [(Date, RoomPresence.Event)] { lock.lock(); defer { lock.unlock() }; return events }
}
