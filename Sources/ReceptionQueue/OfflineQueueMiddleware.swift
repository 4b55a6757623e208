import Foundation
import ReceptionCore

/// Queues a message its backend cannot receive now, and sends queued messages again, each
/// exactly once where the engine allows it.
///
/// **Queueing.** When a new `.submit` request's stream ends by throwing
/// `BackendError.unreachable` *before any event* (the server could not be reached, so nothing
/// started), the request as the backend would have received it is stored in the
/// `OfflineQueue` under the backend's name, committed, and only then does the stream end with
/// `.queued` ("The backend is unreachable; your message is queued (N waiting) …"). Nothing else
/// is queued: a timeout, an HTTP error, or a connection lost after the engine accepted the
/// task may mean the engine has the work, and a front end must not hide that.
///
/// **Sending again.** A front end sends a queued entry through the same pipeline with
/// `context.values[OfflineQueueMiddleware.entryKey]` set to the entry's id (see
/// `OfflineQueue.entries(backend:)`; `replayContext(for:)` makes the context). Then this
/// middleware:
/// 1. claims the entry (`sending`, with this process's id; another living process's claim
///    wins, and the stream ends with `.queued` saying so);
/// 2. sends it with `mayAlreadyExist` set, so an engine with `BackendCapabilities.taskLookup`
///    follows the task it already has instead of starting a second one (the previous attempt
///    may have reached it before a crash or a dropped connection);
/// 3. removes the entry when the engine answered: on the terminal event for engines with task
///    lookup (a crash before it resends, and the lookup finds the task), on the first event for
///    the others (they cannot tell a resend apart, so after that nothing is sent again);
/// 4. when the backend is still unreachable before any event, gives it back (`queued`) and
///    ends with `.queued`; any other error gives it back with the reason and is rethrown.
///
/// An entry left `sending` by a process that died, for an engine *without* task lookup, is not
/// sent again on its own (it may have arrived): the stream ends with `.queued` explaining that
/// `context.values[forceKey] = "1"` (the REPL's `/queue resend N`) sends it anyway.
public struct OfflineQueueMiddleware: Middleware {
    /// The context value that marks a request as a queued entry sent again (its id).
    public static let entryKey = "reception.queue.entry"
    /// Set to "1" to send an entry whose earlier attempt may have arrived, on an engine that
    /// cannot look tasks up.
    public static let forceKey = "reception.queue.force"
    /// Set to queue a new message without trying the backend, so that it does not overtake
    /// older ones: "1" (or `holdUnreachable`) when the backend was just found unreachable,
    /// `holdBehind` when it answers and the older ones are being delivered now. The notice
    /// says which: a message behind a delivery is not told the backend is unreachable.
    public static let holdKey = "reception.queue.hold"
    public static let holdUnreachable = "1"
    public static let holdBehind = "behind"

    public let queue: OfflineQueue

    public init(queue: OfflineQueue) {
        self.queue = queue
    }

    /// The context a front end passes to send a queued entry again.
    public static func replayContext(for entry: OfflineQueue.Entry, force: Bool = false) -> ReceptionContext {
        var values = [entryKey: entry.id]
        if force { values[forceKey] = "1" }
        return ReceptionContext(values: values)
    }

