import ReceptionCore
import ReceptionWebSocket
import Synchronization

/// The one WebSocket a Friday backend keeps to its server, and the query it carries.
///
/// Friday runs one agent per connection and tags nothing with a query id, so every frame
/// belongs to the query in flight. One reader (the pump) takes every frame off the socket and
/// hands it to that query; frames with no query to go to (`ready`, the reply to
/// `new_session`) are dropped.
///
/// A query that did not end with `complete` (an error, silence, Ctrl-C, a broken socket)
/// leaves the server in a state this client cannot know: it may still be running and
/// sending (closing the socket does not stop it, and an error is sent twice). So the socket
/// is closed and the next query opens a fresh one; sessions live on the server's disk and
/// survive that.
actor FridayChannel {
    /// One query in flight: its frames, and the socket that must carry its permission answers
    /// (permission ids count from 0 on every connection).
    struct Query: Sendable {
        let token: Int
        let frames: AsyncThrowingStream<FridayFrame, any Error>
        let clock: IdleClock
    }

    /// The socket broke, or the server closed it, before the query ended.
    struct Lost: Error, Sendable {
        let reason: String
    }

    let configuration: FridayConfiguration
    private var connection: WebSocketConnection?
    private var connectionGeneration = 0
    private var active: (token: Int, generation: Int, sink: AsyncThrowingStream<FridayFrame, any Error>.Continuation, clock: IdleClock)?
    private var nextToken = 0

    init(configuration: FridayConfiguration) {
        self.configuration = configuration
    }

    /// Sends `message` as a new query and returns its frames. A query still in flight is
    /// abandoned first (Friday does not queue a second query behind the first).
    func begin(_ message: FridayMessage) async throws -> Query {
        if let active {
            active.sink.finish(throwing: Lost(reason: "a newer question replaced it"))
            self.active = nil
            await dropConnection()
        }
        let connection = try await connected()
        nextToken += 1
        let (frames, sink) = AsyncThrowingStream<FridayFrame, any Error>.makeStream(bufferingPolicy: .unbounded)
        let clock = IdleClock()
        active = (nextToken, connectionGeneration, sink, clock)
        do {
            try await connection.send(message.text)
        } catch {
            active = nil
            await dropConnection()
            throw error
        }
        return Query(token: nextToken, frames: frames, clock: clock)
    }

    /// Ends query `token`. Unless it ended with `complete`, the socket is closed (see above).
    func end(_ token: Int, cleanly: Bool) async {
        guard let active, active.token == token else { return }
        active.sink.finish()
        self.active = nil
        if !cleanly { await dropConnection() }
    }

    /// Sends a permission answer on the socket that asked the question.
    func answer(_ message: FridayMessage) async throws {
        guard let active, active.generation == connectionGeneration, let connection else {
            throw BackendError.invalidTaskState(taskID: "", reason: "the Friday query that asked for permission has ended; there is nothing to answer")
        }
        active.clock.touch()
        try await connection.send(message.text)
    }

    /// Opens the socket now (to say at once when the server is not there).
    func open() async throws { _ = try await connected() }

    /// Sends a message that belongs to no query (`new_session`) if a socket is open.
    func sendIfConnected(_ message: FridayMessage) async throws {
        guard let connection else { return }
        try await connection.send(message.text)
    }

    func close() async {
        active?.sink.finish()
        active = nil
        await dropConnection()
    }

    // MARK: the socket

    private func connected() async throws -> WebSocketConnection {
        if let connection { return connection }
        let opened = try await WebSocketConnection.open(url: configuration.url, maxMessageBytes: configuration.maxFrameBytes)
        connectionGeneration += 1
        connection = opened
        let generation = connectionGeneration
        // The only reader of this socket; it ends when the socket does.
        Task { [weak self] in
            do {
                for try await text in opened.messages {
                    guard let self else { return }
                    await self.deliver(text, generation: generation)
                }
                await self?.lost(generation: generation, reason: "Friday closed the connection")
            } catch {
                await self?.lost(generation: generation, reason: "\(error)")
            }
        }
        return opened
    }

    private func deliver(_ text: String, generation: Int) {
        guard let active, active.generation == generation else { return }
        // A message that is not a JSON object with a type is not Friday's; skip it.
        guard let frame = FridayFrame(text: text) else { return }
        active.sink.yield(frame)
    }

    private func lost(generation: Int, reason: String) async {
        guard generation == connectionGeneration else { return }
        if let active, active.generation == generation {
            active.sink.finish(throwing: Lost(reason: reason))
            self.active = nil
        }
        await dropConnection()
    }

    private func dropConnection() async {
        guard let connection else { return }
        self.connection = nil
        connectionGeneration += 1
        await connection.close()
    }
}
