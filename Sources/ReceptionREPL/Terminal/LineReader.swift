/// Where the REPL's input comes from: GNU readline on a terminal, plain lines otherwise,
/// or a script in tests.
public protocol LineReader: Sendable {
    func readLine(prompt: String) async -> LineInput
    /// Remembers a line in the persistent history (no-op where there is none).
    func remember(_ line: String)
    /// True when a person types the lines (a terminal): only then does the REPL ask questions.
    var isInteractive: Bool { get }
    /// Asks a waiting `readLine` to return `.idle` if nothing has been typed on its line, so
    /// the REPL can do work of its own (send queued messages) and then prompt again. A line
    /// being typed is never disturbed: the call is then ignored.
    func wakeIfIdle()
    /// Called when the work an `.idle` wake made room for is done. From the wake until then,
    /// keys typed are kept for the next prompt, not echoed into output the person did not ask
    /// for (a terminal reader turns echo off at the wake and back on here).
    func idleWorkFinished()
    /// Before a question: drops keys typed ahead (true when there were some), so that they
    /// cannot answer a question the person has not seen.
    func discardTypedAhead() -> Bool
}

extension LineReader {
    /// Scripts, pipes and tests are not asked questions unless they say otherwise.
    public var isInteractive: Bool { false }
    /// Readers of scripts and pipes are never idle in that sense: the next line is there.
    public func wakeIfIdle() {}
    public func idleWorkFinished() {}
    public func discardTypedAhead() -> Bool { false }
}

public enum LineInput: Sendable, Equatable {
    case line(String)
    /// Ctrl-C at the prompt: the partly typed line was discarded.
    case interrupt
    /// Ctrl-D or end of the input stream.
    case endOfInput
    /// Nothing typed, and `wakeIfIdle()` asked for the prompt back; the prompt was erased.
    /// Call `idleWorkFinished()` once the work it made room for is done.
    case idle
}

/// Reads lines from standard input without any terminal handling: for pipes and scripts.
public struct PlainLineReader: LineReader {
    public init() {}

    /// The next line; `.endOfInput` at the end of the input, and also when Ctrl-C, SIGTERM
    /// or SIGHUP arrives while waiting for it: a script that waits on a pipe nobody writes to
    /// must still be stoppable.
    public func readLine(prompt: String) async -> LineInput {
        let once = Mutex<CheckedContinuation<LineInput, Never>?>(nil)
        @Sendable func deliver(_ input: LineInput) {
            once.withLock { waiting in
                waiting?.resume(returning: input)
                waiting = nil
            }
        }
        let previous = InterruptMonitor.shared.push { deliver(.endOfInput) }
        defer { InterruptMonitor.shared.restore(previous) }
        if InterruptMonitor.shared.terminationSignal != nil { return .endOfInput }
        return await withCheckedContinuation { continuation in
            once.withLock { $0 = continuation }
            // Blocking read on its own thread so the cooperative pool stays free. After an
            // interruption the thread may still read one line; the session is over by then.
            Thread.detachNewThread {
                while true {
                    switch BoundedLine.read() {
                    case .line(let line): return deliver(.line(line))
                    case .end: return deliver(.endOfInput)
                    case .tooLong(let bytes):
                        // Said and skipped: the lines after it are the script's next messages.
                        StandardStreams.writeError("error: a line of \(bytes) bytes was not sent: a message is at most \(BoundedLine.limit >> 20) MB.\n")
                    }
                }
            }
        }
    }

    public func remember(_ line: String) {}
}

import Foundation
import ReceptionCore
import Synchronization
