import Foundation
import ReceptionCore
import ReceptionLocal
import ReceptionREPL

/// The backends `--backend` and `/backend` can name.
///
/// To add an adapter: build a `BackendEntry` whose `make` connects and returns a
/// `BackendSession` (the backend, any extra slash commands, an after-task question and a
/// shutdown hook), and append it in `entries(for:)`.
enum BackendCatalog {
    struct Options: Sendable {
        var knowledge: String?
        var localStepMilliseconds: Int
    }

    static func entries(for options: Options) -> [BackendEntry] {
        [local(options)] + LoopSymphonyCatalog.entries()
    }

    static func local(_ options: Options) -> BackendEntry {
        let summary = options.knowledge.map { "embedded, no network; answers from \($0)" }
            ?? "embedded, no network; answers from Reception's built-in knowledge"
        return BackendEntry(name: "local", summary: summary) {
            let knowledge: KnowledgeBase
            if let directory = options.knowledge {
                knowledge = try KnowledgeBase(directory: URL(fileURLWithPath: (directory as NSString).expandingTildeInPath))
            } else {
                knowledge = try KnowledgeBase.builtIn()
            }
            let backend = LocalBackend(knowledge: knowledge, usesBuiltInKnowledge: options.knowledge == nil,
                                       settings: .init(stepDelay: .milliseconds(options.localStepMilliseconds)))
            return BackendSession(backend: backend)
        }
    }
}
