/// Where the REPL's input comes from: GNU readline on a terminal, plain lines otherwise,
/// or a script in tests.
public protocol LineReader: Sendable {
    func readLine(prompt: String) async -> LineInput
    /// Remembers a line in the persistent history (no-op where there is none).
    func remember(_ line: String)
    /// True when a person types the lines (a terminal): only then does the REPL ask questions.
    var isInteractive: Bool { get }
}

extension LineReader {
    /// Scripts, pipes and tests are not asked questions unless they say otherwise.
    public var isInteractive: Bool { false }
}

public enum LineInput: Sendable, Equatable {
    case line(String)
    /// Ctrl-C at the prompt: the partly typed line was discarded.
    case interrupt
    /// Ctrl-D or end of the input stream.
    case endOfInput
}

/// Reads lines from standard input without any terminal handling: for pipes and scripts.
public struct PlainLineReader: LineReader {
    public init() {}

    public func readLine(prompt: String) async -> LineInput {
        await withCheckedContinuation { continuation in
            // Blocking read on its own thread so the cooperative pool stays free.
            Thread.detachNewThread {
                continuation.resume(returning: Swift.readLine(strippingNewline: true).map(LineInput.line) ?? .endOfInput)
            }
        }
    }

    public func remember(_ line: String) {}
}

import Foundation
