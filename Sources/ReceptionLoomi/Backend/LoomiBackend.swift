import Foundation
import ReceptionCore
import Synchronization

/// The Loomi recipe agent (seed 004): two phases per message.
///
/// 1. `POST /agent/find-recipes`: the agent's conversational answer is streamed at once as
///    text (so the soul renders it like any answer), then "Found N recipes! Loading details…".
/// 2. `POST /recipes/by-ids`: each recipe card is streamed as soon as its record arrives;
///    an id the service does not have becomes a "Recipe unavailable" placeholder, a partial
///    record names what it lacks, and a failed call keeps the answer of phase one, marks the
///    result `bounded` and offers `/recipes retry`.
///
/// Decisions are cached for minutes and recipes for a day (`LoomiCache`); a message that
/// refines the last search ("make it gluten-free") is sent with the same `session_id`, and
/// its constraints are added to the last search's (`RecipeSearch`).
public final class LoomiBackend: Backend {
    public let descriptor: BackendDescriptor
    public let client: LoomiClient
    public let cache: LoomiCache?
    let state = Mutex(State())
    /// The task behind each open answer stream.
    private let running = RunningTasks()
    /// The session used when the front end gives none.
    private let ownSessionID = "reception-" + UUID().uuidString.lowercased()

    /// The most cards one answer shows: a server's list of any length stays bounded.
    public static let maxCards = 24
    /// The longest agent answer shown, in characters.
    public static let maxResponseCharacters = 20_000

    struct State {
        var searches: [String: RecipeSearch] = [:]
        var last: LastAnswer?
    }

    /// What the last answer chose, for `/recipes retry` and `/recipe N`.
    public struct LastAnswer: Sendable, Hashable {
        public var sessionID: String
        public var ids: [String]
        /// Ids whose data the last call could not load.
        public var notLoaded: [String]
        public var reason: String?
        /// The service forgot the search these ids belong to: retrying them cannot work.
        public var sessionLost = false
    }

    public init(client: LoomiClient, cache: LoomiCache?, name: String = "loomi") {
        self.client = client
        self.cache = cache
        descriptor = BackendDescriptor(
            name: name, summary: "Loomi recipe agent at \(RedactedURL.display(client.configuration.baseURL)) (answer first, recipe cards as they arrive)",
            capabilities: [.textStreaming, .cancellation],
            endpoint: client.configuration.baseURL)
    }

    /// The last answer's choices, if any.
    public var lastAnswer: LastAnswer? { state.withLock { $0.last } }

    func sessionID(for request: ReceptionRequest) -> String {
        request.sessionID.isEmpty ? ownSessionID : request.sessionID
    }

    public func wirePayload(for request: ReceptionRequest) -> JSONValue? {
        let body = FindRecipesRequest(query: request.text, targetCount: client.configuration.targetCount, sessionID: sessionID(for: request))
        return (try? Wire.encode(body)).flatMap { try? Wire.decode(JSONValue.self, from: $0) }
    }

    public func submit(_ request: ReceptionRequest) -> BackendEventStream {
        let id = request.id
        return running.stream(id: id) { continuation in
            let answer = AnswerText(continuation: continuation)
            do {
                let result = try await self.respond(to: request, text: answer, continuation: continuation)
                continuation.yield(.result(result))
                continuation.finish()
            } catch is CancellationError {
                continuation.yield(.failure(TaskFailure(taskID: id, message: "Stopped; what was shown is kept.", cancelled: true)))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    public func cancel(taskID: String) async throws {
        try running.cancel(taskID, reason: "no recipe search of that id is running.")
    }

    static func describe(age seconds: TimeInterval) -> String {
        seconds < 60 ? "\(max(0, Int(saturating: seconds))) s" : seconds < 3600 ? "\(Int(seconds / 60)) min" : "\(Int(saturating: seconds / 3600)) h"
    }
}
