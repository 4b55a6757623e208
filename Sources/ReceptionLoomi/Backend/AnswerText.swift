import ReceptionCore
import Synchronization

/// The answer's text as streamed so far: every chunk goes to the front end and into the
/// result's text, which must equal what was streamed.
final class AnswerText: Sendable {
    private let text = Mutex("")
    private let continuation: BackendEventStream.Continuation

    init(continuation: BackendEventStream.Continuation) { self.continuation = continuation }

    func emit(_ chunk: String) {
        text.withLock { $0 += chunk }
        continuation.yield(.textDelta(chunk))
    }

    /// A card or a note as a paragraph of its own. It ends with a line break so that the soul's
    /// text stream, which holds back a last word that may be unfinished, shows it whole now
    /// rather than when the next card arrives.
    func emitBlock(_ block: String) {
        let current = value
        emit((current.isEmpty ? "" : current.hasSuffix("\n") ? "\n" : "\n\n") + block + "\n")
    }

    var value: String { text.withLock { $0 } }
}
