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
    private let state = Mutex(State())
    /// The session used when the front end gives none.
    private let ownSessionID = "reception-" + UUID().uuidString.lowercased()

    /// The most cards one answer shows: a server's list of any length stays bounded.
    public static let maxCards = 24
    /// The longest agent answer shown, in characters.
    public static let maxResponseCharacters = 20_000

    struct State {
        var searches: [String: RecipeSearch] = [:]
        var running: [String: Task<Void, Never>] = [:]
        var last: LastAnswer?
    }

    /// What the last answer chose, for `/recipes retry` and `/recipe N`.
    public struct LastAnswer: Sendable, Hashable {
        public var sessionID: String
        public var ids: [String]
        /// Ids whose data the last call could not load.
        public var notLoaded: [String]
        public var reason: String?
    }

    public init(client: LoomiClient, cache: LoomiCache?, name: String = "loomi") {
        self.client = client
        self.cache = cache
        descriptor = BackendDescriptor(
            name: name, summary: "Loomi recipe agent at \(RedactedURL.display(client.configuration.baseURL)) (answer first, recipe cards as they arrive)",
            capabilities: [.textStreaming, .cancellation])
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
        return BackendEventStream { continuation in
            let work = Task {
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
            self.state.withLock { $0.running[id] = work }
            continuation.onTermination = { [weak self] _ in
                work.cancel()
                self?.state.withLock { _ = $0.running.removeValue(forKey: id) }
            }
        }
    }

    public func cancel(taskID: String) async throws {
        guard let work = state.withLock({ $0.running[taskID] }) else {
            throw BackendError.invalidTaskState(taskID: taskID, reason: "no recipe search of that id is running.")
        }
        work.cancel()
    }

    /// Both phases of one message; returns the result (its text is everything streamed).
    private func respond(to request: ReceptionRequest, text: AnswerText,
                        continuation: BackendEventStream.Continuation) async throws -> BackendResult {
        let sessionID = sessionID(for: request)
        let configuration = client.configuration
        let previous = state.withLock { $0.searches[sessionID] }
        let next = RecipeSearch.next(after: previous, text: request.text)
        var search = next.search
        let key = search.cacheKey(sessionID: sessionID, targetCount: configuration.targetCount)

        // Phase one: the decision, from the cache while it is fresh.
        var decision: AgentDecision
        var decisionSession = sessionID
        var raw: JSONValue = .null
        var cachedAge: TimeInterval?
        if let cached = try? cache?.decision(forKey: key) {
            decision = cached.decision
            decisionSession = cached.sessionID
            cachedAge = (cache?.currentDate() ?? Date()).timeIntervalSince(cached.storedAt)
        } else {
            (decision, raw) = try await askAgent(request.text, sessionID: sessionID, requestID: request.id, continuation: continuation)
            // The agent's own reading of the constraints, when it gives one, joins ours.
            if !decision.constraintsDetected.isEmpty {
                search.constraints = Array(Set(search.constraints).union(decision.constraintsDetected.map(RecipeConstraints.normalised))).sorted()
            }
            try? cache?.storeDecision(decision, key: key, sessionID: sessionID, search: search)
        }
        state.withLock { state in
            if state.searches.count > 64, state.searches[sessionID] == nil { state.searches.removeAll() }
            state.searches[sessionID] = search
        }
        continuation.yield(.accepted(taskID: request.id, status: .running))
        let response = decision.response.trimmingCharacters(in: .whitespacesAndNewlines)
        text.emit(response.isEmpty ? "The agent chose these recipes." : String(response.prefix(Self.maxResponseCharacters)))

        // Phase two: cached recipes at once, the rest as they arrive.
        var shown = try await showRecipes(of: decision, sessionID: decisionSession, cachedAge: cachedAge, requestID: request.id,
                                          text: text, continuation: continuation, recoverable: true)
        if shown.outcome.sessionLost && !shown.outcome.notLoaded.isEmpty {
            // "Session data cleared → Re-run agent search if needed" (seed 004): the data service
            // forgot the session these ids belong to (a restart, an expiry), so they mean nothing
            // now. Ask the agent again in this session, once; a refinement is sent whole, since
            // the agent no longer remembers what it refined.
            try? cache?.removeDecision(forKey: key)
            continuation.yield(.progress(TaskProgress(taskID: request.id, phase: "decision",
                                                      message: "The recipe service no longer has that search; asking the agent again…")))
            (decision, raw) = try await askAgent(next.refines ? search.query : request.text, sessionID: sessionID, requestID: request.id,
                                                 continuation: continuation)
            try? cache?.storeDecision(decision, key: key, sessionID: sessionID, search: search)
            let again = decision.response.trimmingCharacters(in: .whitespacesAndNewlines)
            if !again.isEmpty { text.emitBlock(String(again.prefix(Self.maxResponseCharacters))) }
            decisionSession = sessionID
            shown = try await showRecipes(of: decision, sessionID: sessionID, cachedAge: nil, requestID: request.id,
                                          text: text, continuation: continuation, recoverable: false)
        }
        let outcome = shown.outcome
        state.withLock { $0.last = shown.ids.isEmpty ? nil : LastAnswer(sessionID: decisionSession, ids: shown.ids, notLoaded: outcome.notLoaded, reason: outcome.reason) }
        guard outcome.notLoaded.isEmpty else {
            // Graceful degradation: the agent's answer stands; the details can be loaded later.
            text.emitBlock("Recipe details could not be loaded: \(outcome.reason ?? "the call failed"). The answer above stands; /recipes retry loads the rest.")
            return BackendResult(taskID: request.id, outcome: .bounded, text: text.value, textWasStreamed: true, raw: raw)
        }
        return BackendResult(taskID: request.id, outcome: .complete, text: text.value, textWasStreamed: true, raw: raw)
    }

    /// `POST /agent/find-recipes`, saying so when it takes longer than expected.
    private func askAgent(_ query: String, sessionID: String, requestID: String,
                          continuation: BackendEventStream.Continuation) async throws -> (AgentDecision, JSONValue) {
        let configuration = client.configuration
        let slowNotice = Task {
            try await Task.sleep(for: configuration.slowNoticeAfter)
            continuation.yield(.progress(TaskProgress(taskID: requestID, phase: "decision", message: "Taking longer than expected, still searching…")))
        }
        defer { slowNotice.cancel() }
        let fetched = try await client.findRecipes(FindRecipesRequest(query: query, targetCount: configuration.targetCount, sessionID: sessionID))
        return (fetched.decision, fetched.raw)
    }

    /// The cards of a decision: "Found N recipes! Loading details…", the cached ones at once,
    /// the others as their records arrive, then placeholders. Returns the ids shown and how
    /// the data call ended.
    private func showRecipes(of decision: AgentDecision, sessionID: String, cachedAge: TimeInterval?, requestID: String,
                             text: AnswerText, continuation: BackendEventStream.Continuation, recoverable: Bool) async throws
        -> (ids: [String], outcome: RecipeLoader.Outcome) {
        var ids: [String] = []
        for id in decision.selectedRecipeIDs where !id.isEmpty && !ids.contains(id) && ids.count < Self.maxCards { ids.append(id) }
        guard !ids.isEmpty else { return ([], RecipeLoader.Outcome()) }
        let age = cachedAge.map { " (the agent's choice from the cache, \(Self.describe(age: $0)) old)" } ?? ""
        continuation.yield(.progress(TaskProgress(taskID: requestID, phase: "recipes",
                                                  message: "Found \(ids.count) recipe\(ids.count == 1 ? "" : "s")\(age)! Loading details…")))
        let positions = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($0.element, $0.offset + 1) })
        var missing: [String] = []
        for id in ids {
            if let cached = try? cache?.recipe(id: id, sessionID: sessionID) {
                text.emitBlock(RecipeCard.short(cached.recipe, position: positions[id]!, fromCache: true))
            } else {
                missing.append(id)
            }
        }
        guard !missing.isEmpty else { return (ids, RecipeLoader.Outcome()) }
        let cache = cache
        let outcome = try await RecipeLoader(client: client).load(missing, sessionID: sessionID, onRecipe: { record in
            try? cache?.store(record, sessionID: sessionID)
            text.emitBlock(RecipeCard.short(record, position: positions[record.id] ?? 0))
        }, onRetry: { message in
            continuation.yield(.progress(TaskProgress(taskID: requestID, phase: "recipes", message: message)))
        })
        // A lost session is asked about again by the caller (once); its cards are not "unavailable".
        if outcome.sessionLost && recoverable { return (ids, outcome) }
        for id in outcome.unavailable { text.emitBlock(RecipeCard.unavailable(id: id, position: positions[id]!)) }
        for id in outcome.notLoaded { text.emitBlock(RecipeCard.notLoaded(id: id, position: positions[id]!)) }
        return (ids, outcome)
    }

    /// `/recipes retry`: loads the recipes the last answer could not, and shows them.
    public func retryLast() async throws -> String {
        guard let last = lastAnswer else { return "There is no recipe search to retry yet." }
        guard !last.notLoaded.isEmpty else { return "Every recipe of the last search is loaded; /recipes lists them." }
        let positions = Dictionary(uniqueKeysWithValues: last.ids.enumerated().map { ($0.element, $0.offset + 1) })
        let cards = Mutex<[(Int, String)]>([])
        let cache = cache
        let outcome = try await RecipeLoader(client: client).load(last.notLoaded, sessionID: last.sessionID, onRecipe: { record in
            try? cache?.store(record, sessionID: last.sessionID)
            let position = positions[record.id] ?? 0
            cards.withLock { $0.append((position, RecipeCard.short(record, position: position))) }
        })
        var shown = cards.withLock { $0 }
        shown += outcome.unavailable.map { (positions[$0] ?? 0, RecipeCard.unavailable(id: $0, position: positions[$0] ?? 0)) }
        shown += outcome.notLoaded.map { (positions[$0] ?? 0, RecipeCard.notLoaded(id: $0, position: positions[$0] ?? 0)) }
        state.withLock { $0.last?.notLoaded = outcome.notLoaded; $0.last?.reason = outcome.reason }
        var text = shown.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: "\n\n")
        if !outcome.notLoaded.isEmpty {
            text += "\n\nStill not loaded: \(outcome.reason ?? "the call failed"). /recipes retry tries again."
        }
        return text
    }

    static func describe(age seconds: TimeInterval) -> String {
        seconds < 60 ? "\(max(0, Int(seconds))) s" : seconds < 3600 ? "\(Int(seconds / 60)) min" : "\(Int(seconds / 3600)) h"
    }
}

/// The answer's text as streamed so far: every chunk goes to the front end and into the
/// result's text, which must equal what was streamed.
final class AnswerText: Sendable {
    private let text = Mutex("")
    private let continuation: BackendEventStream.Continuation

    init(continuation: BackendEventStream.Continuation) { self.continuation = continuation }

    func emit(_ chunk: String) {
        text.withLock { $0 += chunk }
        continuation.yield(.textDelta(chunk))
    }

    /// A card or a note as a paragraph of its own. It ends with a line break so that the soul's
    /// text stream, which holds back a last word that may be unfinished, shows it whole now
    /// rather than when the next card arrives.
    func emitBlock(_ block: String) {
        let current = value
        emit((current.isEmpty ? "" : current.hasSuffix("\n") ? "\n" : "\n\n") + block + "\n")
    }

    var value: String { text.withLock { $0 } }
}
