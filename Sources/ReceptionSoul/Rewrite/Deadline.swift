import Synchronization

/// Runs work with a time limit that holds even if the work ignores cancellation: the caller
/// is answered when the limit passes, and the work is cancelled and left to end on its own.
enum Deadline {
    struct Exceeded: Error {}

    static func run<T: Sendable>(within limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try Task.checkCancellation()
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(continuation)
                let worker = Task {
                    do { race.finish(.success(try await work())) } catch { race.finish(.failure(error)) }
                }
                let timer = Task {
                    try? await Task.sleep(for: limit)
                    race.finish(.failure(Exceeded()))
                }
                race.track([worker, timer])
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// Whoever finishes first answers; the others' tasks are cancelled.
    final class Race<T: Sendable>: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, tasks: [Task<Void, Never>], done: Bool)>((nil, [], false))

        func start(_ continuation: CheckedContinuation<T, any Error>) {
            let finished = state.withLock { state -> Bool in
                if state.done { return true }
                state.continuation = continuation
                return false
            }
            // Cancelled before it began.
            if finished { continuation.resume(throwing: CancellationError()) }
        }

        func track(_ tasks: [Task<Void, Never>]) {
            let finished = state.withLock { state -> Bool in
                state.tasks = tasks
                return state.done
            }
            if finished { for task in tasks { task.cancel() } }
        }

        func finish(_ result: Result<T, any Error>) {
            let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
                guard !state.done else { return (nil, []) }
                state.done = true
                defer { state.continuation = nil }
                return (state.continuation, state.tasks)
            }
            for task in tasks { task.cancel() }
            continuation?.resume(with: result)
        }
    }
}
