import ReceptionCore
import Synchronization

/// `/recipes retry`.
extension LoomiBackend {
    /// `/recipes retry`: loads the recipes the last answer could not, and shows them.
    public func retryLast() async throws -> String {
        guard let last = lastAnswer else { return "There is no recipe search to retry yet." }
        guard !last.notLoaded.isEmpty else { return "Every recipe of the last search is loaded; /recipes lists them." }
        guard !last.sessionLost else { return Self.searchForgotten }
        let positions = Dictionary(uniqueKeysWithValues: last.ids.enumerated().map { ($0.element, $0.offset + 1) })
        let cards = Mutex<[(Int, String)]>([])
        let cache = cache
        let outcome = try await RecipeLoader(client: client).load(last.notLoaded, sessionID: last.sessionID, onRecipe: { record in
            _ = try? cache?.store(record, sessionID: last.sessionID)
            let position = positions[record.id] ?? 0
            cards.withLock { $0.append((position, RecipeCard.short(record, position: position))) }
        })
        var shown = cards.withLock { $0 }
        shown += outcome.unavailable.map { (positions[$0] ?? 0, RecipeCard.unavailable(id: $0, position: positions[$0] ?? 0)) }
        if !outcome.sessionLost { shown += outcome.notLoaded.map { (positions[$0] ?? 0, RecipeCard.notLoaded(id: $0, position: positions[$0] ?? 0)) } }
        state.withLock { $0.last?.notLoaded = outcome.notLoaded; $0.last?.reason = outcome.reason; $0.last?.sessionLost = outcome.sessionLost }
        var text = shown.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: "\n\n")
        if outcome.sessionLost {
            text += (text.isEmpty ? "" : "\n\n") + Self.searchForgotten
        } else if !outcome.notLoaded.isEmpty {
            text += "\n\nStill not loaded: \(Sentences.ended(outcome.reason ?? "the call failed")) /recipes retry tries again."
        }
        return text
    }

    /// Retrying ids the service no longer knows cannot work; a new search can (the agent is
    /// asked again when a message meets a forgotten search).
    static let searchForgotten = "The recipe service no longer has the last search (it keeps searches in memory only), so its remaining recipes cannot load. Send the request again, or type \"continue\", to search anew."
}
