import Foundation
import ReceptionCore
import Synchronization

/// The two phases of one message: the decision (cached or asked), then the cards.
extension LoomiBackend {
    /// Both phases of one message; returns the result (its text is everything streamed).
    func respond(to request: ReceptionRequest, text: AnswerText,
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
            // What is already on screen is not shown twice: the same answer, or a card whose
            // id and title both match one shown above (the ids were renumbered, so a card is
            // only the same when its title is too). The cache is not read on this pass, since
            // it may hold the forgotten search's meaning of these ids.
            let again = decision.response.trimmingCharacters(in: .whitespacesAndNewlines)
            if !again.isEmpty && again != response { text.emitBlock(String(again.prefix(Self.maxResponseCharacters))) }
            decisionSession = sessionID
            shown = try await showRecipes(of: decision, sessionID: sessionID, cachedAge: nil, requestID: request.id,
                                          text: text, continuation: continuation, recoverable: false, alreadyShown: shown.cards)
        }
        let outcome = shown.outcome
        state.withLock { $0.last = shown.ids.isEmpty ? nil : LastAnswer(sessionID: decisionSession, ids: shown.ids, notLoaded: outcome.notLoaded,
                                                                         reason: outcome.reason, sessionLost: outcome.sessionLost) }
        guard outcome.notLoaded.isEmpty else {
            // Graceful degradation: the agent's answer stands; the details can be loaded later,
            // unless the service forgot the search, when only a new search can bring them.
            let next = outcome.sessionLost ? "send the request again to search anew" : "/recipes retry loads the rest"
            text.emitBlock("Recipe details could not be loaded: \(Sentences.ended(outcome.reason ?? "the call failed")) The answer above stands; \(next).")
            return BackendResult(taskID: request.id, outcome: .bounded, text: text.value, textWasStreamed: true, raw: raw)
        }
        return BackendResult(taskID: request.id, outcome: .complete, text: text.value, textWasStreamed: true, raw: raw)
    }

    /// `POST /agent/find-recipes`, saying so when it takes longer than expected.
    func askAgent(_ query: String, sessionID: String, requestID: String,
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
    /// the others as their records arrive, then placeholders. Returns the ids chosen, the
    /// cards on screen (`ShownCard`) and how the data call ended.
    ///
    /// From the moment the ids are known, the last answer is theirs with every card not yet
    /// shown counted as not loaded, so that `/recipes retry` after Ctrl-C loads what had not
    /// arrived. `alreadyShown` (a second pass after the service forgot the search) reads no
    /// cache and skips the cards already on screen.
    func showRecipes(of decision: AgentDecision, sessionID: String, cachedAge: TimeInterval?, requestID: String,
                     text: AnswerText, continuation: BackendEventStream.Continuation, recoverable: Bool,
                     alreadyShown: Set<ShownCard>? = nil) async throws
        -> (ids: [String], cards: Set<ShownCard>, outcome: RecipeLoader.Outcome) {
        var ids: [String] = []
        for id in decision.selectedRecipeIDs where !id.isEmpty && !ids.contains(id) && ids.count < Self.maxCards { ids.append(id) }
        guard !ids.isEmpty else { return ([], alreadyShown ?? [], RecipeLoader.Outcome()) }
        let age = cachedAge.map { " (the agent's choice from the cache, \(Self.describe(age: $0)) old)" } ?? ""
        continuation.yield(.progress(TaskProgress(taskID: requestID, phase: "recipes",
                                                  message: "Found \(Counted.phrase(ids.count, "recipe"))\(age)! Loading details…")))
        let positions = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($0.element, $0.offset + 1) })
        let cards = Mutex(alreadyShown ?? [])
        var missing: [String] = []
        for id in ids {
            if alreadyShown == nil, let cached = try? cache?.recipe(id: id, sessionID: sessionID) {
                text.emitBlock(RecipeCard.short(cached.recipe, position: positions[id]!, fromCache: true))
                cards.withLock { _ = $0.insert(ShownCard(cached.recipe)) }
            } else {
                missing.append(id)
            }
        }
        guard !missing.isEmpty else { return (ids, cards.withLock { $0 }, RecipeLoader.Outcome()) }
        state.withLock { $0.last = LastAnswer(sessionID: sessionID, ids: ids, notLoaded: missing, reason: "stopped before they arrived") }
        let cache = cache
        let outcome = try await RecipeLoader(client: client).load(missing, sessionID: sessionID, onRecipe: { record in
            _ = try? cache?.store(record, sessionID: sessionID)
            self.state.withLock { $0.last?.notLoaded.removeAll { $0 == record.id } }
            guard cards.withLock({ $0.insert(ShownCard(record)).inserted }) else { return }
            text.emitBlock(RecipeCard.short(record, position: positions[record.id] ?? 0))
        }, onRetry: { message in
            continuation.yield(.progress(TaskProgress(taskID: requestID, phase: "recipes", message: message)))
        })
        // A lost session is asked about again by the caller (once); its cards are not "unavailable".
        if outcome.sessionLost && recoverable { return (ids, cards.withLock { $0 }, outcome) }
        for id in outcome.unavailable { text.emitBlock(RecipeCard.unavailable(id: id, position: positions[id]!)) }
        for id in outcome.notLoaded { text.emitBlock(RecipeCard.notLoaded(id: id, position: positions[id]!)) }
        return (ids, cards.withLock { $0 }, outcome)
    }

    /// A card on screen, by what a person would call the same recipe: its id and title.
    struct ShownCard: Hashable, Sendable {
        let id: String
        let title: String?
        init(_ record: RecipeRecord) { id = record.id; title = record.title }
    }
}
