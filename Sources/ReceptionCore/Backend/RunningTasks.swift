import Foundation

/// The work behind a backend's open event streams, by task id: each stream's task starts with
/// the stream, is cancelled and forgotten when the stream ends (its consumer went away), and
/// `cancel(_:)` stops it on request. Adapters whose answers are produced by one task per
/// request (streamed chat, two-phase searches, generations) share this instead of each keeping
/// its own table.
public final class RunningTasks: @unchecked Sendable {
    /// Guards `tasks`.
    private let lock = NSLock()
    private var tasks: [String: Task<Void, Never>] = [:]

    public init() {}

    /// A stream whose events `work` yields; `work` finishes the continuation itself.
    public func stream(id: String, _ work: @escaping @Sendable (BackendEventStream.Continuation) async -> Void) -> BackendEventStream {
        BackendEventStream { continuation in
            let task = Task { await work(continuation) }
            lock.withLock { tasks[id] = task }
            continuation.onTermination = { [weak self] _ in
                task.cancel()
                self?.forget(id)
            }
        }
    }

    private func forget(_ id: String) {
        lock.withLock { _ = tasks.removeValue(forKey: id) }
    }

    /// Cancels the task of `taskID`; throws `invalidTaskState` with `reason` when none runs.
    public func cancel(_ taskID: String, reason: String) throws {
        guard let task = lock.withLock({ tasks[taskID] }) else {
            throw BackendError.invalidTaskState(taskID: taskID, reason: reason)
        }
        task.cancel()
    }
}
