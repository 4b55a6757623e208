import Foundation
import ReceptionCore

/// The `local` plugin: the embedded backend, no network, no key. The default of the REPL.
public enum LocalPlugin {
    public static let kind = "local"

    public static let plugin = BackendPlugin(
        kind: kind, summary: "embedded, no network: answers from Markdown knowledge with BM25",
        options: [
            PluginOption("knowledge", .string, help: "a folder of Markdown files to answer from (default: Reception's built-in knowledge)"),
            PluginOption("step_ms", .integer(0...60_000), help: "pause between steps in milliseconds, so progress shows (default 120)"),
            PluginOption("trust_level", .integer(0...2), help: "the trust level the REPL starts at (default 1: a newcomer's first message gets an answer, not a plan)"),
        ],
        connect: { profile, _ in
            let directory = profile.string("knowledge")
            let knowledge: KnowledgeBase
            if let directory {
                // Empty, it would be the current folder, which nobody meant.
                guard !directory.trimmingCharacters(in: .whitespaces).isEmpty else { throw LocalBackendError.knowledgeFolderUnnamed }
                knowledge = try KnowledgeBase(directory: URL(fileURLWithPath: UserPath.expand(directory)))
            } else {
                knowledge = try KnowledgeBase.builtIn()
            }
            let step = profile.integer("step_ms") ?? 120
            let backend = LocalBackend(knowledge: knowledge, usesBuiltInKnowledge: directory == nil,
                                       settings: .init(stepDelay: .milliseconds(step)), name: profile.name)
            // Level 1 unless configured: an embedded engine that costs nothing to run should
            // answer a first message, not show a plan.
            // Nothing to carry across sessions; `/new` forgets what was said in this one.
            let continuity = ConversationContinuity(state: { [:] }, startOver: { await backend.startNewConversation(); return nil })
            return BackendConnection(backend: backend, defaultTrustLevel: profile.integer("trust_level") ?? 1,
                                     continuity: continuity, warning: skippedNotice(knowledge.skipped))
        })

    /// What start-up says of the knowledge files that could not be read: up to five, and how
    /// many more.
    static func skippedNotice(_ skipped: [String]) -> String? {
        guard !skipped.isEmpty else { return nil }
        let shown = skipped.prefix(skipped.count > 6 ? 5 : 6).map { "\n  " + $0 }.joined()
        let more = skipped.count > 6 ? "\n  and \(skipped.count - 5) more" : ""
        return "skipped \(skipped.count == 1 ? "a knowledge file" : "\(skipped.count) knowledge files") that cannot be read; the others answer:\(shown)\(more)"
    }
}
