import ReceptionCore
import Synchronization

/// A backend that plays a script: for tests of middleware and front ends, in the spirit of
/// swift-log's in-memory handler. It records every request it receives, so a test can see
/// what the middleware chain sent.
///
/// ```swift
/// let backend = ScriptedBackend { request in
///     [.event(.textDelta("Hel")), .event(.textDelta("lo")),
///      .event(.result(BackendResult(text: "Hello", textWasStreamed: true)))]
/// }
/// ```
///
/// Cancelling the consumer, or `cancel(taskID:)`, ends a script where it is with a cancelled
/// `.failure`, as the event contract asks of every backend.
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
    private let state = Mutex<(received: [ReceptionRequest], cancelled: Set<String>, plans: [String: ReceptionRequest])>(([], [], [:]))

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

    /// The requests received so far, oldest first.
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
        state.withLock { _ = $0.cancelled.insert(taskID) }
    }

    private func play(_ request: ReceptionRequest) -> BackendEventStream {
        let steps = script(request)
        return BackendEventStream { continuation in
            let task = Task {
                let cancelled = { Task.isCancelled || self.state.withLock { $0.cancelled.contains(request.id) } }
                for step in steps {
                    if cancelled() {
                        continuation.yield(.failure(TaskFailure(taskID: request.id, message: "Task cancelled", cancelled: true)))
                        continuation.finish()
                        return
                    }
                    switch step {
                    case .event(let event):
                        if case .planAwaitingApproval(let plan) = event { self.state.withLock { $0.plans[plan.taskID] = request } }
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
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
