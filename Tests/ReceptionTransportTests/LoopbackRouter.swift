import Hummingbird
import Testing

/// Serves `router` on an ephemeral loopback port for the length of `body`, which gets the port.
func serving<T>(_ router: Router<BasicRequestContext>, _ body: (Int) async throws -> T) async throws -> T {
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) },
                          logger: TestServerLogging.logger("transport-test-server"))
    let server = Task { try await app.run() }
    defer { server.cancel() }
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    return try await body(port)
}
