import Foundation
import ReceptionCore
import ReceptionOpenAI

/// At start-up on the default backend: whether a model server runs on this machine, said in
/// one line with the command that switches to it. The look runs beside the rest of start-up
/// and is bounded (50 ms), loopback only.
enum LocalServerNotice {
    static func look(_ environment: PluginEnvironment) async -> [LocalModelServers.Found] {
        await LocalModelServers.look(LocalModelServers.places(environment), deadline: LocalModelServers.startupDeadline(environment))
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
