import Foundation
import ReceptionCore
import Synchronization

/// Phase two: the recipe data of the agent's choices, each record handed on as it arrives.
/// When the network fails or the service is busy, the ids not yet received are asked for
/// again with an exponential backoff and jitter (seed 004: "Network issues → Retry with
/// exponential backoff"); what did arrive is never asked for twice.
struct RecipeLoader: Sendable {
    let client: LoomiClient

    /// How phase two ended.
    struct Outcome: Sendable, Hashable {
        /// Ids the answer did not contain although it arrived whole: the service has no such recipe.
        var unavailable: [String] = []
        /// Ids not received because the call failed; `/recipes retry` asks for them again.
        var notLoaded: [String] = []
        /// Why they were not loaded, in words.
        var reason: String?
        /// The service said it has no such session (`{"error": "Session not found"}`): the ids
        /// belong to a search it forgot.
        var sessionLost = false
    }

    func load(_ ids: [String], sessionID: String, onRecipe: @escaping @Sendable (RecipeRecord) -> Void,
              onRetry: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Outcome {
        let wanted = Set(ids)
        let delivered = Mutex<Set<String>>([])
        let configuration = client.configuration
        var attempt = 1
        while true {
            let remaining = ids.filter { id in !delivered.withLock { $0.contains(id) } }
            do {
                let answer = try await client.recipes(RecipesByIDsRequest(recipeIDs: remaining, sessionID: sessionID)) { record in
                    // Only what was asked for, each once: a server's extra or repeated records are ignored.
                    guard wanted.contains(record.id), delivered.withLock({ $0.insert(record.id).inserted }) else { return }
                    onRecipe(record)
                }
                let missing = ids.filter { id in !delivered.withLock { $0.contains(id) } }
                if let error = answer.error, !missing.isEmpty {
                    // "Session not found": the service forgot the search these ids belong to.
                    // Its suggestion names its own endpoint, not something a person can type,
                    // so that case is said in Reception's words.
                    let sessionLost = error.localizedCaseInsensitiveContains("session")
                    let reason = sessionLost
                        ? "the recipe service no longer has that search (it keeps searches in memory only)"
                        : "the recipe service answered \"\(error)\"" + (answer.suggestion.map { " (\($0))" } ?? "")
                    return Outcome(notLoaded: missing, reason: reason, sessionLost: sessionLost)
                }
                return Outcome(unavailable: missing)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                let left = ids.filter { id in !delivered.withLock { $0.contains(id) } }
                guard !left.isEmpty else { return Outcome() }
                guard Self.isRetryable(error), attempt < configuration.recipeAttempts else {
                    return Outcome(notLoaded: left, reason: String(describing: error))
                }
                let factor = 1 << min(attempt - 1, 10)
                let delay = configuration.recipeRetryDelay * factor * Double.random(in: 0.5...1.0)
                attempt += 1
                onRetry("Recipe details: \(error). Trying again (attempt \(attempt) of \(configuration.recipeAttempts)).")
                try await Task.sleep(for: delay)
            }
        }
    }

    /// A failure worth another try: the network, a timeout, a busy or unavailable service.
    static func isRetryable(_ error: any Error) -> Bool {
        switch error as? BackendError {
        case .unreachable?, .timedOut?, .connectionLost?: true
        case .http(let status, _)?: [408, 429, 500, 502, 503, 504].contains(status)
        default: false
        }
    }
}
