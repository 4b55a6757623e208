import ReceptionCore

/// A reference Friday server running in the background (tests).
public typealias RunningFridayServer = RunningReferenceServer<FridayReferenceServer>

extension FridayReferenceServer: ReferenceServer {}

extension RunningReferenceServer where Server == FridayReferenceServer {
    /// Where a Friday client connects: the `/ws` path, as on the real server.
    public var url: String { "ws://127.0.0.1:\(port)/ws" }

    /// Starts a server on 127.0.0.1 (port 0: ephemeral) and returns once it accepts connections.
    public static func start(_ options: FridayReferenceOptions = FridayReferenceOptions()) async throws -> RunningFridayServer {
        try await launch(options)
    }

    public func received() async -> [JSONValue] { await server.received() }
}
