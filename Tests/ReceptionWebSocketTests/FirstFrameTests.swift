import ReceptionCore
import ReceptionWebSocket
import Synchronization
import Testing

/// A server that speaks first (Friday sends `ready` on connect) may write its first frames in
/// the same write as the upgrade's `101` answer; the client then reads them in the same read
/// as the answer. None of them may be lost.
@Suite("Shared WebSocket transport: frames that arrive with the upgrade", .serialized)
struct FirstFrameTests {
    @Test func framesSentWithTheUpgradeAnswerArriveOnEveryConnection() async throws {
        let server = try SpeakingFirstServer(greetings: ["ready", "hello"])
        defer { server.stop() }
        let attempts = 100
        var lost: [Int: String] = [:]
        for attempt in 1...attempts {
            let connection = try await WebSocketConnection.open(url: "ws://127.0.0.1:\(server.port)/ws", connectTimeout: .seconds(20))
            // Both frames were written before this line runs: either they come, or they were
            // dropped and nothing more ever will (the server writes nothing else), which the
            // limit turns into a failure instead of a hang.
            let received = await firstMessages(2, of: connection, within: .seconds(20))
            if received != ["ready #\(attempt)", "hello #\(attempt)"] { lost[attempt] = "\(received)" }
            await connection.close()
        }
        #expect(lost.isEmpty, "\(lost.count) of \(attempts) connections lost frames sent with the 101: \(lost.sorted { $0.key < $1.key }.prefix(5))")
        #expect(server.connections == attempts)
    }

    /// The same when the server then says goodbye at once: its close frame and the end of the
    /// connection come in the same write as the `101` and the frames.
    @Test func framesSentWithTheUpgradeAnswerArriveWhenTheServerClosesRightAway() async throws {
        let server = try SpeakingFirstServer(greetings: ["ready", "bye"], thenClose: true)
        defer { server.stop() }
        let attempts = 100
        var lost: [Int: String] = [:]
        for attempt in 1...attempts {
            let connection = try await WebSocketConnection.open(url: "ws://127.0.0.1:\(server.port)/ws", connectTimeout: .seconds(20))
            let received = await firstMessages(3, of: connection, within: .seconds(20))
            if received != ["ready #\(attempt)", "bye #\(attempt)"] { lost[attempt] = "\(received)" }
            await connection.close()
        }
        #expect(lost.isEmpty, "\(lost.count) of \(attempts) connections lost frames sent with the 101: \(lost.sorted { $0.key < $1.key }.prefix(5))")
    }
}

/// The first `count` messages, or as many as came within `limit` (or before the stream ended).
private func firstMessages(_ count: Int, of connection: WebSocketConnection, within limit: Duration) async -> [String] {
    let received = Mutex<(messages: [String], ended: Bool)>(([], false))
    let reader = Task {
        defer { received.withLock { $0.ended = true } }
        for try await message in connection.messages {
            let enough = received.withLock { $0.messages.append(message); return $0.messages.count >= count }
            if enough { return }
        }
    }
    let deadline = ContinuousClock.now + limit
    while !received.withLock({ $0.ended }), ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(5))
    }
    reader.cancel()
    return received.withLock { $0.messages }
}
