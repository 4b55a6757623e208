import Synchronization

/// What the rewrite stage did with the last answer, for `/soul why`: each part sent, and
/// whether its rewrite was shown or why the deterministic rendering was. Bounded: an answer
/// of a thousand sentences keeps its first `maximumAttempts` parts and a count of the rest.
public final class RewriteLog: Sendable {
    public struct Answer: Sendable, Hashable {
        public var soul: String
        public var attempts: [RewriteAttempt] = []
        /// Parts past `maximumAttempts`, counted only.
        public var uncounted = 0
    }

    public static let maximumAttempts = 64
    /// The profile that rewrites, for messages.
    public let rewriter: String
    private let state = Mutex<Answer?>(nil)

    public init(rewriter: String) {
        self.rewriter = rewriter
    }

    /// The last answer's record, if an answer went through the stage.
    public var last: Answer? { state.withLock { $0 } }

    func begin(soul: String) {
        state.withLock { $0 = Answer(soul: soul) }
    }

    func record(_ attempt: RewriteAttempt) {
        state.withLock { answer in
            guard answer != nil else { return }
            if answer!.attempts.count < Self.maximumAttempts { answer!.attempts.append(attempt) } else { answer!.uncounted += 1 }
        }
    }

    /// `/soul why`: which parts of the last answer were rewritten, and for each that fell
    /// back, the facts that did not survive or what went wrong.
    public func explanation() -> String {
        guard let answer = last else {
            return "The rewrite stage is on (\(rewriter) rewrites answers in the soul's voice); no answer has been through it yet."
        }
        guard !answer.attempts.isEmpty else {
            return "The last answer had no text for the rewrite stage (\(rewriter)); it was rendered deterministically."
        }
        let shown = answer.attempts.filter(\.accepted).count
        let total = answer.attempts.count + answer.uncounted
        var lines = ["The last answer, in \(answer.soul)'s voice, rewritten by \(rewriter): \(shown) of \(total) part\(total == 1 ? "" : "s") rewritten"
                     + (shown == total ? "." : "; the rest show the deterministic rendering.")]
        for (index, attempt) in answer.attempts.enumerated() {
            let excerpt = Self.excerpt(attempt.original)
            if let reason = attempt.reason {
                let kind = if case .factsChanged = attempt.verdict { "the rewrite was refused" } else { "not rewritten" }
                lines.append("\(index + 1). “\(excerpt)”: \(kind): \(reason).")
            } else {
                lines.append("\(index + 1). “\(excerpt)”: rewritten, every fact kept.")
            }
        }
        if answer.uncounted > 0 { lines.append("… and \(answer.uncounted) more \(answer.uncounted == 1 ? "part" : "parts").") }
        return lines.joined(separator: "\n")
    }

    static func excerpt(_ text: String) -> String {
        let line = String(text.trimmedWhitespace.map { $0 == "\n" ? " " : $0 })
        return line.count <= 60 ? line : String(line.prefix(59)) + "…"
    }
}
