/// A reference server that tests and benchmarks run in the background.
public protocol ReferenceServer: Sendable {
    associatedtype Options: Sendable
    init(options: Options)
    /// Serves until cancelled, calling `onReady` with the bound port once it accepts connections.
    func run(onReady: @escaping @Sendable (Int) async -> Void) async throws
}

/// A reference server running in the background on 127.0.0.1; `stop()` ends it. Each server's
/// extension adds its own `start` (with options for an ephemeral port), the URL clients take and
/// what tests ask of it.
public final class RunningReferenceServer<Server: ReferenceServer>: Sendable {
    public let server: Server
    public let port: Int
    private let task: Task<Void, any Error>

    private init(server: Server, port: Int, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.task = task
    }

    /// Starts a server with exactly these options and returns once it accepts connections.
    public static func launch(_ options: Server.Options) async throws -> RunningReferenceServer<Server> {
        let server = Server(options: options)
        let (port, task) = try await startInBackground { try await server.run(onReady: $0) }
        return RunningReferenceServer(server: server, port: port, task: task)
    }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
