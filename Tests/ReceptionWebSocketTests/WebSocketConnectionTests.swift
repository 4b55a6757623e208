import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import ReceptionCore
import ReceptionWebSocket
import Testing

/// A WebSocket server on loopback: `/echo` answers each text message with "echo: TEXT" and
/// reports the `X-Token` header first; `/drop` sends one message and closes the connection.
private func withServer(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
    let router = Router(context: BasicWebSocketRequestContext.self)
    router.ws("/echo") { request, _ in
        .upgrade([:])
    } onUpgrade: { inbound, outbound, context in
        try await outbound.write(.text("token: \(context.request.headers[HTTPField.Name("X-Token")!] ?? "none")"))
        for try await message in inbound.messages(maxSize: 1 << 20) {
            if case .text(let text) = message { try await outbound.write(.text("echo: \(text)")) }
        }
    }
    router.ws("/drop") { _, _ in .upgrade([:]) } onUpgrade: { _, outbound, _ in
        try await outbound.write(.text("partial answer"))
    }
    router.ws("/big") { _, _ in .upgrade([:]) } onUpgrade: { _, outbound, _ in
        try await outbound.write(.text(String(repeating: "x", count: 200_000)))
        try await Task.sleep(for: .seconds(5))
    }
    try await withLoopbackServer({ running in
        Application(router: Router(), server: .http1WebSocketUpgrade(webSocketRouter: router),
                    configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: running)
    }, body)
}

@Suite("Shared WebSocket transport")
struct WebSocketConnectionTests {
    @Test func messagesGoBothWaysWithTheHeadersGiven() async throws {
        try await withServer { port in
            let connection = try await WebSocketConnection.open(url: "ws://127.0.0.1:\(port)/echo", headers: [("X-Token", "t-1")])
            var iterator = connection.messages.makeAsyncIterator()
            #expect(try await iterator.next() == "token: t-1")
            try await connection.send("hello")
            try await connection.send("again")
            #expect(try await iterator.next() == "echo: hello")
            #expect(try await iterator.next() == "echo: again")
            await connection.close()
            await #expect(throws: BackendError.self) { try await connection.send("after close") }
        }
    }

    @Test func aDroppedConnectionKeepsWhatArrivedAndEndsTheStream() async throws {
        try await withServer { port in
            let connection = try await WebSocketConnection.open(url: "ws://127.0.0.1:\(port)/drop")
            var received: [String] = []
            do {
                for try await message in connection.messages { received.append(message) }
            } catch {
                #expect(error is BackendError, "\(error)")
            }
            #expect(received == ["partial answer"])
            await connection.close()
        }
    }

    @Test func aMessageOverTheLimitEndsTheConnectionInsteadOfGrowingMemory() async throws {
        try await withServer { port in
            let connection = try await WebSocketConnection.open(url: "ws://127.0.0.1:\(port)/big", maxMessageBytes: 50_000)
            var received = 0
            do {
                for try await message in connection.messages { received += message.count }
            } catch {}
            #expect(received == 0)
            await connection.close()
        }
    }

    @Test func nothingListeningIsUnreachableWithTheURL() async throws {
        do {
            _ = try await WebSocketConnection.open(url: "ws://127.0.0.1:9/ws", connectTimeout: .seconds(5))
            Issue.record("nothing listens on port 9")
        } catch let error as BackendError {
            guard case .unreachable(let url, let reason) = error else { Issue.record("\(error)"); return }
            #expect(url == "ws://127.0.0.1:9/ws")
            // In the words the HTTP engines use, not NIO's SingleConnectionFailure dump.
            #expect(reason == "connection refused (nothing listens there)", "\(reason)")
        }
    }
}
