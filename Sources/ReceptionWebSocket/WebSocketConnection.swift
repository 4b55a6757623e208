import HTTPTypes
import WSClient
import Logging
import NIOCore
import NIOPosix
import ReceptionCore
import ReceptionTransport
import Synchronization

/// A text WebSocket to an engine (Friday's `/ws`, for one): messages in as an async stream,
/// messages out with `send`. Built on swift-websocket's client (`UpgradeKeepingClient`: its
/// pipeline, keeping the frames a server sends with its `101` answer); adapters depend on this
/// module, never on the WebSocket library, so every engine gets the same limits and errors.
///
/// - A message larger than `maxMessageBytes` closes the connection instead of growing memory;
///   when it came in fragments that add up, `messages` throws `BackendError.protocolViolation`
///   naming the limit. (One frame past the limit is refused by NIO's decoder, which closes the
///   socket without telling this layer why: `messages` just ends.) A text message that is not
///   UTF-8 closes it too, as a protocol error in words, not "unreachable": the server was there.
/// - A connection that cannot be opened is `BackendError.unreachable` with the reason; one
///   that drops mid-conversation ends `messages` by throwing `BackendError.unreachable`, so a
///   front end can keep what it already showed and say what happened.
/// - `close()` ends the conversation from this side; cancelling the task reading `messages`
///   does not close the socket (another reader may follow), `close()` does.
public final class WebSocketConnection: Sendable {
    public let url: String
    /// Inbound text messages, in order. Binary messages are skipped: no engine here sends any.
    public let messages: AsyncThrowingStream<String, any Error>
    private let outgoing: AsyncStream<String>.Continuation
    private let connection: Task<Void, Never>

    /// Connects and returns once the server accepted the upgrade.
    public static func open(url: String, headers: [(name: String, value: String)] = [], maxMessageBytes: Int = 4 << 20,
                            connectTimeout: Duration = .seconds(10)) async throws -> WebSocketConnection {
        // "ws://user:pass@host" is read by the client as the host "user": refuse it rather
        // than connect to a server the URL does not name (and never queue for it).
        guard !RedactedURL.carriesCredentials(url) else {
            throw BackendError.untrusted(url: RedactedURL.display(url), reason: "a WebSocket URL cannot carry a user name or password")
        }
        let (opened, openedContinuation) = AsyncThrowingStream<Void, any Error>.makeStream()
        let connection = WebSocketConnection(url: url, headers: headers, maxMessageBytes: maxMessageBytes, opened: openedContinuation)
        let timeout = Task {
            try await Task.sleep(for: connectTimeout)
            openedContinuation.finish(throwing: BackendError.unreachable(url: RedactedURL.display(url), reason: "no WebSocket upgrade within \(connectTimeout)"))
        }
        defer { timeout.cancel() }
        do {
            for try await _ in opened { return connection }
            throw BackendError.unreachable(url: RedactedURL.display(url), reason: "the connection closed before the upgrade")
        } catch {
            // Not `close()`: a server that took the TCP connection and never answers the
            // upgrade leaves hummingbird-websocket waiting on a future that cancellation does
            // not reach, so waiting for the connection task here hung `open` for ever, past its
            // own timeout. The task is cancelled and ends when the server closes the socket.
            connection.abandon()
            throw error
        }
    }

