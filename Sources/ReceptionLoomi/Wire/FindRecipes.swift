import ReceptionCore

/// `POST /agent/find-recipes`: the agent's fast decision (seed 004, "Endpoint 1").
public struct FindRecipesRequest: Sendable, Hashable, Codable {
    public var query: String
    public var targetCount: Int
    /// The conversation's session: the agent remembers earlier searches and constraints by it.
    public var sessionID: String

    public init(query: String, targetCount: Int, sessionID: String) {
        self.query = query
        self.targetCount = targetCount
        self.sessionID = sessionID
    }

    enum CodingKeys: String, CodingKey {
        case query, targetCount = "target_count", sessionID = "session_id"
    }
}

/// The agent's answer: what to say at once, and which recipes to load next.
///
/// The guide names the details `agent_metadata`; the nearest upstream code
/// (`two_endpoint_agent.py`) names them `metadata` and adds `session_id`: both are read.
public struct AgentDecision: Sendable, Hashable, Codable {
    /// The conversational answer, shown before any recipe data arrives.
    public var response: String
    public var selectedRecipeIDs: [String]
    /// `agent_metadata` (or `metadata`) as sent: search time, how many were found, whether the
    /// constraints were all met, whether a follow-up is possible.
    public var metadata: JSONValue?
    /// The session the server says the ids belong to, when it says.
    public var sessionID: String?

    public init(response: String, selectedRecipeIDs: [String], metadata: JSONValue? = nil, sessionID: String? = nil) {
        self.response = response
        self.selectedRecipeIDs = selectedRecipeIDs
        self.metadata = metadata
        self.sessionID = sessionID
    }

    enum CodingKeys: String, CodingKey {
        case response, selectedRecipeIDs = "selected_recipe_ids", agentMetadata = "agent_metadata", metadata, sessionID = "session_id"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        response = try c.decodeIfPresent(String.self, forKey: .response) ?? ""
        // Ids are strings in the guide; a server that numbers its recipes is read too.
        let ids = try c.decodeIfPresent([JSONValue].self, forKey: .selectedRecipeIDs) ?? []
        selectedRecipeIDs = ids.compactMap { $0.stringValue ?? $0.intValue.map(String.init) }
        metadata = try c.decodeIfPresent(JSONValue.self, forKey: .agentMetadata) ?? c.decodeIfPresent(JSONValue.self, forKey: .metadata)
        sessionID = try? c.decodeIfPresent(String.self, forKey: .sessionID)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(response, forKey: .response)
        try c.encode(selectedRecipeIDs, forKey: .selectedRecipeIDs)
        try c.encodeIfPresent(metadata, forKey: .agentMetadata)
        try c.encodeIfPresent(sessionID, forKey: .sessionID)
    }

    /// Constraints the agent says it applied (`constraints_detected` upstream), when it says.
    public var constraintsDetected: [String] {
        guard case .array(let items)? = metadata?["constraints_detected"] else { return [] }
        return items.compactMap(\.stringValue)
    }
}
