/// Where a TIMEPOINT Flash server is and how to talk to it.
public struct TimepointConfiguration: Sendable {
    /// The server's root (`http://127.0.0.1:8000`); `/api/v1` is added to every path.
    public var baseURL: String
    /// The file that keeps the refresh token between runs (0600, under the XDG state directory).
    public var tokenFile: String
    /// `X-Admin-Key` for the dev sign-in and credit grants; nil: dev sign-in is unavailable.
    public var adminKey: SecretToken?
    /// Why the profile's admin key is not used (a file other users can read, an unset
    /// variable), said by `/signin dev` and at start: only that command needs the key, so it
    /// does not stop the session.
    public var adminKeyProblem: String?
    /// sync, background (poll) or stream (SSE, each step live).
    public var generation: GenerationMode = .stream
    /// The preset asked for (nil: the server's default, balanced).
    public var preset: String?
    public var generateImage = false
    /// Visibility of new scenes (nil: the server's default, public).
    public var visibility: SceneVisibility?
    /// Between polls of a background generation (the guide: 3–5 s).
    public var pollInterval: Duration = .seconds(3)
    /// The longest a background generation is polled before giving up.
    public var generationTimeout: Duration = .seconds(600)
    /// 429 backoff: first wait and longest wait (the guide: 1 s to 30 s); `Retry-After` wins.
    public var backoffStart: Duration = .seconds(1)
    public var backoffLimit: Duration = .seconds(30)
    /// Attempts in all for a call refused with 429.
    public var rateLimitAttempts = 6
    /// Wait before the one retry of a 500.
    public var serverErrorRetryDelay: Duration = .milliseconds(500)
    public var requestTimeout: Duration = .seconds(180)

    public enum GenerationMode: String, Sendable, Hashable, CaseIterable {
        case sync, background, stream
    }

    public init(baseURL: String, tokenFile: String, adminKey: SecretToken? = nil) {
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        if url.hasSuffix("/api/v1") { url.removeLast(7) }
        self.baseURL = url
        self.tokenFile = tokenFile
        self.adminKey = adminKey
    }
}
