/// A reference server that tests and benchmarks run in the background.
public protocol ReferenceServer: Sendable {
    associatedtype Options: Sendable
    init(options: Options)
    /// Serves until cancelled or shut down gracefully, calling `onReady` with the bound port once it accepts connections.
    func run(onReady: @escaping @Sendable (Int) async -> Void) async throws
}

/// A reference server running in the background on 127.0.0.1; `stop()` ends it. Each server's
/// extension adds its own `start` (with options for an ephemeral port), the URL clients take and
/// what tests ask of it.
public final class RunningReferenceServer<Server: ReferenceServer>: Sendable {
    public let server: Server
    public let port: Int
    private let background: BackgroundServer

    private init(server: Server, background: BackgroundServer) {
        self.server = server
        self.port = background.port
        self.background = background
    }

    /// Starts a server with exactly these options and returns once it accepts connections.
    public static func launch(_ options: Server.Options) async throws -> RunningReferenceServer<Server> {
        let server = Server(options: options)
        let background = try await BackgroundServer.start { try await server.run(onReady: $0) }
        return RunningReferenceServer(server: server, background: background)
    }

    /// Stops it gracefully (see `BackgroundServer`) and returns when it has stopped.
    public func stop() async {
        await background.stop()
    }
}
