import Foundation
import ReceptionCore
import ReceptionTransport

/// Where a Loop Symphony server lives and how to talk to it.
public struct LoopSymphonyConfiguration: Sendable {
    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:8765`. The API has no prefix.
    public var baseURL: String
    /// Sent as `X-Api-Key` when set. Never printed: `description` masks it.
    public var apiKey: String?
    /// Where `apiKey` came from, for messages ("$LOOP_SYMPHONY_API_KEY", a file's path, ...).
    public var apiKeySource: String?
    /// True when `apiKey` is the reference server's development key, sent because the URL is
    /// on loopback and no key was configured: a server that refuses it is not an error.
    public var apiKeyIsDevelopmentDefault = false
    /// Sent as `X-User-Id` when set (the server maps it to its own internal user UUID).
    public var userID: String?
    /// Trust level put into `preferences` when a request carries none.
    public var defaultTrustLevel: Int
    /// Where `defaultTrustLevel` was set explicitly ("the profile's trust_level (FILE:LINE)"),
    /// nil when it is only the default: an explicit level wins over the server's record.
    public var trustLevelSource: String?
    /// Deadline of an ordinary request (connect + response).
    public var requestTimeout: Duration
    /// Connect timeout.
    public var connectTimeout: Duration
    /// Longest silence tolerated on an SSE stream. The server writes `: keepalive` after 30 s of
    /// silence, so anything above that is safe; the default leaves room for a slow proxy.
    public var streamIdleTimeout: Duration
    /// Interval of `GET /task/{id}` when the stream is unavailable (fallback to polling).
    public var pollInterval: Duration
    /// Whether the backend tries `GET /task/{id}/stream` at all (false: poll only).
    public var prefersStreaming: Bool
    /// How long to keep asking for the full result after the stream said `complete`: the row is
    /// normally written first, so this only covers a server that lags; after it, the summary the
    /// stream gave is shown (a poll that never ends).
    public var resultGrace: Duration = .seconds(10)
    /// The longest a task is waited for by polling; then the wait stops with a message that
    /// says how to look the task up later, instead of polling in silence for ever.
    public var maxWait: Duration = .seconds(30 * 60)

    public init(baseURL: String, apiKey: String? = nil, userID: String? = nil, defaultTrustLevel: Int = 0,
                requestTimeout: Duration = .seconds(30), connectTimeout: Duration = .seconds(5),
                streamIdleTimeout: Duration = .seconds(75), pollInterval: Duration = .milliseconds(500),
                prefersStreaming: Bool = true) {
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        self.baseURL = url
        self.apiKey = apiKey
        self.userID = userID
        self.defaultTrustLevel = defaultTrustLevel
        self.requestTimeout = requestTimeout
        self.connectTimeout = connectTimeout
        self.streamIdleTimeout = streamIdleTimeout
        self.pollInterval = pollInterval
        self.prefersStreaming = prefersStreaming
    }

    /// Reads `LOOP_SYMPHONY_URL`, `LOOP_SYMPHONY_API_KEY`, `LOOP_SYMPHONY_USER_ID` and
    /// `LOOP_SYMPHONY_TRUST_LEVEL` the way the `loop-symphony` plugin's built-in profile does
    /// (one reader of those variables); nil when no URL is set or a value is invalid (a trust
    /// level outside 0...2 is refused, never used).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> LoopSymphonyConfiguration? {
        guard environment["LOOP_SYMPHONY_URL"].map({ !$0.isEmpty }) == true else { return nil }
        let plugin = PluginEnvironment.standard(environment)
        return try? LoopSymphonyPlugin.configuration(for: LoopSymphonyPlugin.builtInProfile(plugin), environment: plugin)
    }
}

extension LoopSymphonyConfiguration: CustomStringConvertible {
    public var description: String {
        "\(RedactedURL.display(baseURL)) (api key \(apiKey == nil ? "not set" : "set"), user \(userID ?? "none"), trust level \(defaultTrustLevel))"
    }
}

extension LoopSymphonyConfiguration {
    /// The shared HTTP transport's settings: the API key and user id as headers on the calls
    /// that take them, the stream idle timeout as the read timeout.
    public var transport: HTTPTransportConfiguration {
        HTTPTransportConfiguration(baseURL: baseURL,
                                   authentication: HeaderAuthentication([("X-Api-Key", apiKey), ("X-User-Id", userID)]),
                                   requestTimeout: requestTimeout, connectTimeout: connectTimeout,
                                   readTimeout: streamIdleTimeout, userAgent: "Reception-LoopSymphony/1")
    }
}