    public func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
        guard case .submit = request.action, let backend = context.backend?.name else {
            return try await next(request, context)
        }
        let destination = context.backend?.endpoint
        if let entryID = context.values[Self.entryKey] {
            return try await resend(entryID, request: request, context: context, backend: backend, destination: destination, next: next)
        }
        let queue = queue
        if context.values[Self.holdKey] == Self.holdBehind {
            return Exchange(request: request, events: Self.single(try Self.enqueueBehind(request, backend: backend, destination: destination,
                                                                                          queue: queue)))
        }
        if context.values[Self.holdKey] != nil {
            let reason = BackendError.unreachable(url: backend, reason: "queued messages for it could not be delivered just now")
            return Exchange(request: request, events: Self.single(try Self.enqueue(
                request, backend: backend, destination: destination, reason: reason, queue: queue,
                stored: "not tried yet: it waits behind older messages, which could not be delivered just now")))
        }
        let exchange: Exchange
        do {
            exchange = try await next(request, context)
        } catch let error as BackendError where error.isUnreachable {
            return Exchange(request: request, events: Self.single(try Self.enqueue(request, backend: backend, destination: destination,
                                                                                   reason: error, queue: queue)))
        }
        let sent = exchange.request
        let events = Self.watch(exchange.events) { _ in
        } onTerminal: {
        } onError: { error, sawEvent in
            guard !sawEvent, let unreachable = error as? BackendError, unreachable.isUnreachable else { return nil }
            return try Self.enqueue(sent, backend: backend, destination: destination, reason: unreachable, queue: queue)
        }
        return Exchange(request: exchange.request, events: events)
    }

    private func resend(_ entryID: String, request: ReceptionRequest, context: ReceptionContext, backend: String,
                        destination: String?, next: MiddlewareNext) async throws -> Exchange {
        let queue = queue
        guard let before = try queue.entry(entryID) else {
            throw OfflineQueueError(description: "Queued message \(entryID) is no longer in the queue (sent or dropped elsewhere).")
        }
        guard before.backend == backend else {
            throw OfflineQueueError(description: "Queued message \(entryID) belongs to the backend \(before.backend), not \(backend); it is only sent there.")
        }
        guard OfflineQueue.belongs(before, to: backend, at: destination) else {
            throw OfflineQueueError(description: "Queued message \(entryID) was queued for \(backend) at \(before.destination ?? "?"), and \(backend) now points at \(destination ?? "no server"); it is only sent to the server it was written for.")
        }
        let lookup = context.backend?.capabilities.contains(.taskLookup) ?? false
        let forced = context.values[Self.forceKey] == "1"
        if before.state == .sending, !lookup, !forced, !(before.ownerPID.map(OfflineQueue.isAlive) ?? false) {
            let waiting = try queue.count(backend: backend)
            return Exchange(request: request, events: Self.single(QueuedNotice(
                requestID: entryID, waiting: waiting, reason: "an earlier attempt may have reached \(backend)",
                message: "Not sent again: Reception stopped while this message was being sent, so \(backend) may already have it, and it cannot look tasks up to check. /queue resend sends it anyway; /queue drop forgets it.",
                cause: .mayHaveArrived)))
        }
        guard try queue.claim(entryID) != nil else {
            let waiting = try queue.count(backend: backend)
            return Exchange(request: request, events: Self.single(QueuedNotice(
                requestID: entryID, waiting: waiting, reason: "another Reception is sending it",
                message: "Another Reception session is sending this queued message now; it stays queued here until that one is done.",
                cause: .sentByAnotherSession)))
        }
        var request = request
        request.mayAlreadyExist = true
        let exchange: Exchange
        do {
            exchange = try await next(request, context)
        } catch {
            try? queue.release(entryID, error: String(describing: error))
            if let unreachable = error as? BackendError, unreachable.isUnreachable {
                return Exchange(request: request, events: Self.single(Self.stillQueued(entryID, backend: backend, reason: unreachable, queue: queue)))
            }
            throw error
        }
        let delivered = Delivered()
        let events = Self.watch(exchange.events) { _ in
            // Engines that cannot look a task up: the first answer means it arrived; from here on
            // it must never be sent again.
            if !lookup, delivered.markOnce() { try queue.remove(entryID) }
        } onTerminal: {
            if delivered.markOnce() || lookup { try queue.remove(entryID) }
        } onError: { error, sawEvent in
            if delivered.isMarked && !lookup { return nil }
            try? queue.release(entryID, error: String(describing: error))
            guard !sawEvent, let unreachable = error as? BackendError, unreachable.isUnreachable else { return nil }
            return Self.stillQueued(entryID, backend: backend, reason: unreachable, queue: queue)
        } onCancel: {
            // Stopped before the answer came (Ctrl-C, or the session left): not "cancelled" at
            // the engine, which may have the task; the next attempt asks it first where it can.
            if !(delivered.isMarked && !lookup) {
                try? queue.release(entryID, error: lookup ? "stopped before the answer came; the next attempt follows what \(backend) already has"
                                                          : "stopped before the answer came")
            }
        }
        return Exchange(request: exchange.request, events: events)
    }

    // MARK: - Helpers

    /// `stored` is what `/queue` shows as the entry's last attempt, when not `reason` itself.
    static func enqueue(_ request: ReceptionRequest, backend: String, destination: String?, reason: BackendError,
                        queue: OfflineQueue, stored: String? = nil) throws -> QueuedNotice {
        do {
            let waiting = try queue.enqueue(request, backend: backend, destination: destination, reason: stored ?? reason.description)
            return QueuedNotice(requestID: request.id, waiting: waiting, reason: reason.description,
                                message: "The backend is unreachable; your message is queued (\(waiting) waiting) and will be sent when it answers.",
                                cause: .unreachable)
        } catch {
            // Not stored: say so, with both reasons, rather than pretend it is queued.
            throw OfflineQueueError(description: "\(reason.description). The message could not be queued either (\(queue.path): \(error)), so it was not sent.")
        }
    }

    /// Queues a message behind older ones that are being delivered now: the backend answers.
    static func enqueueBehind(_ request: ReceptionRequest, backend: String, destination: String?, queue: OfflineQueue) throws -> QueuedNotice {
        let waitingNote = "not sent yet: it waits behind older messages, which are being delivered"
        do {
            let waiting = try queue.enqueue(request, backend: backend, destination: destination, reason: waitingNote, heldBy: getpid())
            let older = waiting - 1
            let ahead = older == 1 ? "1 older queued message" : "\(older) older queued messages"
            return QueuedNotice(requestID: request.id, waiting: waiting, reason: waitingNote,
                                message: "Your message waits behind \(ahead), which \(older == 1 ? "is" : "are") being delivered to \(backend) now; it is sent after \(older == 1 ? "it" : "them").",
                                cause: .behindOlderMessages)
        } catch {
            throw OfflineQueueError(description: "The message could not be queued behind the older ones (\(queue.path): \(error)), so it was not sent.")
        }
    }

    static func stillQueued(_ entryID: String, backend: String, reason: BackendError, queue: OfflineQueue) -> QueuedNotice {
        let waiting = (try? queue.count(backend: backend)) ?? 0
        return QueuedNotice(requestID: entryID, waiting: waiting, reason: reason.description,
                            message: "The backend is still unreachable; the message stays queued (\(waiting) waiting).", cause: .unreachable)
    }

    static func single(_ notice: QueuedNotice) -> ResponseStream {
        ResponseStream { continuation in
            continuation.yield(ResponseEvent(.queued(notice)))
            continuation.finish()
        }
    }

    /// Passes `upstream` on, calling the hooks: `onEvent` for each event, `onTerminal` after a
    /// terminal one, `onError` when it throws (a notice it returns ends the stream with
    /// `.queued` instead of the error), `onCancel` when the consumer goes away first
    /// (also when the cancelled failure it caused arrives after it went away).
    static func watch(_ upstream: ResponseStream,
                      onEvent: @escaping @Sendable (ResponseEvent) throws -> Void,
                      onTerminal: @escaping @Sendable () throws -> Void,
                      onError: @escaping @Sendable (any Error, _ sawEvent: Bool) throws -> QueuedNotice?,
                      onCancel: @escaping @Sendable () -> Void = {}) -> ResponseStream {
        ResponseStream { continuation in
            let task = Task {
                var sawEvent = false
                var sawTerminal = false
                do {
                    for try await event in upstream {
                        // A backend stopped by this cancellation ends its stream with a cancelled
                        // failure, which can still reach this task: it is the echo of the
                        // consumer going away, not an answer from the engine.
                        if Task.isCancelled, case .failure(let failure) = event.event, failure.cancelled { break }
                        sawEvent = true
                        try onEvent(event)
                        if event.event.isTerminal {
                            sawTerminal = true
                            try onTerminal()
                        }
                        continuation.yield(event)
                    }
                    if Task.isCancelled && !sawTerminal { onCancel() }
                    continuation.finish()
                } catch is CancellationError {
                    onCancel()
                    continuation.finish(throwing: CancellationError())
                } catch {
                    do {
                        if let notice = try onError(error, sawEvent) {
                            continuation.yield(ResponseEvent(.queued(notice)))
                            continuation.finish()
                        } else {
                            continuation.finish(throwing: error)
                        }
                    } catch {
                        continuation.finish(throwing: error)
                    }
                }
            }
            continuation.onTermination = { reason in
                if case .cancelled = reason { task.cancel() }
            }
        }
    }
}

/// A queue problem, in words.
public struct OfflineQueueError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

extension BackendError {
    /// The server could not be reached at all (not: reached but slow, or refused).
    var isUnreachable: Bool {
        if case .unreachable = self { true } else { false }
    }
}

/// Set once, read from the stream's task.
final class Delivered: @unchecked Sendable {
    private let lock = NSLock()
    private var marked = false
    /// True the first time.
    func markOnce() -> Bool { lock.lock(); defer { lock.unlock() }; if marked { return false }; marked = true; return true }
    var isMarked: Bool { lock.lock(); defer { lock.unlock() }; return marked }
}
