import Hummingbird
import Logging

/// The Hummingbird application every HTTP reference server runs: bound to loopback only (a
/// reference server is never reachable from another machine), quiet, and answering each
/// request with `respond`. `onReady` gets the bound port (0 asks for an ephemeral one).
func loopbackApplication(host: String, port: Int, label: String,
                         onReady: @escaping @Sendable (Int) async -> Void,
                         respond: @escaping @Sendable (Request) async throws -> Response) -> some ApplicationProtocol {
    precondition(["127.0.0.1", "localhost", "::1"].contains(host), "the reference server only binds loopback")
    var logger = Logger(label: label)
    logger.logLevel = .critical
    return Application(
        responder: CallbackResponder<BasicRequestContext> { request, _ in try await respond(request) },
        configuration: .init(address: .hostname(host, port: port), serverName: nil),
        onServerRunning: { channel in await onReady(channel.localAddress?.port ?? 0) },
        logger: logger)
}
