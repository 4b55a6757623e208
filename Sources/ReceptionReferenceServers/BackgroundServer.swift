import Logging
import ServiceLifecycle

/// A server running in a task of its own until `stop()`, which shuts it down gracefully: the
/// listening socket closes first, every connection already accepted is served or closed, and
/// only what is still open after `patience` is cancelled.
///
/// Cancelling a NIO server's task outright can drop a connection accepted in that instant
/// before anyone took it from the server's queue, and NIO stops the whole process when such a
/// connection is released unclosed ("Deinited NIOAsyncWriter without calling finish()",
/// apple/swift-nio#2637). A test suite that starts and stops hundreds of servers while clients
/// still connect meets that instant sooner or later.
public final class BackgroundServer: Sendable {
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    /// Starts what `run` serves and returns once it listens (the port it reports through its
    /// `onReady`). A server that fails to start throws here.
    public static func start(patience: Duration = .seconds(2),
                             _ run: @escaping @Sendable (_ onReady: @escaping @Sendable (Int) async -> Void) async throws -> Void)
        async throws -> BackgroundServer {
        try await start(patience: patience) { onReady in ClosureService { try await run(onReady) } }
    }

    /// Starts the service `make` builds (a Hummingbird application, say, whose `onServerRunning`
    /// calls `onReady` with its port) and returns once it listens.
    public static func start<Server: Service>(patience: Duration = .seconds(2),
                                              _ make: (_ onReady: @escaping @Sendable (Int) async -> Void) throws -> Server)
        async throws -> BackgroundServer {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let server = try make { port in continuation.yield(port) }
        var configuration = ServiceGroupConfiguration(services: [ClosureService {
            defer { continuation.finish() }
            try await server.run()
        }], logger: Logger(label: "background-server", factory: { _ in SwiftLogNoOpLogHandler() }))
        configuration.maximumGracefulShutdownDuration = patience
        let group = ServiceGroup(configuration: configuration)
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            _ = try await task.value
            throw CancellationError()
        }
        return BackgroundServer(port: port, group: group, task: task)
    }

    /// Shuts the server down gracefully and returns when it has stopped.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}

/// One closure as a service of a `ServiceGroup`: a Hummingbird application run inside it sees
/// the group's graceful shutdown through the task, as its own group's parent.
private struct ClosureService: Service {
    let body: @Sendable () async throws -> Void
    init(_ body: @escaping @Sendable () async throws -> Void) { self.body = body }
    func run() async throws { try await body() }
}
