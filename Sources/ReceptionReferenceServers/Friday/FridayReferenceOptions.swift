/// Settings of the reference Friday server.
public struct FridayReferenceOptions: Sendable {
    /// Only loopback: the reference server is for tests and local trials.
    public var host: String
    /// 0 picks a free port; the bound port is reported when the server is ready.
    public var port: Int
    /// Pause between two frames of an answer.
    public var stepDelay: Duration
    /// Pause between two frames of an answer to a question that says "slow".
    public var slowDelay: Duration

    public init(host: String = "127.0.0.1", port: Int = 0, stepDelay: Duration = .milliseconds(30),
                slowDelay: Duration = .milliseconds(1500)) {
        self.host = host
        self.port = port
        self.stepDelay = stepDelay
        self.slowDelay = slowDelay
    }
}
