import Foundation
import ReceptionCore
import ReceptionOpenAI
import Synchronization

/// At start-up on the default backend: whether a model server runs on this machine, said in
/// one line with the command that switches to it. The look starts with the process and runs
/// beside the rest of start-up (reading the soul, the configuration, connecting the backend);
/// when the greeting is due, it is given at most 50 ms more (`RECEPTION_LOCAL_SERVERS_WAIT_MS`)
/// and is otherwise left unsaid: the prompt never waits longer for it. Loopback only.
struct LocalServerNotice: Sendable {
    let look: Task<[LocalModelServers.Found], Never>
    let grace: Duration

    static func start(_ environment: PluginEnvironment) -> LocalServerNotice {
        let places = LocalModelServers.places(environment)
        // Its own deadline only ends the look's thread; the wait for it is `grace`.
        let look = Task { await LocalModelServers.look(places, deadline: .seconds(2)) }
        return LocalServerNotice(look: look, grace: LocalModelServers.startupDeadline(environment))
    }

    /// The line to show, if the look has finished or finishes within the grace period.
    func lines() async -> [String] {
        let look = look, grace = grace
        // Whichever comes first; a task group would wait for the look to end either way.
        let found: [LocalModelServers.Found]? = await withCheckedContinuation { continuation in
            let resumed = Mutex(false)
            let resume: @Sendable ([LocalModelServers.Found]?) -> Void = { value in
                if resumed.withLock({ done in defer { done = true }; return !done }) { continuation.resume(returning: value) }
            }
            Task { resume(await look.value) }
            Task { try? await Task.sleep(for: grace); resume(nil) }
        }
        return Self.line(found ?? []).map { [$0] } ?? []
    }

    /// "llama.cpp's server answers at http://127.0.0.1:8080/v1 (model smollm2): /backend llama.cpp talks to it."
    static func line(_ found: [LocalModelServers.Found]) -> String? {
        guard !found.isEmpty else { return nil }
        func models(_ server: LocalModelServers.Found) -> String {
            switch server.models.count {
            case 0: "no model loaded"
            // A server's own words: one line, clipped (the REPL cleans what it prints).
            case 1: "model \(TerminalText.line(server.models[0], limit: 60))"
            default: "\(server.models.count) models"
            }
        }
        if found.count == 1, let server = found.first {
            return "\(server.place.product) answers at \(server.place.baseURL) (\(models(server))): /backend \(server.place.name) talks to it."
        }
        return "Model servers on this machine: " + found.map { "\($0.place.product) (\(models($0))): /backend \($0.place.name)" }
            .joined(separator: "; ") + "."
    }
}