    private init(url: String, headers: [(name: String, value: String)], maxMessageBytes: Int,
                 opened: AsyncThrowingStream<Void, any Error>.Continuation) {
        self.url = url
        let (messages, inbound) = AsyncThrowingStream<String, any Error>.makeStream()
        let (outgoingStream, outgoing) = AsyncStream<String>.makeStream()
        self.messages = messages
        self.outgoing = outgoing
        var configuration = WebSocketClientConfiguration(maxFrameSize: maxMessageBytes, validateUTF8: true)
        // How long the library's own close (for a message over the limit) waits for the
        // server's reply before it shuts the socket: with its default 15 s, `messages` said
        // nothing for 15 s after the limit was passed. (`close()` cancels, so is not held.)
        configuration.closeTimeout = .seconds(1)
        for header in headers {
            if let name = HTTPField.Name(header.name) { configuration.additionalHeaders[name] = header.value }
        }
        var logger = Logger(label: "reception.websocket")
        logger.logLevel = .critical
        connection = Task { [configuration, logger] in
            do {
                // swift-websocket's client, on a pipeline that keeps what the server sent with
                // its `101` answer (see `UpgradeKeepingClient`).
                try await UpgradeKeepingClient.connect(url: url, configuration: configuration, tlsConfiguration: ConnectionFailure.tlsConfiguration(),
                                                       logger: logger) { inboundFrames, outbound, _ in
                    opened.yield()
                    opened.finish()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await text in outgoingStream { try await outbound.write(.text(text)) }
                            try await outbound.close(.normalClosure, reason: nil)
                        }
                        for try await message in inboundFrames.messages(maxSize: maxMessageBytes) {
                            if case .text(let text) = message { inbound.yield(text) }
                        }
                        group.cancelAll()
                    }
                }
                inbound.finish()
            } catch is CancellationError {
                inbound.finish()
            } catch let error as WebSocketClientError where error == .serverSentMessageTooLarge {
                // Not "cannot reach": the server is there and sent too much. Said with the limit.
                let tooLarge = BackendError.protocolViolation("\(RedactedURL.display(url)) sent a WebSocket message larger than \(maxMessageBytes) bytes; Reception closed the connection rather than hold it")
                opened.finish(throwing: tooLarge)
                inbound.finish(throwing: tooLarge)
            } catch {
                // A server that broke the protocol was there: "cannot reach" (as it was said)
                // sends a person looking for a network fault, and is what an offline queue
                // waits out, though waiting will not mend the server.
                if let breach = Self.protocolBreach(error, maxMessageBytes: maxMessageBytes) {
                    let violation = BackendError.protocolViolation("\(RedactedURL.display(url)) \(breach), so the connection was closed")
                    opened.finish(throwing: violation)
                    inbound.finish(throwing: violation)
                    return
                }
                let failure = BackendError.unreachable(url: RedactedURL.display(url), reason: Self.describe(error))
                // Before the upgrade: nothing answering there is "unreachable" (an offline
                // queue may keep the message for later); something that answered but refused
                // the upgrade (a wrong path, not a WebSocket server) is not, since waiting
                // would never deliver the message.
                let beforeUpgrade: BackendError = if ConnectionFailure.isTLSFailure(error) {
                    .untrusted(url: RedactedURL.display(url), reason: Self.describe(error))
                } else if Self.isConnectionFailure(error) {
                    failure
                } else {
                    .protocolViolation("\(RedactedURL.display(url)) did not accept a WebSocket connection (\(Self.describe(error)))")
                }
                opened.finish(throwing: beforeUpgrade)
                inbound.finish(throwing: failure)
            }
        }
    }

    /// Sends one text message. After `close()` it throws.
    public func send(_ text: String) async throws {
        guard case .enqueued = outgoing.yield(text) else {
            throw BackendError.unreachable(url: RedactedURL.display(url), reason: "the connection is closed")
        }
    }

    /// Stops the connection without waiting for it to end (see `open`).
    private func abandon() {
        outgoing.finish()
        connection.cancel()
    }

    /// Closes the connection and waits until it is closed.
    public func close() async {
        outgoing.finish()
        connection.cancel()
        await connection.value
    }

    /// True for a failure to reach anything at all (refused, no route, DNS, timed out).
    static func isConnectionFailure(_ error: any Error) -> Bool {
        if error is NIOConnectionError || error is IOError { return true }
        if let error = error as? ChannelError, case .connectTimeout = error { return true }
        return false
    }

    /// What the server did wrong, in words, when it broke the WebSocket protocol after the
    /// upgrade (RFC 6455: a text message that is not UTF-8, one over the limit, a bad frame).
    static func protocolBreach(_ error: any Error, maxMessageBytes: Int) -> String? {
        guard let error = error as? WebSocketClientError else { return nil }
        switch error {
        case .serverSentDataInconsistentWithMessage: return "sent a text message that is not valid UTF-8"
        case .serverSentMessageTooLarge: return "sent a message larger than \(maxMessageBytes) bytes"
        case .serverProtocolError: return "broke the WebSocket protocol (a frame out of place)"
        default: return nil
        }
    }

    /// A connection failure in plain words, as the HTTP transport says it.
    static func describe(_ error: any Error) -> String { ConnectionFailure.describe(error) }
}
