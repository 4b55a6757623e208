import ReceptionCore
import Synchronization

/// The model names last heard from the server, for tab completion (which must not call the
/// network: on llama.cpp's server any request, `GET /models` too, cuts a running answer).
public final class ModelNames: Sendable {
    private let names: Mutex<[String]>
    public init(_ names: [String] = []) { self.names = Mutex(names) }
    public var all: [String] { names.withLock { $0 } }
    func replace(_ new: [String]) { names.withLock { $0 = new } }
}

/// `/model`: which model answers, what the server offers, and switching.
public struct OpenAICommands: Sendable {
    let backend: OpenAIBackend
    let known: ModelNames

    public init(backend: OpenAIBackend, known: ModelNames) {
        self.backend = backend
        self.known = known
    }

    public var all: [BackendCommand] {
        [BackendCommand(name: "/model", arguments: "[NAME]", summary: "show the model, list the server's models, or switch",
                        usage: "/model         the current model and the ones the server offers\n/model NAME    send the next messages to NAME",
                        completions: { [known] arguments in arguments.isEmpty ? known.all : [] }) { try await model($0) }]
    }

    func model(_ arguments: [String]) async throws -> String {
        guard let name = arguments.first else {
            let models = try await backend.client.models().map(\.id)
            known.replace(models)
            let current = backend.model
            let list = models.map { "- `\($0)`\($0 == current ? " (current)" : "")" }.joined(separator: "\n")
            return "Model: **\(current)**\n\nThe server offers \(models.count == 1 ? "one model" : "\(models.count) models"):\n\(list)"
        }
        guard arguments.count == 1 else { return "Usage: /model NAME (one name; /model lists them)." }
        let known = known.all
        if !known.isEmpty, !known.contains(name) {
            let hint = closest(name, among: known).map { " Did you mean `\($0)`?" } ?? ""
            return "The server does not offer `\(name)`.\(hint) /model lists what it offers; the model is still **\(backend.model)**."
        }
        backend.setModel(name)
        return "The next messages go to **\(name)**."
    }
}
