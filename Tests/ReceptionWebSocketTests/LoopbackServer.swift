import Hummingbird
import NIOCore
import ReceptionReferenceServers
import Testing

/// Runs the application `make` builds (it must call the given `onServerRunning`) on a free
/// loopback port for the length of `body`, which gets the port, and shuts it down gracefully
/// when `body` ends, however it ends.
func withLoopbackServer<App: ApplicationProtocol>(
    _ make: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) throws -> App,
    _ body: @escaping @Sendable (Int) async throws -> Void
) async throws {
    let server = try await BackgroundServer.start { onReady in
        try make { await onReady($0.localAddress?.port ?? 0) }
    }
    do {
        try await body(server.port)
        await server.stop()
    } catch {
        await server.stop()
        throw error
    }
}
