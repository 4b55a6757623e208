import Foundation
import ReceptionCore
import Synchronization

/// Standard input's lines, read by one thread for the whole session, a line when one is
/// asked for. A thread started for each line cost more than the line: 44,000 lines of a
/// message continued with backslashes took three seconds of thread starts in a release build.
final class StandardInputLines: Sendable {
    static let shared = StandardInputLines()

    /// Lines too long to be a message, said and skipped: the script's exit status says so
    /// (a script that lost a message must be able to tell).
    static let skippedLines = Atomic<Int>(0)

    private struct State {
        /// Who waits for the next line.
        var waiting: CheckedContinuation<LineInput, Never>?
        /// A line read after its asker stopped waiting (Ctrl-C, SIGTERM): the next asker's.
        var ready: [LineInput] = []
        /// True while the thread reads a line someone asked for.
        var asked = false
        var started = false
        var ended = false
    }

    private let state = Mutex(State())
    private let wanted = DispatchSemaphore(value: 0)

    private init() {}

    /// The next line, or `.endOfInput` at the end. `waiter` is handed a way to stop waiting
    /// (the line read meanwhile is kept for the next call).
    func next(stopWaiting register: (@escaping @Sendable () -> Void) -> Void) async -> LineInput {
        await withCheckedContinuation { continuation in
            let signal: Bool = state.withLock { state in
                if !state.ready.isEmpty {
                    continuation.resume(returning: state.ready.removeFirst())
                    return false
                }
                if state.ended {
                    continuation.resume(returning: .endOfInput)
                    return false
                }
                state.waiting = continuation
                if !state.started {
                    state.started = true
                    Thread.detachNewThread { [self] in readForever() }
                }
                guard !state.asked else { return false }
                state.asked = true
                return true
            }
            if signal { wanted.signal() }
            register { [self] in
                state.withLock { state in
                    state.waiting?.resume(returning: .endOfInput)
                    state.waiting = nil
                }
            }
        }
    }

    private func readForever() {
        while true {
            wanted.wait()
            let input = readOne()
            state.withLock { state in
                state.asked = false
                if case .endOfInput = input { state.ended = true }
                if let waiting = state.waiting {
                    state.waiting = nil
                    waiting.resume(returning: input)
                } else if case .line = input {
                    state.ready.append(input)
                }
            }
            if case .endOfInput = input { return }
        }
    }

    private func readOne() -> LineInput {
        while true {
            switch BoundedLine.read() {
            case .line(let line): return .line(line)
            case .notUTF8(let line):
                // Sent, as `classify` reads such a line, but said: the person sees why the
                // message has � where they wrote something else.
                StandardStreams.writeError("warning: a line is not UTF-8: its bad bytes were replaced with \u{FFFD} and it was sent.\n")
                return .line(line)
            case .end: return .endOfInput
            case .tooLong(let bytes):
                // Said and skipped: the lines after it are the script's next messages.
                StandardStreams.writeError("error: a line of \(bytes) bytes was not sent: a message is at most \(BoundedLine.limit >> 20) MB.\n")
                Self.skippedLines.add(1, ordering: .relaxed)
            }
        }
    }
}
