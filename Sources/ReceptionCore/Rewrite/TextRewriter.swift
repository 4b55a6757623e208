/// Says a text again with a language model: the soul's rewrite stage asks it to put an
/// engine's answer in the persona's voice.
///
/// It lives in the core so that the soul module never depends on an adapter: the executable
/// wires one (a `BackendTextRewriter` over an OpenAI-compatible profile) into the soul's
/// `RewriteMiddleware`.
public protocol TextRewriter: Sendable {
    /// For messages: the backend profile that rewrites, e.g. "openai-local".
    var name: String { get }
    /// The model's whole answer to `prompt`. Throws when the model cannot answer.
    func rewrite(prompt: String) async throws -> String
}

/// A `TextRewriter` over a connected backend that reads prompts (a language model): the
/// prompt goes out as one message with no conversation, and the answer is collected.
public struct BackendTextRewriter: TextRewriter {
    public let backend: any Backend
    public let name: String
    /// A longer answer is refused: a model that rambles must not fill memory.
    public var maximumCharacters = 32_000

    public static let systemPrompt = "You rewrite text in a given voice. You keep every fact exactly as written. You reply with the rewritten text only."

    public init(backend: any Backend, name: String? = nil) {
        self.backend = backend
        self.name = name ?? backend.descriptor.name
    }

    public func rewrite(prompt: String) async throws -> String {
        let request = ReceptionRequest(text: prompt, trustLevel: 2, systemPrompt: Self.systemPrompt)
        var streamed = ""
        var streamedCount = 0
        for try await event in backend.submit(request) {
            try Task.checkCancellation()
            switch event {
            case .textDelta(let text):
                streamed += text
                streamedCount += text.utf8.count
                if streamedCount > maximumCharacters * 4 { throw TextRewriteError("the model's answer grew past \(maximumCharacters) characters") }
            case .result(let result):
                let text = result.text.isEmpty ? streamed : result.text
                guard text.count <= maximumCharacters else { throw TextRewriteError("the model's answer grew past \(maximumCharacters) characters") }
                return text
            case .failure(let failure):
                throw TextRewriteError(failure.cancelled ? "the model's answer was cancelled" : "the model failed: \(failure.message)")
            case .planAwaitingApproval, .queued, .permissionRequest:
                throw TextRewriteError("\(name) does not answer prompts directly (it asked for a plan, a permission or a queue)")
            case .accepted, .status, .progress, .thinking, .toolUse:
                continue
            }
        }
        try Task.checkCancellation()
        throw TextRewriteError("the model ended without an answer")
    }
}

/// Why a rewrite could not be had, in words for `/soul why`.
public struct TextRewriteError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
