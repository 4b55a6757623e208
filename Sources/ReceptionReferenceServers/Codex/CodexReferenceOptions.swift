/// What the Codex workers reference server does, and which faults it injects.
public struct CodexReferenceOptions: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port = 8790
    /// Accepted as `Authorization: Bearer` (Sanctum personal access tokens).
    public var tokens = ["reception-dev-token"]
    /// Seeds every random choice (where a stream is cut), so a run can be repeated.
    public var seed: UInt64 = 1
    /// How many stream responses are cut at a random point (mid-frame or between frames),
    /// as a flaky network or proxy would.
    public var drops = 0
    /// How many stream responses send their events a second time, as Laravel's proxy does
    /// when it retries the runtime's GET with the same cursor into the same response.
    public var duplicateReplays = 0
    /// How many stream requests are answered 502 or 503 (in turn) before any event, as the
    /// gateway in front of the runtime does while it restarts: a burst that then ends.
    public var gatewayErrors = 0
    /// Stream requests answered, in turn, with garbage where events were expected (a broken
    /// proxy or runtime), before any event: then the stream ends.
    public var garbageStreams: [CodexStreamGarbage] = []
    /// Frames end with one newline and no blank line, as the runtime at 562314f4e8 wrote them.
    public var unterminatedFrames = true
    /// Events each worker keeps; a cursor older than what is kept is stale (410).
    public var retention = 1_000
    /// Answer a stale cursor as the runtime does (HTTP 410); by default as the public API
    /// does: HTTP 200 and an `event: error` frame naming the runtime's 410.
    public var staleAsStatus = false
    /// The long poll's length when the client names none (the runtime's default).
    public var defaultTailMS = 1_000
    /// Running desktop workers add an event this often (nil: only when something happens).
    public var tick: Duration?
    /// How long the desktop takes to acknowledge a handshake.
    public var ackDelay: Duration = .milliseconds(150)
    /// The handshake source the desktop answers (the real desktop answers only this one).
    public var acceptedHandshakeSource = "autopilot-ios"

    public init(port: Int = 8790) {
        self.port = port
    }
}

/// What a broken proxy or runtime sends on the stream instead of events.
public enum CodexStreamGarbage: String, Sendable, CaseIterable {
    /// A `data:` line that is not JSON (an HTML error page cut into the stream).
    case notJSON
    /// A `data:` line with bytes that are not UTF-8.
    case notUTF8
    /// 200 with an HTML page instead of an event stream (a captive portal, a proxy's page).
    case htmlPage
}
