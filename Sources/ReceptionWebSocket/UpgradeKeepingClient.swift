import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization
import WSClient
@_spi(WSInternal) import WSCore

/// The WebSocket client's connection: swift-websocket's own (`WebSocketClient`), except that
/// nothing the server sent right after its `101` answer is lost.
///
/// Why not `WebSocketClient.connect`: a server that speaks first and then closes (its frames,
/// a close frame and the end of the connection all arriving with the `101`) lost everything
/// after the answer, and the connection then hung. NIO's HTTP response decoder hands the bytes
/// it read past the `101` on when it is removed for the upgrade, but not when it has seen the
/// end of the input first (`HTTPDecoder.decodeLast`: "only if we haven't seen EOF"); the end of
/// the input reached it while the upgrade was being set up, so the frames were dropped, and the
/// end itself went to a pipeline with nothing yet to hear it. swift-websocket builds that
/// pipeline privately, so this is the same pipeline built here, with one handler in front of
/// the HTTP decoder (`EndOfInputHolder`) that holds the end of the input back until the
/// upgrade is done: the decoder is removed as on any upgrade, its bytes are handed on, and the
/// end follows them. Reading frames, pings, closing and the limits are swift-websocket's
/// (`WebSocketHandler`, the same code `WebSocketClient` runs).
struct UpgradeKeepingClient {
    struct Context: WebSocketContext {
        let logger: Logger
    }

    /// The parts of a `ws://` or `wss://` URL the connection needs.
    struct Target {
        var host: String
        var port: Int
        var requestPath: String
        var tls: Bool
        var hostHeader: String
        var origin: String

        init(_ url: String) throws {
            guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
                  ["ws", "wss", "http", "https"].contains(scheme), let host = components.host, !host.isEmpty else {
                throw WebSocketClientError.invalidURL
            }
            tls = scheme == "wss" || scheme == "https"
            self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            port = components.port ?? (tls ? 443 : 80)
            let bracketed = self.host.contains(":") ? "[\(self.host)]" : self.host
            hostHeader = components.port.map { "\(bracketed):\($0)" } ?? bracketed
            origin = "\(scheme)://\(bracketed)"
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            requestPath = path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        }
    }

    /// `tlsConfiguration` nil: the system's trust store, certificates verified.
    static func connect(url: String, configuration: WebSocketClientConfiguration, tlsConfiguration: TLSConfiguration?,
                        logger: Logger, handler: @escaping WebSocketDataHandler<Context>) async throws {
        let target = try Target(url)
        let tls = tlsConfiguration ?? TLSConfiguration.makeClientConfiguration()
        let channel = try UpgradeKeepingChannel(target: target, configuration: configuration,
                                                sslContext: target.tls ? NIOSSLContext(configuration: tls) : nil,
                                                handler: handler)
        let connection = ClientConnection(channel, address: .hostname(target.host, port: target.port),
                                          eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        _ = try await connection.run()
    }
}

/// The pipeline of swift-websocket's client channel (`WebSocketClientChannel`, without proxies
/// and extensions, which Reception does not use) with `EndOfInputHolder` in front.
struct UpgradeKeepingChannel: ClientConnectionChannel {
    enum UpgradeResult: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded
    }

    typealias Value = EventLoopFuture<UpgradeResult>

