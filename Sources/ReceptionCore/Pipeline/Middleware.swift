/// One link of the chain between the front end and a backend, in the spirit of
/// Hummingbird's `RouterMiddleware`.
///
/// Outgoing, a middleware changes the request before calling `next`; incoming, it
/// transforms the events of the exchange `next` returns. Either half may be a no-op.
///
/// ```swift
/// struct Shout: Middleware {
///     func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
///         var request = request
///         request.text = request.text.uppercased()      // outgoing
///         return try await next(request, context)                      // incoming untouched
///     }
/// }
/// ```
public protocol Middleware: Sendable {
    func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange
}

/// The rest of the chain, ending at the backend.
public typealias MiddlewareNext = @Sendable (ReceptionRequest, ReceptionContext) async throws -> Exchange

/// A request as it reached the backend, and the events coming back.
public struct Exchange: Sendable {
    /// The request after every outgoing middleware ran: what the backend received.
    public var request: ReceptionRequest
    public var events: ResponseStream

    public init(request: ReceptionRequest, events: ResponseStream) {
        self.request = request
        self.events = events
    }

    /// Transforms each incoming event into zero or more events; `finish` may add events
    /// when the backend's stream ends (e.g. text held back while a word was incomplete).
    /// Cancelling the consumer cancels the upstream stream too.
    public func mapEvents(
        _ transform: @escaping @Sendable (ResponseEvent) async throws -> [ResponseEvent],
        finish: @escaping @Sendable () async throws -> [ResponseEvent] = { [] }
    ) -> Exchange {
        let mapped = ResponseStream.forwarding(events, transform: transform, finish: finish)
        return Exchange(request: request, events: mapped)
    }
}

public typealias ResponseStream = AsyncThrowingStream<ResponseEvent, any Error>

extension ResponseStream {
    /// A stream fed by a task that reads `upstream`, yields what `transform` makes of each
    /// element and then what `finish` adds, also when `upstream` fails (then before its error).
    /// Cancelling the consumer cancels the reader.
    static func forwarding<Upstream: AsyncSequence & Sendable>(
        _ upstream: Upstream,
        transform: @escaping @Sendable (Upstream.Element) async throws -> [ResponseEvent],
        finish: @escaping @Sendable () async throws -> [ResponseEvent] = { [] }
    ) -> ResponseStream where Upstream.Element: Sendable {
        ResponseStream { continuation in
            let task = Task {
                do {
                    var elements = upstream.makeAsyncIterator()
                    while true {
                        let element: Upstream.Element?
                        do {
                            element = try await elements.next()
                        } catch {
                            // The backend failed (a stalled or broken stream): what a middleware
                            // held back, such as a word split across chunks, is still shown before
                            // the error, so nothing that arrived is lost.
                            for output in (try? await finish()) ?? [] { continuation.yield(output) }
                            throw error
                        }
                        guard let element else { break }
                        for output in try await transform(element) { continuation.yield(output) }
                    }
                    for output in try await finish() { continuation.yield(output) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// A backend event on its way back, with what the front end should show for it.
public struct ResponseEvent: Sendable, Hashable {
    public var event: BackendEvent
    /// Filled by the personality middleware; empty means "draw the event plainly".
    public var display: [DisplayBlock]
    /// The same event drawn whole, when the personality's length limits or brevity left part
    /// of it out (nil otherwise): what "tell me more" shows first, since the engine already
    /// sent it and would only be asked for something else.
    public var displayInFull: [DisplayBlock]?

    public init(_ event: BackendEvent, display: [DisplayBlock] = [], displayInFull: [DisplayBlock]? = nil) {
        self.event = event
        self.display = display
        self.displayInFull = displayInFull
    }
}
