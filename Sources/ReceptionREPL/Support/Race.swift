import Synchronization

/// Which of two running tasks finished first, with its value; the other goes on running.
enum Race<Left: Sendable, Right: Sendable>: Sendable {
    case left(Left)
    case right(Right)

    static func first(_ left: Task<Left, Never>, _ right: Task<Right, Never>) async -> Race {
        let answer = FirstOnly<Race>()
        return await withCheckedContinuation { continuation in
            answer.wait(with: continuation)
            Task { answer.give(.left(await left.value)) }
            Task { answer.give(.right(await right.value)) }
        }
    }
}

/// Resumes a continuation with the first value given, and ignores the rest.
private final class FirstOnly<Value: Sendable>: Sendable {
    private let waiting = Mutex<CheckedContinuation<Value, Never>?>(nil)
    func wait(with continuation: CheckedContinuation<Value, Never>) { waiting.withLock { $0 = continuation } }
    func give(_ value: Value) { waiting.withLock { $0.take() }?.resume(returning: value) }
}
