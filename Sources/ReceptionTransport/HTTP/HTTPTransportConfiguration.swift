/// Where an HTTP engine lives and how long to wait for it.
public struct HTTPTransportConfiguration: Sendable {
    /// Base URL without a trailing slash; paths are appended to it.
    public var baseURL: String
    public var authentication: any HTTPAuthentication
    /// Deadline of an ordinary call (connect + whole answer).
    public var requestTimeout: Duration
    public var connectTimeout: Duration
    /// Longest silence tolerated while reading, on streams too.
    public var readTimeout: Duration
    /// Sent as `User-Agent`.
    public var userAgent: String
    /// The largest body read into memory; a larger answer is an error, not a crash.
    public var maxBodyBytes: Int
    /// How an idempotent call (GET, HEAD, PUT, DELETE) refused for load or by a gateway
    /// (429, 502, 503, 504) is sent again; calls that change something (POST) never are.
    public var retry = HTTPRetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(500), maxDelay: .seconds(10),
                                       retriedStatuses: [429, 502, 503, 504])

    public init(baseURL: String, authentication: any HTTPAuthentication = NoAuthentication(),
                requestTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(5),
                readTimeout: Duration = .seconds(75), userAgent: String = "Reception/1", maxBodyBytes: Int = 32 << 20) {
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        self.baseURL = url
        self.authentication = authentication
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.userAgent = userAgent
        self.maxBodyBytes = maxBodyBytes
    }
}

extension Duration {
    /// For NIO's `TimeAmount`.
    public var nanosecondsValue: Int64 {
        let c = components
        return c.seconds * 1_000_000_000 + c.attoseconds / 1_000_000_000
    }
}
