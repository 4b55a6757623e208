import Foundation
import ReceptionCore

/// The reference agent's memory and decisions: per session, the dish and constraints of
/// the last search, and the ids it handed out (numbered per session, as upstream).
actor LoomiReferenceState {
    enum Failure: Sendable, Hashable { case unavailable, drop }

    struct Session {
        var topic: String?
        var constraints: Set<String> = []
        var flags: Set<String> = []
        /// Catalogue index → the id this session knows it by, and back.
        var ids: [Int: String] = [:]
        var indexes: [String: Int] = [:]
    }

    private(set) var bodies: [(path: String, body: JSONValue)] = []
    private var sessions: [String: Session] = [:]
    private var failures: Int
    private var failureKind: Failure = .unavailable

    init(failingRecipeCalls: Int) { failures = failingRecipeCalls }

    func record(path: String, body: JSONValue) {
        bodies.append((path, body))
        if bodies.count > 500 { bodies.removeFirst(bodies.count - 500) }
    }

    func forgetSessions() { sessions.removeAll() }

    func setFailures(_ count: Int, drop: Bool) {
        failures = count
        failureKind = drop ? .drop : .unavailable
    }

    /// The failure this data call suffers, if any left.
    func takeFailure() -> Failure? {
        guard failures > 0 else { return nil }
        failures -= 1
        return failureKind
    }

    func decide(words: [String], sessionID: String, count: Int) -> JSONValue {
        if sessions.count > 1_000, sessions[sessionID] == nil { sessions.removeAll() }
        var session = sessions[sessionID] ?? Session()
        let topic = words.lazy.compactMap { LoomiReferenceCatalog.topics[$0] }.first
        let named = Set(words.compactMap { LoomiReferenceCatalog.constraints[$0] })
        var refined = false
        if let topic {
            session.topic = topic
            session.constraints = named
        } else if session.topic != nil || !session.constraints.isEmpty {
            // No dish named: a refinement of the last search.
            session.constraints.formUnion(named)
            refined = !named.isEmpty
        } else {
            session.constraints = named
        }
        session.flags = Set(words).intersection(["slow", "ghost", "dropped", "unusual"])
        let constraints = session.constraints
        struct Candidate {
            var index: Int
            var score: Int
        }
        let chosenTopic = session.topic
        var catalog: [Candidate] = []
        for (index, recipe) in LoomiReferenceCatalog.recipes.enumerated() where chosenTopic.map(recipe.tags.contains) ?? true {
            catalog.append(Candidate(index: index, score: constraints.intersection(recipe.tags).count))
        }
        let sorted: [Candidate] = catalog.sorted { (a: Candidate, b: Candidate) -> Bool in
            a.score != b.score ? a.score > b.score : a.index < b.index
        }
        let ranked: [Candidate] = Array(sorted.prefix(count))
        var ids: [String] = []
        for item in ranked {
            if let known = session.ids[item.index] {
                ids.append(known)
            } else {
                let id = String(format: "session_recipe_%03d", session.ids.count + 1)
                session.ids[item.index] = id
                session.indexes[id] = item.index
                ids.append(id)
            }
        }
        if session.flags.contains("ghost") { ids.append("session_recipe_999") }
        sessions[sessionID] = session

        let perfect = ranked.filter { $0.score == constraints.count }.count
        let dish = session.topic ?? "recipes"
        let wanted = (constraints.sorted() + [dish]).joined(separator: " ")
        var response: String
        if ranked.isEmpty {
            response = "I couldn't find any \(dish) recipes. Try another dish, or fewer constraints."
        } else if constraints.isEmpty {
            response = session.topic == nil ? "Here are \(ranked.count) popular recipes to start with." : "Here are \(ranked.count) \(dish) recipes to start with."
        } else {
            response = "Found \(perfect) perfect match\(perfect == 1 ? "" : "es") for your \(wanted)!"
            let close = ranked.count - perfect
            if close > 0 { response += " I also found \(close) close alternative\(close == 1 ? "" : "s") that meet some of your constraints." }
        }
        if refined { response = "Keeping your \(dish) search and adding \(named.sorted().joined(separator: ", ")). " + response }
        var metadata: [String: JSONValue] = [
            "search_time": .string("0.4s"), "total_recipes_found": .number(Double(catalog.count)),
            "constraint_satisfaction": .string(constraints.isEmpty || perfect == ranked.count ? "full" : perfect == 0 ? "none" : "partial"),
            "follow_up_available": .bool(true),
        ]
        if session.flags.contains("unusual") {
            metadata["constraint_satisfaction"] = .string("mostly")
            metadata["agent_mood"] = .object(["curiosity": .number(0.9)])
        }
        var answer: [String: JSONValue] = ["response": .string(response), "selected_recipe_ids": .array(ids.map(JSONValue.string)),
                                           "agent_metadata": .object(metadata)]
        if session.flags.contains("unusual") { answer["experimental_rerank"] = .array([.number(1), .string("b")]) }
        return .object(answer)
    }

    /// The catalogue entries a session knows by these ids, and the ids it does not know; nil
    /// when the session itself is unknown.
    func lookup(ids: [String], sessionID: String) -> (found: [(id: String, index: Int)], missing: [String], flags: Set<String>)? {
        guard let session = sessions[sessionID] else { return nil }
        var found: [(id: String, index: Int)] = []
        var missing: [String] = []
        for id in ids {
            if let index = session.indexes[id] { found.append((id, index)) } else { missing.append(id) }
        }
        return (found, missing, session.flags)
    }
}

/// How the reference agent reads a query.
enum LoomiReferenceAgent {
    static func words(_ query: String) -> [String] {
        var text = " " + query.lowercased() + " "
        for (phrase, joined) in [("gluten free", "gluten-free"), ("dairy free", "dairy-free"), ("high protein", "high-protein")] {
            text = text.replacingOccurrences(of: phrase, with: joined)
        }
        return text.split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init)
    }
}
