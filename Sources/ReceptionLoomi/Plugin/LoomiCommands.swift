import Foundation
import ReceptionCore

/// `/recipes` and `/recipe`: the recipe cache, readable with the server stopped, and the
/// retry of recipe details a failed call did not load.
public struct LoomiCommands: Sendable {
    let backend: LoomiBackend
    /// Why the cache is missing or was reset, when it is.
    let cacheProblem: String?

    public init(backend: LoomiBackend, cacheProblem: String?) {
        self.backend = backend
        self.cacheProblem = cacheProblem
    }

    public var all: [BackendCommand] {
        [
            BackendCommand(name: "/recipes", arguments: "[retry]", summary: "list cached recipes (works offline), or retry details that did not load",
                           usage: "/recipes          the recipes in the cache, newest first (kept 24 h; no network)\n/recipes retry    load the recipe details the last answer could not",
                           completions: { $0.isEmpty ? ["retry"] : [] }) { try await recipes($0) },
            BackendCommand(name: "/recipe", arguments: "ID | N", summary: "show one recipe in full from the cache (works offline)",
                           usage: "/recipe ID    the cached recipe with this id (e.g. session_recipe_003)\n/recipe N     the Nth recipe of the last answer",
                           completions: { [backend] arguments in arguments.isEmpty ? backend.lastAnswer?.ids ?? [] : [] }) { try await recipe($0) },
        ]
    }

    func recipes(_ arguments: [String]) async throws -> String {
        if arguments.first == "retry" { return try await backend.retryLast() }
        guard arguments.isEmpty else { return "Usage: /recipes, or /recipes retry." }
        guard let cache = backend.cache else { return cacheProblem ?? "This session has no recipe cache." }
        let cached: [LoomiCache.Recipe]
        do {
            cached = try cache.recipes(limit: 50)
        } catch {
            return "The recipe cache \(cache.path) cannot be read: \(error)"
        }
        let lead = cacheProblem.map { "_\($0)_\n\n" } ?? ""
        guard !cached.isEmpty else { return lead + "No recipes are cached yet (recipes are kept \(Self.hours(cache.recipeTTL)) after they arrive)." }
        let now = cache.currentDate()
        let lines = cached.map { entry in
            var line = "- `\(entry.recipe.id)` \(entry.recipe.title ?? "Untitled recipe") · \(LoomiBackend.describe(age: now.timeIntervalSince(entry.fetchedAt))) ago"
            if !entry.recipe.missing.isEmpty { line += " · missing \(entry.recipe.missing.joined(separator: ", "))" }
            return line
        }
        return lead + "Cached recipes (\(cached.count), newest first; kept \(Self.hours(cache.recipeTTL))):\n" + lines.joined(separator: "\n")
            + "\n\n/recipe ID shows one in full."
    }

    func recipe(_ arguments: [String]) async throws -> String {
        guard arguments.count == 1, let wanted = arguments.first else { return "Usage: /recipe ID (or /recipe N for the Nth recipe of the last answer)." }
        guard let cache = backend.cache else { return cacheProblem ?? "This session has no recipe cache." }
        let last = backend.lastAnswer
        var id = wanted
        var ofLastAnswer = false
        if let number = Int(wanted), let last, number >= 1, number <= last.ids.count { id = last.ids[number - 1]; ofLastAnswer = true }
        let found: LoomiCache.Recipe?
        do {
            // "The Nth recipe of the last answer" is that answer's session's, or none: ids are
            // numbered per session, and the freshest of that id was another search's recipe
            // (another server's, even) when this card had not loaded.
            if ofLastAnswer, let last {
                found = try cache.recipe(id: id, sessionID: last.sessionID)
                guard found != nil else {
                    return "Recipe \(wanted) of the last answer (`\(RecipeRecord.clip(id, to: 100))`) did not load, so it is not cached. /recipes retry loads it."
                }
            } else {
                found = try cache.lookup(id: id, preferring: last?.sessionID)
            }
        } catch {
            return "The recipe cache \(cache.path) cannot be read: \(error)"
        }
        guard let found else {
            let shown = RecipeRecord.clip(id, to: 100)
            return "No cached recipe `\(shown)` (recipes are kept \(Self.hours(cache.recipeTTL))). /recipes lists what is cached."
        }
        let other = found.sessionID == last?.sessionID ? nil : found.sessionID
        return RecipeCard.full(found.recipe, cachedAgo: LoomiBackend.describe(age: cache.currentDate().timeIntervalSince(found.fetchedAt)) + " ago",
                               session: other)
    }

    static func hours(_ seconds: TimeInterval) -> String {
        let hours = Int(saturating: (seconds / 3600).rounded())
        return hours == 1 ? "1 hour" : "\(hours) hours"
    }
}
