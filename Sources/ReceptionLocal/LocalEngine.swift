import Foundation
import ReceptionCore

/// The local backend's state: plans awaiting approval, running tasks, and what this
/// session has already been told (for saturation, recurring topics and education tips).
actor LocalEngine {
    let knowledge: KnowledgeBase
    let usesBuiltInKnowledge: Bool
    private var plans: [String: ReceptionRequest] = [:]
    private var running: Set<String> = []
    private var cancelled: Set<String> = []
    var memory = SessionMemory()
    /// The conversation a request carried was looked at (see `carryOn`).
    var carriedOn = false

    init(knowledge: KnowledgeBase, usesBuiltInKnowledge: Bool) {
        self.knowledge = knowledge
        self.usesBuiltInKnowledge = usesBuiltInKnowledge
    }

    var passageCount: Int { knowledge.passages.count }

    func plan(for request: ReceptionRequest) -> Plan {
        plans[request.id] = request
        let intent = request.classification?.intent ?? .curiosity
        let iterations = 2
        let description = "Search \(usesBuiltInKnowledge ? "Reception's built-in knowledge" : "the knowledge folder") " +
            "(\(knowledge.passages.count) passages) with BM25, rank the matches and answer as \(Self.answerShape(intent))."
        return Plan(taskID: request.id, summary: description, steps: [PlanStep("instrument", detail: "knowledge_search")],
                    estimatedIterations: iterations)
    }

    func takePlan(_ taskID: String) throws -> ReceptionRequest {
        guard let request = plans.removeValue(forKey: taskID) else {
            throw BackendError.invalidTaskState(taskID: taskID, reason: "no plan is awaiting approval with this id")
        }
        return request
    }

    /// A new conversation (the REPL's `/new`): nothing counts as said any more, so the same
    /// question is answered in full again, not as "already given".
    func startOver() { memory = SessionMemory() }

    func started(_ taskID: String) { running.insert(taskID) }
    func finished(_ taskID: String) { running.remove(taskID); cancelled.remove(taskID) }
    func isCancelled(_ taskID: String) -> Bool { cancelled.contains(taskID) }

    func requestCancel(_ taskID: String) throws {
        guard running.contains(taskID) else {
            throw BackendError.invalidTaskState(taskID: taskID, reason: "no such task is running")
        }
        cancelled.insert(taskID)
    }

    /// A newcomer asks the embedded backend about itself as "you" ("what can you do?"), and
    /// the built-in knowledge calls itself Reception: read one as the other, or the first
    /// question of a session finds nothing.
    func search(_ query: String) -> [KnowledgeBase.Match] {
        if let followup = Answerer.followedUp(query), let matches = knowledge.search(followingUp: followup) { return matches }
        // "tell me more", "go on": more on the last question's topic, past what was said. The
        // words themselves are no topic (searched, they found nothing: "I found nothing").
        if MoreRequest.asksForMore(query), let topic = memory.lastTopic {
            return search(topic).filter { !memory.saidPassages.contains($0.passage.id) }
        }
        guard usesBuiltInKnowledge else { return knowledge.search(query, limit: 5) }
        // "how does it work?", "what is this?": a question with no subject but a pointer is,
        // to the built-in knowledge, about the thing being used (a search for "work" alone
        // found a file's line about "ways of working").
        let aboutItself = KnowledgeBase.queryTerms(query).isSubset(of: ["work"])
        // Any whitespace parts words: a message continued over lines ("what can \⏎you do?")
        // is the same question.
        let words = query.split(whereSeparator: \.isWhitespace).map { word -> String in
            let bare = word.lowercased().trimmingCharacters(in: .punctuationCharacters)
            if ["you", "your", "yourself", "u"].contains(bare) { return "reception" }
            return aboutItself && ["it", "this"].contains(bare) ? "reception" : String(word)
        }
        return knowledge.search(words.joined(separator: " "), limit: 5)
    }

    /// `greeting`: what `Answerer.greeting` read the request as, read once by the caller (which
    /// searched nothing for one).
    func answer(_ request: ReceptionRequest, greeting: Answerer.Greeting?, matches: [KnowledgeBase.Match], durationMS: Int) -> BackendResult {
        let suggestions = suggestions()
        let composed: Answerer.Composed
        if let greeting {
            composed = Answerer.greet(greeting, builtInKnowledge: usesBuiltInKnowledge, suggestions: suggestions)
        } else if MoreRequest.asksForMore(request.text), memory.lastWasUnanswered || (memory.lastTopic != nil && matches.isEmpty) {
            // "continue" after an answer that found nothing would search the same files again
            // and give the same answer; after one that said all there is on the topic, there is
            // nothing past it: say there is no more.
            composed = Answerer.nothingMore(suggestions: suggestions)
        } else {
            let continuing = MoreRequest.asksForMore(request.text) ? memory.lastTopic : nil
            composed = compose(query: continuing ?? request.text, matches: matches, suggestions: suggestions)
        }
        let interventions = InterventionRules.evaluate(
            query: request.text, matches: matches, answered: composed.answered, memory: &memory,
            usesBuiltInKnowledge: usesBuiltInKnowledge, trustLevel: request.trustLevel
        ).filter { $0.isVisible(atTrustLevel: request.trustLevel) }
        if memory.offeredFollowups.contains(request.text.lowercased()) { memory.usedFollowup = true }
        memory.offeredFollowups.formUnion(composed.followups.map { $0.lowercased() })
        memory.saidPassages.formUnion(composed.usedPassages)
        memory.record(query: request.text, answered: composed.answered && composed.outcome != .inconclusive)
        // The topic "tell me more" goes on with: the last question answered, not the request for more.
        if greeting == nil, composed.answered, !MoreRequest.asksForMore(request.text) { memory.lastTopic = request.text }
        let followups = composed.followups.map(SuggestedFollowup.plain) + interventions.prefix(3).map(SuggestedFollowup.intervention)
        let sources = Array(Set(matches.map(\.passage.file))).sorted()
        return BackendResult(
            taskID: request.id, outcome: composed.outcome, findings: composed.findings, text: composed.summary,
            confidence: composed.confidence, discrepancy: composed.discrepancy, followups: followups,
            usage: Usage(other: ["iterations": 2, "milliseconds": Double(durationMS)]),
            raw: .object(["instrument": .string("knowledge_search"), "sources": .array(sources.map(JSONValue.string))]))
    }

    /// An answer from the matches, past what this conversation was already told.
    func compose(query: String, matches: [KnowledgeBase.Match], suggestions: [String]? = nil) -> Answerer.Composed {
        let knowledge = knowledge
        return Answerer.compose(query: query, matches: matches, alreadySaid: memory.saidPassages,
                                suggestions: suggestions ?? self.suggestions(),
                                sections: { file in knowledge.passages.filter { $0.file == file && $0.isSection }.map(\.heading) },
                                sharedHeadings: knowledge.sharedHeadings, unreadFiles: knowledge.skipped.count)
    }

    /// What to offer when a question found nothing: questions the knowledge in use answers.
    /// The built-in knowledge is about Reception; a person's own folder is toured by its
    /// topics, one from each of its first files, skipping what this session already heard.
    private func suggestions() -> [String] {
        if usesBuiltInKnowledge { return ["What can Reception do?"] }
        var seenFiles: Set<String> = []
        var topics: [String] = []
        for passage in knowledge.passages where passage.isSection && !memory.saidPassages.contains(passage.id) {
            guard seenFiles.insert(passage.file).inserted else { continue }
            topics.append(Answerer.moreAbout(passage, shared: knowledge.sharedHeadings))
            if topics.count == 2 { break }
        }
        return topics
    }

    private static func answerShape(_ intent: IntentType) -> String {
        switch intent {
        case .decision: "options and trade-offs"
        case .research: "a thorough explanation from several passages"
        case .action: "steps you can follow"
        case .validation: "evidence for and against"
        default: "a short direct answer"
        }
    }
}

/// What one REPL session has seen, so answers and interventions can take it into account.
struct SessionMemory {
    var saidPassages: Set<String> = []
    var unansweredTopics: [Set<String>] = []
    var offeredFollowups: Set<String> = []
    var usedFollowup = false
    var tipsGiven: Set<String> = []
    var proactiveTopics: [Set<String>] = []

    /// Whether the last answer found nothing.
    var lastWasUnanswered = false
    /// The last question answered: what "tell me more" asks more about.
    var lastTopic: String?

    mutating func record(query: String, answered: Bool) {
        if !answered { unansweredTopics.append(Set(KnowledgeBase.terms(query))) }
        lastWasUnanswered = !answered
    }
}
