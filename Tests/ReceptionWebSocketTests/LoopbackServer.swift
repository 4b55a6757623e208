import Hummingbird
import NIOCore
import Testing

/// Runs the application `make` builds (it must call the given `onServerRunning`) on a free
/// loopback port for the length of `body`, which gets the port.
func withLoopbackServer<App: ApplicationProtocol>(
    _ make: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) throws -> App,
    _ body: @escaping @Sendable (Int) async throws -> Void
) async throws {
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let app = try make { continuation.yield($0.localAddress?.port ?? 0) }
    let server = Task { try await app.run() }
    defer { server.cancel() }
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    try await body(port)
}
