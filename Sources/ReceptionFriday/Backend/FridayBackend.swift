import Foundation
import ReceptionCore

/// Friday (`tryfridayai/friday_cli`'s `friday serve`) over its WebSocket: a question goes out
/// as `query`, the answer streams back as text chunks, tool uses and permission questions,
/// and ends with `complete` (or `error`, or nothing at all; see `FridayConfiguration.idleTimeout`).
///
/// Friday has no field for intent: it travels in the query's `metadata`, which the server
/// stores with the query. It has no cancel message either: Ctrl-C closes the socket, so
/// nothing more is shown, but the server may finish the run (and its tools) anyway.
public struct FridayBackend: Backend {
    public let descriptor: BackendDescriptor
    let configuration: FridayConfiguration
    let channel: FridayChannel
    let session = FridaySession()

    public init(configuration: FridayConfiguration = FridayConfiguration(), name: String = "friday") {
        self.configuration = configuration
        channel = FridayChannel(configuration: configuration)
        descriptor = BackendDescriptor(name: name, summary: "Friday at \(RedactedURL.display(configuration.url)) (WebSocket)",
                                       capabilities: [.textStreaming, .permissionRequests],
                                       endpoint: configuration.url)
    }

    /// The id of the conversation on the server, once it gave one.
    public var sessionID: String? { session.current }

    public func submit(_ request: ReceptionRequest) -> BackendEventStream {
        let channel = channel, session = session, configuration = configuration
        return BackendEventStream { continuation in
            let work = Task {
                await Self.run(request, channel: channel, session: session, configuration: configuration, continuation: continuation)
            }
            continuation.onTermination = { _ in work.cancel() }
        }
    }

    public func answer(_ answer: PermissionAnswer) async throws {
        guard let id = Int(answer.requestID) else {
            throw BackendError.invalidTaskState(taskID: answer.requestID, reason: "Friday's permission ids are numbers")
        }
        try await channel.answer(.permissionResponse(id: id, approved: answer.approved, level: answer.scope))
    }

    public func wirePayload(for request: ReceptionRequest) -> JSONValue? {
        query(for: request, resuming: session.current).json
    }

    /// `/new`: tells the server to start over and forgets the session id.
    public func startNewConversation() async throws {
        session.forget()
        try await channel.sendIfConnected(.newSession)
    }

    /// Carries on a conversation the server gave this id to (in an earlier session): the next
    /// query sends it back. A server that no longer knows it starts a new one and says so.
    public func resume(sessionID: String) {
        session.remember(sessionID)
    }

    /// Opens the socket before the first question, so a missing server is said at once.
    public func open() async throws { try await channel.open() }

    /// Closes the socket (when the front end leaves this backend).
    public func close() async { await channel.close() }

    func query(for request: ReceptionRequest, resuming sessionID: String?) -> FridayMessage {
        .query(message: request.text, sessionID: sessionID, metadata: FridayMessage.metadata(for: request))
    }

    // MARK: one query

    private enum Ending: Sendable {
        case terminal(cleanly: Bool)
        case idle
        case lost(String)
    }

    private static func run(_ request: ReceptionRequest, channel: FridayChannel, session: FridaySession,
                            configuration: FridayConfiguration,
                            continuation: BackendEventStream.Continuation) async {
        let resuming = session.current
        let query: FridayChannel.Query
        do {
            query = try await channel.begin(.query(message: request.text, sessionID: resuming,
                                                   metadata: FridayMessage.metadata(for: request)))
        } catch {
            continuation.finish(throwing: error)
            return
        }
        continuation.yield(.accepted(taskID: request.id, status: .running))
        // The session id the server gave during this query (it may differ from the one resumed).
        let announced = FridaySession()
        let ending: Ending
        do {
            ending = try await withThrowingTaskGroup(of: Ending.self) { group in
                group.addTask {
                    try await query.clock.expiry(after: configuration.idleTimeout)
                    return .idle
                }
                group.addTask {
                    var turn = FridayTurn(taskID: request.id, maxTextBytes: configuration.maxAnswerBytes)
                    // The last thinking or progress line shown: the same again is no news.
                    var lastStatus: BackendEvent?
                    do {
                        for try await frame in query.frames {
                            switch frame {
                            case .session(let id), .complete(_, let id?, _):
                                session.remember(id)
                                announced.remember(id)
                            default: break
                            }
                            let events = turn.take(frame)
                            // Only news resets the idle clock (see `IdleClock`).
                            if events.contains(where: { !Self.repeats($0, lastStatus) }) {
                                query.clock.touch()
                            } else {
                                query.clock.heartbeat()
                            }
                            for event in events {
                                switch event {
                                case .thinking, .progress: lastStatus = event
                                default: break
                                }
                                // The person may take their time; silence is not the server's.
                                if case .permissionRequest = event { query.clock.pause() }
                                continuation.yield(event)
                            }
                            if let last = events.last, last.isTerminal {
                                if case .result = last { return .terminal(cleanly: true) }
                                return .terminal(cleanly: false)
                            }
                        }
                    } catch let lost as FridayChannel.Lost {
                        return .lost(lost.reason)
                    }
                    try Task.checkCancellation()
                    return .lost("the answer ended without a result")
                }
                let first = try await group.next()!
                group.cancelAll()
                return first
            }
        } catch {
            // Cancelled: the consumer went away (Ctrl-C) or cancelled us.
            await channel.end(query.token, cleanly: false)
            continuation.yield(.failure(TaskFailure(taskID: request.id, message: "Cancelled. Friday has no way to stop a query: Reception closed the connection, so nothing more is shown, but the server may still finish it.", cancelled: true)))
            continuation.finish()
            return
        }
        switch ending {
        case .terminal(let cleanly):
            await channel.end(query.token, cleanly: cleanly)
        case .idle:
            await channel.end(query.token, cleanly: false)
            let heartbeats = query.clock.heartbeats
            var message = heartbeats == 0
                ? "Friday sent nothing for \(DurationText.seconds(configuration.idleTimeout)) after its last message, so Reception stopped waiting. Friday ends some runs (too many turns, an execution error, an unknown session) without a word; what arrived is shown above."
                : "Friday sent nothing new for \(DurationText.seconds(configuration.idleTimeout)) (only \(Counted.phrase(heartbeats, "empty or repeated frame"))), so Reception stopped waiting. What arrived is shown above."
            if let resuming, let new = announced.current, new != resuming {
                // The server did not know the session it was asked to resume and started another.
                session.forget()
                message += " The server did not resume the conversation, so the next message starts a new one."
            }
            continuation.yield(.failure(TaskFailure(taskID: request.id, message: message)))
        case .lost(let reason):
            await channel.end(query.token, cleanly: false)
            continuation.yield(.failure(TaskFailure(taskID: request.id, message: "The connection to Friday at \(RedactedURL.display(configuration.url)) was lost mid-answer (\(FridayTurn.line(reason, limit: 300))). What arrived is shown above; the next message opens a new connection.")))
        }
        continuation.finish()
    }

    /// True when `event` shows nothing new: a thinking or progress line the same as the last one.
    static func repeats(_ event: BackendEvent, _ lastStatus: BackendEvent?) -> Bool {
        switch event {
        case .thinking, .progress: event == lastStatus
        default: false
        }
    }
}
