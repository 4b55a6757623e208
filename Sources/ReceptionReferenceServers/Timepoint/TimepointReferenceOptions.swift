/// What the TIMEPOINT Flash reference server does, and how fast.
public struct TimepointReferenceOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port. 8000 is where the real server listens by default.
    public var port = 8000
    /// `X-Admin-Key` for the dev sign-in, credit grants and the scripting routes.
    public var adminKey = "dev-admin-key"
    /// Credits a new user starts with.
    public var signupCredits = 50
    /// Access token lifetime (the real server: 15 minutes).
    public var accessTokenLifetime: Duration = .seconds(900)
    /// Pause before each streamed step; a query with "slow" in it uses `slowStepDelay`.
    public var stepDelay: Duration = .milliseconds(20)
    public var slowStepDelay: Duration = .milliseconds(800)
    /// Polls a background generation answers `processing` before it is `completed`.
    public var backgroundPolls = 1
    /// Answer every valid refresh with 500 and keep the old token, as upstream 74d8e06 does.
    public var refreshAnswers500 = false

    public init(port: Int = 8000, adminKey: String = "dev-admin-key", signupCredits: Int = 50,
                accessTokenLifetime: Duration = .seconds(900), stepDelay: Duration = .milliseconds(20),
                slowStepDelay: Duration = .milliseconds(800), backgroundPolls: Int = 1, refreshAnswers500: Bool = false) {
        self.port = port
        self.adminKey = adminKey
        self.signupCredits = signupCredits
        self.accessTokenLifetime = accessTokenLifetime
        self.stepDelay = stepDelay
        self.slowStepDelay = slowStepDelay
        self.backgroundPolls = backgroundPolls
        self.refreshAnswers500 = refreshAnswers500
    }
}

/// A refusal the server plays instead of the real answer, for the next `times` calls to
/// `path` (exact, `/api/v1/...`), e.g. 429 with `Retry-After`, 500, 422.
public struct TimepointFault: Sendable, Hashable, Codable {
    public var method: String?
    public var path: String
    public var status: Int
    public var retryAfter: String?
    public var message: String?
    public var times: Int

    public init(method: String? = nil, path: String, status: Int, retryAfter: String? = nil, message: String? = nil, times: Int = 1) {
        self.method = method
        self.path = path
        self.status = status
        self.retryAfter = retryAfter
        self.message = message
        self.times = times
    }

    enum CodingKeys: String, CodingKey { case method, path, status, retryAfter = "retry_after", message, times }
}

/// One call the server received (tests read them: poll spacing, what carried a token).
public struct TimepointReceivedCall: Sendable, Hashable {
    public var method: String
    public var path: String
    public var at: ContinuousClock.Instant
    public var authorization: String?
    public var adminKey: String?
}
