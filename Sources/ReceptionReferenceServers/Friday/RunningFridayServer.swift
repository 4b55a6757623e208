import ReceptionCore

/// A reference Friday server running in the background (tests).
public final class RunningFridayServer: Sendable {
    public let server: FridayReferenceServer
    public let port: Int
    private let task: Task<Void, any Error>

    /// Where a Friday client connects: the `/ws` path, as on the real server.
    public var url: String { "ws://127.0.0.1:\(port)/ws" }

    init(server: FridayReferenceServer, port: Int, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.task = task
    }

    /// Starts a server on 127.0.0.1 (port 0: ephemeral) and returns once it accepts connections.
    public static func start(_ options: FridayReferenceOptions = FridayReferenceOptions()) async throws -> RunningFridayServer {
        let server = FridayReferenceServer(options: options)
        let (port, task) = try await startInBackground { try await server.run(onReady: $0) }
        return RunningFridayServer(server: server, port: port, task: task)
    }

    public func received() async -> [JSONValue] { await server.received() }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
