import Hummingbird
import Logging
import NIOCore
import ReceptionReferenceServers
import ReceptionTestSupport
import Testing

/// Serves `router` on an ephemeral loopback port for the length of `body`, which gets the port.
func serving<T>(_ router: Router<BasicRequestContext>, logger: Logger = TestServerLogging.logger("transport-test-server"),
                _ body: (Int) async throws -> T) async throws -> T {
    try await serving({ running in
        Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                    onServerRunning: running, logger: logger)
    }, body)
}

/// Runs the application `make` builds (it must call the given `onServerRunning`) on a free
/// loopback port for the length of `body`, and shuts it down gracefully when `body` ends,
/// however it ends.
func serving<App: ApplicationProtocol, T>(_ make: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void) -> App,
                                          _ body: (Int) async throws -> T) async throws -> T {
    let server = try await BackgroundServer.start { onReady in
        make { await onReady($0.localAddress?.port ?? 0) }
    }
    do {
        let value = try await body(server.port)
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}
