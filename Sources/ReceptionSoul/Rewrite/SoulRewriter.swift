import ReceptionCore

/// What became of one text sent to the rewrite stage.
public struct RewriteAttempt: Sendable, Hashable {
    public enum Verdict: Sendable, Hashable {
        /// The rewrite kept every fact and is shown.
        case accepted
        /// The rewrite changed facts; the deterministic rendering is shown.
        case factsChanged(FactCheck)
        /// No usable rewrite (a timeout, an error, an empty or runaway answer), with why.
        case failed(String)
        /// Not sent (nothing to say, or too long), with why.
        case skipped(String)
    }

    /// The engine's text.
    public var original: String
    /// What the model answered, cleaned, when it answered.
    public var rewrite: String?
    public var verdict: Verdict

    public var accepted: Bool { verdict == .accepted }

    /// The text to show before the soul's styling: the rewrite when accepted, else the
    /// engine's text, with the engine's leading and trailing whitespace either way (so
    /// streamed parts still join up).
    public var text: String {
        guard accepted, let rewrite else { return original }
        let leading = original.prefix { $0.isWhitespace }, trailing = String(original.reversed().prefix { $0.isWhitespace }.reversed())
        return String(leading) + rewrite + trailing
    }

    /// Why it was not shown, or nil when it was.
    public var reason: String? {
        switch verdict {
        case .accepted: nil
        case .factsChanged(let check): check.reason
        case .failed(let why), .skipped(let why): why
        }
    }
}

/// Puts an engine's text in the soul's voice with a language model (`Prompts/rewrite.mustache`),
/// then checks that the facts survived (`FactCheck`). Every way it can go wrong ends in a
/// verdict, never a throw, and never waits longer than `timeout`.
public struct SoulRewriter: Sendable {
    public let rewriter: any TextRewriter
    public var prompts: SoulPrompts
    /// The longest wait for one rewrite.
    public var timeout: Duration
    /// Longer texts are not sent: small models have small contexts, and a long answer
    /// rewritten whole would hold the screen for too long.
    public var maximumCharacters = 6_000

    public init(rewriter: any TextRewriter, prompts: SoulPrompts = SoulPrompts(), timeout: Duration = .seconds(30)) {
        self.rewriter = rewriter
        self.prompts = prompts
        self.timeout = timeout
    }

    public var name: String { rewriter.name }

    public func rewrite(_ text: String, soul: Soul) async -> RewriteAttempt {
        let body = text.trimmedWhitespace
        guard body.contains(where: { $0.isLetter }) else {
            return RewriteAttempt(original: text, verdict: .skipped("there were no words to rewrite"))
        }
        guard body.count <= maximumCharacters else {
            return RewriteAttempt(original: text, verdict: .skipped("it is longer than \(maximumCharacters) characters"))
        }
        let prompt = prompts.rewritePrompt(soul: soul, text: body)
        let rewriter = rewriter
        let answer: String
        do {
            answer = try await Deadline.run(within: timeout) { try await rewriter.rewrite(prompt: prompt) }
        } catch is Deadline.Exceeded {
            return RewriteAttempt(original: text, verdict: .failed("\(rewriter.name) did not answer within \(Self.seconds(timeout))"))
        } catch is CancellationError {
            return RewriteAttempt(original: text, verdict: .failed("the answer was cancelled"))
        } catch {
            return RewriteAttempt(original: text, verdict: .failed("\(rewriter.name): \(Self.bounded(String(describing: error), 240))"))
        }
        let cleaned = Self.clean(answer, original: body)
        guard !cleaned.isEmpty else {
            return RewriteAttempt(original: text, rewrite: cleaned, verdict: .failed("\(rewriter.name) answered with nothing"))
        }
        guard cleaned.count <= body.count * 3 + 400 else {
            return RewriteAttempt(original: text, rewrite: cleaned, verdict: .failed("the rewrite was \(cleaned.count) characters for a text of \(body.count)"))
        }
        let check = FactCheck.compare(original: body, rewrite: cleaned, allowedNames: Self.ownNames(soul))
        return RewriteAttempt(original: text, rewrite: cleaned, verdict: check.passed ? .accepted : .factsChanged(check))
    }

    /// The model's answer without what small models wrap around it: surrounding space, a
    /// label line ("Here is the rewritten text:"), quotation marks the text did not have.
    static func clean(_ answer: String, original: String) -> String {
        var text = answer.trimmedWhitespace
        if let newline = text.firstIndex(of: "\n") {
            let first = text[..<newline].lowercased()
            if first.hasSuffix(":"), first.contains("rewrit") || first.hasPrefix("here") || first.hasPrefix("sure") {
                text = String(text[newline...]).trimmedWhitespace
            }
        }
        // A heading the text did not have starts what small models add after the rewrite
        // ("## Ambrose", "### Notes").
        if !original.hasPrefix("#"), !original.contains("\n#") {
            var kept: [Substring] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("#"), !kept.isEmpty { break }
                kept.append(line)
            }
            text = kept.joined(separator: "\n").trimmedWhitespace
        }
        let pairs: [(Character, Character)] = [("\"", "\""), ("“", "”"), ("'", "'")]
        for (open, close) in pairs where text.count >= 2 && text.first == open && text.last == close && original.first != open {
            text = String(text.dropFirst().dropLast()).trimmedWhitespace
        }
        return text
    }

    /// Names the persona may bring although the engine's text lacks them: its own name and
    /// the words of its greeting, sign-off, opener and signature phrases.
    static func ownNames(_ soul: Soul) -> Set<String> {
        let own = [soul.name, soul.greeting, soul.signOff, soul.opener].compactMap { $0 } + soul.signaturePhrases
        return own.reduce(into: Set<String>()) { $0.formUnion(WordSequences($1).all) }
    }

    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return "\(seconds) s" }
        return "\(Double(seconds) + Double(attoseconds) / 1e18) s"
    }

    static func bounded(_ text: String, _ limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }
}
