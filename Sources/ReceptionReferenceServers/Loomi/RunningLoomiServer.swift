/// A Loomi reference server running in the background (tests).
public typealias RunningLoomiServer = RunningReferenceServer<LoomiReferenceServer>

extension LoomiReferenceServer: ReferenceServer {}

extension RunningReferenceServer where Server == LoomiReferenceServer {
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on 127.0.0.1 (ephemeral port unless `options.port` names one) and
    /// returns once it accepts connections.
    public static func start(_ options: LoomiReferenceOptions = LoomiReferenceOptions(port: 0)) async throws -> RunningLoomiServer {
        try await launch(options)
    }
}
