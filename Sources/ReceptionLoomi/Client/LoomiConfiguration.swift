/// Where a Loomi recipe agent is and how to talk to it.
public struct LoomiConfiguration: Sendable {
    /// Where `reception serve loomi` listens by default.
    public static let defaultURL = "http://127.0.0.1:8791"

    /// Base URL without a trailing slash; `/agent/find-recipes` and `/recipes/by-ids` are appended.
    public var baseURL: String
    /// Sent as `Authorization: Bearer …`, to this base URL only.
    public var apiKey: String?
    /// Where the key came from ("$LOOMI_API_KEY"), for messages that must not show the key.
    public var apiKeySource: String?
    /// How many recipes the agent is asked for (`target_count`; the guide's default is 4).
    public var targetCount: Int
    /// Longest wait for the agent's decision (the guide expects 1–2 s).
    public var decisionTimeout: Duration
    /// After this long without a decision the person is told the search goes on.
    public var slowNoticeAfter: Duration
    /// Longest wait for the whole recipe data answer, and longest silence while it streams.
    public var recipesTimeout: Duration
    /// Attempts at the recipe data call in all, the first included, when the network fails or
    /// the service is busy (429, 502, 503, 504), with an exponential backoff and jitter between.
    public var recipeAttempts: Int
    public var recipeRetryDelay: Duration

    public init(baseURL: String = LoomiConfiguration.defaultURL, apiKey: String? = nil, targetCount: Int = 4,
                decisionTimeout: Duration = .seconds(30), slowNoticeAfter: Duration = .seconds(3),
                recipesTimeout: Duration = .seconds(30), recipeAttempts: Int = 3, recipeRetryDelay: Duration = .milliseconds(400)) {
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        self.baseURL = url
        self.apiKey = apiKey
        self.targetCount = targetCount
        self.decisionTimeout = decisionTimeout
        self.slowNoticeAfter = slowNoticeAfter
        self.recipesTimeout = recipesTimeout
        self.recipeAttempts = max(1, recipeAttempts)
        self.recipeRetryDelay = recipeRetryDelay
    }
}
