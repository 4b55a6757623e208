/// A Loomi reference server running in the background (tests).
public final class RunningLoomiServer: Sendable {
    public let server: LoomiReferenceServer
    public let port: Int
    private let task: Task<Void, any Error>

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    init(server: LoomiReferenceServer, port: Int, task: Task<Void, any Error>) {
        self.server = server
        self.port = port
        self.task = task
    }

    /// Starts a server on 127.0.0.1 (ephemeral port unless `options.port` names one) and
    /// returns once it accepts connections.
    public static func start(_ options: LoomiReferenceOptions = LoomiReferenceOptions(port: 0)) async throws -> RunningLoomiServer {
        let server = LoomiReferenceServer(options: options)
        let (port, task) = try await startInBackground { try await server.run(onReady: $0) }
        return RunningLoomiServer(server: server, port: port, task: task)
    }

    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