    let target: UpgradeKeepingClient.Target
    let configuration: WebSocketClientConfiguration
    let sslContext: NIOSSLContext?
    let handler: WebSocketDataHandler<UpgradeKeepingClient.Context>
    /// A frame the decoder refused (one frame past `maxFrameSize`): NIO answers it with a
    /// close (1009) and ends the connection, and the handler's stream ends as if the server
    /// had finished; this is how `handle` tells the two apart.
    let refusedFrame = FrameErrorWatcher()

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            if let sslContext {
                let tls = try NIOSSLClientHandler(context: sslContext, serverHostname: configuration.sniHostname ?? target.host)
                try channel.pipeline.syncOperations.addHandler(tls)
            }
            let holder = EndOfInputHolder()
            try channel.pipeline.syncOperations.addHandler(holder)
            let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeResult>(maxFrameSize: configuration.maxFrameSize) { [refusedFrame] channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    // After the frame decoder and its error handler, which pass the error on.
                    try channel.pipeline.syncOperations.addHandler(refusedFrame)
                    return .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                }
            }
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: "Host", value: target.hostHeader)
            headers.replaceOrAdd(name: "Origin", value: target.origin)
            for field in configuration.additionalHeaders { headers.add(name: field.name.rawName, value: field.value) }
            let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: target.requestPath, headers: headers)
            let upgrade = NIOTypedHTTPClientUpgradeConfiguration(upgradeRequestHead: request, upgraders: [upgrader]) { channel in
                channel.eventLoop.makeCompletedFuture { .notUpgraded }
            }
            var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgrade)
            pipeline.leftOverBytesStrategy = .forwardBytes
            let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
            // The upgrade handler passes on what it buffered right after it completes this
            // future: the held end of the input goes after that, in a task of its own.
            upgraded.whenComplete { _ in channel.eventLoop.execute { holder.release() } }
            return upgraded
        }
    }

    func handle(value: Value, logger: Logger) async throws -> WebSocketCloseFrame? {
        switch try await value.get() {
        case .websocket(let channel):
            do {
                let closed = try await WebSocketHandler.handle(
                    type: .client,
                    configuration: .init(extensions: [], autoPing: configuration.autoPing, closeTimeout: configuration.closeTimeout,
                                         validateUTF8: configuration.validateUTF8,
                                         ignoreUncleanSSLShutdownErrors: configuration.ignoreUncleanSSLShutdownErrors,
                                         maxFrameSize: configuration.maxFrameSize),
                    asyncChannel: channel, context: UpgradeKeepingClient.Context(logger: logger), handler: handler)
                if refusedFrame.refusedTooLarge { throw WebSocketClientError.serverSentMessageTooLarge }
                return closed
            } catch let error as WebSocketClientError {
                throw error
            } catch {
                if refusedFrame.refusedTooLarge { throw WebSocketClientError.serverSentMessageTooLarge }
                // What `WebSocketClient.run` makes of the handler's close codes (its error type
                // is internal to swift-websocket; its one case carries the code).
                guard let code = Mirror(reflecting: error).children.first(where: { $0.label == "close" })?.value as? WebSocketErrorCode else {
                    throw error
                }
                switch code {
                case .messageTooLarge: throw WebSocketClientError.serverSentMessageTooLarge
                case .dataInconsistentWithMessage: throw WebSocketClientError.serverSentDataInconsistentWithMessage
                default: throw WebSocketClientError.serverProtocolError
                }
            }
        case .notUpgraded:
            throw WebSocketClientError.webSocketUpgradeFailed
        }
    }
}

/// Notes a frame the WebSocket decoder refused for its length. Added after NIO's protocol error
/// handler, which closes the connection (1009) and passes the error on.
final class FrameErrorWatcher: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = NIOAny

    private let refused = Mutex(false)

    /// Whether a frame longer than the limit arrived.
    var refusedTooLarge: Bool { refused.withLock { $0 } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError, error == .invalidFrameLength { refused.withLock { $0 = true } }
        context.fireErrorCaught(error)
    }
}

/// Holds the end of the input (a server that closed its side) back while the upgrade is set
/// up, and passes it on, after what was read before it, once the upgrade is done (`release`).
/// Everything else goes through at once.
final class EndOfInputHolder: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = NIOAny

    // Touched on the channel's event loop only.
    private var context: ChannelHandlerContext?
    private var held = false
    private var released = false

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { context.fireChannelRead(data) }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if !released, let event = event as? ChannelEvent, event == .inputClosed {
            held = true
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// On the event loop: passes the held end on (if any) and leaves the pipeline.
    func release() {
        guard !released, let context else { return }
        released = true
        if held { context.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
