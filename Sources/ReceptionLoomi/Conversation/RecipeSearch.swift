/// What one conversation is searching for: the dish and the constraints so far. A new
/// message either starts a new search or refines this one ("make it gluten-free",
/// "something quicker"), which keeps the dish and adds the constraints (seed 004,
/// "Conversation continuity"). The agent remembers the same by `session_id`; this copy
/// keys the decision cache, so a refinement is never answered with an unrefined search.
public struct RecipeSearch: Sendable, Hashable, Codable {
    /// The words of the dish, without constraints or filler ("cheesecake").
    public var topic: String
    public var constraints: [String]

    public init(topic: String, constraints: [String]) {
        self.topic = topic
        self.constraints = constraints
    }

    /// Words that carry no topic of their own.
    static let fillers: Set<String> = [
        "a", "an", "the", "me", "my", "i", "id", "i'd", "we", "us", "some", "any", "find", "show", "give", "get", "want", "would",
        "like", "please", "recipe", "recipes", "for", "of", "to", "and", "or", "can", "could", "you", "make", "it", "them", "that",
        "this", "something", "anything", "one", "ones", "with", "without", "is", "are", "be", "need", "looking", "look", "ideas",
        "idea", "dish", "dishes", "meal", "meals", "now", "instead", "also", "but", "just", "only", "version", "more", "less",
        "too", "very", "really", "so", "please", "thanks", "ok", "okay", "how", "about", "what", "which", "has", "have", "in",
        // "Continue", "try again": the same search once more (the soul offers to continue after
        // a partial answer); it comes from the decision cache and loads the cards still missing.
        "continue", "go", "on", "keep", "going", "again", "try", "retry",
    ]

    /// How a refinement begins.
    static let refinementLeads = ["make it", "make them", "make that", "make this", "something", "anything", "more like",
                                  "less", "without", "but", "only", "now", "instead", "same but", "can you make", "could you make"]

    /// The search `text` asks for after `previous` (nil: none yet), and whether it refines it.
    public static func next(after previous: RecipeSearch?, text: String) -> (search: RecipeSearch, refines: Bool) {
        let (constraints, rest) = RecipeConstraints.extract(from: text)
        let topicWords = rest.split(separator: " ").map(String.init).filter { !fillers.contains($0) }
        let topic = topicWords.joined(separator: " ")
        let lower = RecipeConstraints.normalised(text)
        guard let previous else { return (RecipeSearch(topic: topic, constraints: constraints), false) }
        let leads = refinementLeads.contains { lower == $0 || lower.hasPrefix($0 + " ") }
        guard topic.isEmpty || leads else { return (RecipeSearch(topic: topic, constraints: constraints), false) }
        let merged = Array(Set(previous.constraints).union(constraints)).sorted()
        let refinedTopic = topic.isEmpty ? previous.topic : previous.topic + " + " + topic
        return (RecipeSearch(topic: refinedTopic, constraints: merged), true)
    }

    /// The decision cache's key: the same dish with the same constraints in the same session
    /// and for the same number of recipes is the same question.
    public func cacheKey(sessionID: String, targetCount: Int) -> String {
        "\(sessionID)|\(topic)|\(constraints.joined(separator: ","))|\(targetCount)"
    }

    /// The whole search in words ("gluten-free vegan cheesecake"), for an agent that no longer
    /// remembers what a refinement refined.
    public var query: String {
        (constraints + [topic.replacingOccurrences(of: " + ", with: " ")]).filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// "cheesecake (gluten-free, vegan)", for notes and listings.
    public var summary: String {
        let dish = topic.isEmpty ? "recipes" : topic
        return constraints.isEmpty ? dish : "\(dish) (\(constraints.joined(separator: ", ")))"
    }
}
