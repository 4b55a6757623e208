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
        if InterruptMonitor.shared.terminationSignal != nil { return .endOfInput }
        // Read on a thread of its own so the cooperative pool stays free; an interruption
        // ends the wait, and the line read meanwhile is the next call's.
        // A signal can come after the handler is pushed and before the wait can be stopped
        // (the reader thread may already be in its read): it is remembered, and the wait
        // stops as soon as it can, where it used to be lost and the script went on waiting.
        let stop = Mutex<(stopWaiting: (@Sendable () -> Void)?, interrupted: Bool)>((nil, false))
        let previous = InterruptMonitor.shared.push {
            let stopWaiting = stop.withLock { state in
                state.interrupted = true
                return state.stopWaiting
            }
            stopWaiting?()
        }
        defer { InterruptMonitor.shared.restore(previous) }
        return await StandardInputLines.shared.next { stopWaiting in
            let interrupted = stop.withLock { state in
                state.stopWaiting = stopWaiting
                return state.interrupted
            }
            if interrupted { stopWaiting() }
        }
    }

    public func remember(_ line: String) {}
}

import Foundation
import ReceptionCore
import Synchronization
