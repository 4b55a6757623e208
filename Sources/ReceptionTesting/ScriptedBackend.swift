import ReceptionCore
import Synchronization

/// A backend that plays a script: for tests of middleware and front ends, in the spirit of
/// swift-log's in-memory handler. It records every request it receives, so a test can see
/// what the middleware chain sent.
///
/// ```swift
/// let backend = ScriptedBackend(capabilities: [.textStreaming, .cancellation]) { request in
///     [.event(.textDelta("Hel")), .event(.textDelta("lo")),
///      .event(.result(BackendResult(text: "Hello", textWasStreamed: true)))]
/// }
/// ```
///
/// Cancelling the consumer, or `cancel(taskID:)` with the request's id or a task id the
/// script announced (`.accepted`, `.status`, `.progress`), ends a script where it is (also in
/// its last pause) with a cancelled `.failure`, as the event contract asks of every backend;
/// an id of no running script is refused, as a real backend refuses it.
public final class ScriptedBackend: Backend, Sendable {
    /// One step of a script.
    public enum Step: Sendable {
        case event(BackendEvent)
        /// Waits, so a test can cancel mid-task.
        case pause(Duration)
        /// Ends the stream by throwing, as a broken transport would.
        case fail(any Error)
    }

    public let descriptor: BackendDescriptor
    private let script: @Sendable (ReceptionRequest) -> [Step]
    private let state = Mutex(State())

    private struct State {
        var received: [ReceptionRequest] = []
        /// Request ids whose script was asked to stop.
        var cancelled: Set<String> = []
        var plans: [String: ReceptionRequest] = [:]
        /// Every id a running script answers to (its request's, and task ids it announced) → its request's id.
        var running: [String: String] = [:]
    }

    /// `script` gives the steps for each submitted (or approved) request.
    public init(name: String = "scripted", capabilities: BackendCapabilities = [.cancellation],
                script: @escaping @Sendable (ReceptionRequest) -> [Step]) {
        descriptor = BackendDescriptor(name: name, summary: "plays a script (tests)", capabilities: capabilities)
        self.script = script
    }

    /// Answers every message with the same events.
    public convenience init(name: String = "scripted", capabilities: BackendCapabilities = [.cancellation], events: [BackendEvent]) {
        self.init(name: name, capabilities: capabilities) { _ in events.map(Step.event) }
    }

    /// The requests received so far, oldest first: submitted ones, and approved plans (their
    /// `action` is `.approve`).
    public var received: [ReceptionRequest] { state.withLock { $0.received } }

    public func submit(_ request: ReceptionRequest) -> BackendEventStream {
        state.withLock { $0.received.append(request) }
        return play(request)
    }

    public func approve(taskID: String) -> BackendEventStream {
        guard descriptor.capabilities.contains(.planApproval) else {
            return BackendEventStream { $0.finish(throwing: BackendError.unsupported(operation: "approve", backend: descriptor.name)) }
        }
        guard let request = state.withLock({ $0.plans.removeValue(forKey: taskID) }) else {
            return BackendEventStream { $0.finish(throwing: BackendError.invalidTaskState(taskID: taskID, reason: "no plan is awaiting approval")) }
        }
        var approved = request
        approved.action = .approve(taskID: taskID)
        state.withLock { $0.received.append(approved) }
        return play(approved)
    }

    public func reject(taskID: String) async throws {
        guard state.withLock({ $0.plans.removeValue(forKey: taskID) }) != nil else {
            throw BackendError.invalidTaskState(taskID: taskID, reason: "no plan is awaiting approval")
        }
    }

    public func cancel(taskID: String) async throws {
        guard descriptor.capabilities.contains(.cancellation) else {
            throw BackendError.unsupported(operation: "cancel", backend: descriptor.name)
        }
        try state.withLock { state in
            guard let requestID = state.running[taskID] else {
                throw BackendError.invalidTaskState(taskID: taskID, reason: "no such task is running")
            }
            state.cancelled.insert(requestID)
        }
    }

    private func play(_ request: ReceptionRequest) -> BackendEventStream {
        let steps = script(request)
        state.withLock { $0.running[request.id] = request.id }
        return BackendEventStream { continuation in
            let task = Task {
                defer { self.state.withLock { state in state.running = state.running.filter { $0.value != request.id } } }
                let cancelled = { Task.isCancelled || self.state.withLock { $0.cancelled.contains(request.id) } }
                func endCancelled() {
                    continuation.yield(.failure(TaskFailure(taskID: request.id, message: "Task cancelled", cancelled: true)))
                    continuation.finish()
                }
                for step in steps {
                    if cancelled() { return endCancelled() }
                    switch step {
                    case .event(let event):
                        if case .planAwaitingApproval(let plan) = event { self.state.withLock { $0.plans[plan.taskID] = request } }
                        if let announced = Self.taskID(of: event) { self.state.withLock { $0.running[announced] = request.id } }
                        continuation.yield(event)
                    case .pause(let duration):
                        // In slices, so `cancel(taskID:)` takes effect promptly.
                        let deadline = ContinuousClock.now + duration
                        while ContinuousClock.now < deadline, !cancelled() {
                            try? await Task.sleep(for: min(.milliseconds(20), deadline - .now))
                        }
                    case .fail(let error):
                        continuation.finish(throwing: error)
                        return
                    }
                }
                // Cancelled in the last pause: the stream still ends as the contract says.
                if cancelled(), !steps.contains(where: Self.isTerminal) { return endCancelled() }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The task id an event announces, if it names one.
    private static func taskID(of event: BackendEvent) -> String? {
        switch event {
        case .accepted(let id, _), .status(let id, _): id
        case .progress(let progress): progress.taskID
        default: nil
        }
    }

    private static func isTerminal(_ step: Step) -> Bool {
        if case .event(let event) = step { event.isTerminal } else { false }
    }
}
