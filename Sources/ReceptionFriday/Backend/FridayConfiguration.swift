/// Where a Friday server is and how long to wait for it.
public struct FridayConfiguration: Sendable, Hashable {
    /// The WebSocket URL, path included: the runtime listens on `/ws` (a bare `ws://host:8787`
    /// is refused with HTTP 400).
    public var url: String
    /// Silence after the last frame that ends a query. Friday ends some runs (too many turns,
    /// an execution error, an unknown session) without sending anything, so only a clock can
    /// tell. Not counted while a permission question waits for the person.
    public var idleTimeout: Duration
    /// The largest single frame accepted (a `tool_use` carries a whole file to write).
    public var maxFrameBytes: Int
    /// The most answer text kept for one query.
    public var maxAnswerBytes: Int

    public static let defaultURL = "ws://127.0.0.1:8787/ws"

    public init(url: String = FridayConfiguration.defaultURL, idleTimeout: Duration = .seconds(90),
                maxFrameBytes: Int = 2 << 20, maxAnswerBytes: Int = 1 << 20) {
        self.url = url
        self.idleTimeout = idleTimeout
        self.maxFrameBytes = maxFrameBytes
        self.maxAnswerBytes = maxAnswerBytes
    }
}
