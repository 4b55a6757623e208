import Foundation
import ReceptionCore

/// `POST /task` body (seed 000 §3.1 and §14; upstream-contracts §1.3).
public struct TaskRequest: Codable, Sendable, Hashable {
    public var id: String
    public var query: String
    public var context: TaskContext?
    public var preferences: TaskPreferences?

    public init(id: String = UUID().uuidString.lowercased(), query: String, context: TaskContext? = nil, preferences: TaskPreferences? = nil) {
        self.id = id
        self.query = query
        self.context = context
        self.preferences = preferences
    }

    /// The trust level the engine will apply: no preferences means level 0 (plan first).
    public var trustLevel: Int { preferences?.trustLevel ?? 0 }
}

public struct TaskContext: Codable, Sendable, Hashable {
    public var appID: String?
    public var userID: String?
    public var conversationSummary: String?
    public var attachments: [String]
    public var location: String?
    public var goal: String?
    public var intent: Intent?
    /// Fields the real server accepts beyond the guide (upstream-contracts §1.3).
    public var inputResults: [JSONValue]?
    public var depth: Int?
    public var maxDepth: Int?
    public var timestamp: String?

    enum CodingKeys: String, CodingKey {
        case appID = "app_id", userID = "user_id", conversationSummary = "conversation_summary"
        case attachments, location, goal, intent
        case inputResults = "input_results", depth, maxDepth = "max_depth", timestamp
    }

    public init(
        appID: String? = nil, userID: String? = nil, conversationSummary: String? = nil,
        attachments: [String] = [], location: String? = nil, goal: String? = nil, intent: Intent? = nil
    ) {
        self.appID = appID
        self.userID = userID
        self.conversationSummary = conversationSummary
        self.attachments = attachments
        self.location = location
        self.goal = goal
        self.intent = intent
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appID = try c.decodeIfPresent(String.self, forKey: .appID)
        userID = try c.decodeIfPresent(String.self, forKey: .userID)
        conversationSummary = try c.decodeIfPresent(String.self, forKey: .conversationSummary)
        attachments = try c.decodeIfPresent([String].self, forKey: .attachments) ?? []
        location = try c.decodeIfPresent(String.self, forKey: .location)
        goal = try c.decodeIfPresent(String.self, forKey: .goal)
        intent = try c.decodeIfPresent(Intent.self, forKey: .intent)
        inputResults = try c.decodeIfPresent([JSONValue].self, forKey: .inputResults)
        depth = try c.decodeIfPresent(Int.self, forKey: .depth)
        maxDepth = try c.decodeIfPresent(Int.self, forKey: .maxDepth)
        timestamp = try c.decodeIfPresent(String.self, forKey: .timestamp)
    }
}

public struct TaskPreferences: Codable, Sendable, Hashable {
    public var thoroughness: Thoroughness
    /// 0 supervised (plan first), 1 semi-autonomous, 2 autonomous.
    public var trustLevel: Int
    public var notifyOnComplete: Bool
    public var maxSpawnDepth: Int?

    enum CodingKeys: String, CodingKey {
        case thoroughness, trustLevel = "trust_level", notifyOnComplete = "notify_on_complete", maxSpawnDepth = "max_spawn_depth"
    }

    public init(thoroughness: Thoroughness = .balanced, trustLevel: Int = 0, notifyOnComplete: Bool = true, maxSpawnDepth: Int? = nil) {
        self.thoroughness = thoroughness
        self.trustLevel = trustLevel
        self.notifyOnComplete = notifyOnComplete
        self.maxSpawnDepth = maxSpawnDepth
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        thoroughness = try c.decodeIfPresent(Thoroughness.self, forKey: .thoroughness) ?? .balanced
        trustLevel = try c.decodeIfPresent(Int.self, forKey: .trustLevel) ?? 0
        notifyOnComplete = try c.decodeIfPresent(Bool.self, forKey: .notifyOnComplete) ?? true
        maxSpawnDepth = try c.decodeIfPresent(Int.self, forKey: .maxSpawnDepth)
    }
}

