import ReceptionCore

/// One `data:` event of a streamed chat completion. Every field is optional: servers differ
/// (the first llama.cpp chunk carries only the role, the usage chunk has no choices, a
/// finish chunk has an empty delta), and a field Reception does not know is ignored.
public struct ChatCompletionChunk: Sendable, Hashable, Decodable {
    public struct Choice: Sendable, Hashable, Decodable {
        public struct Delta: Sendable, Hashable, Decodable {
            public var role: String?
            public var content: String?
            /// Reasoning models (DeepSeek R1 on vLLM/Ollama, llama.cpp's --reasoning-format)
            /// stream their thinking here; it is shown as thinking, never as the answer.
            public var reasoningContent: String?
            enum CodingKeys: String, CodingKey { case role, content, reasoningContent = "reasoning_content" }
        }
        public var index: Int?
        public var delta: Delta?
        public var finishReason: String?
        enum CodingKeys: String, CodingKey { case index, delta, finishReason = "finish_reason" }
    }

    public struct TokenUsage: Sendable, Hashable, Decodable {
        public var promptTokens: Int?
        public var completionTokens: Int?
        enum CodingKeys: String, CodingKey { case promptTokens = "prompt_tokens", completionTokens = "completion_tokens" }
    }

    public var id: String?
    public var model: String?
    public var choices: [Choice]?
    public var usage: TokenUsage?
    /// Some servers report a failure inside the stream as `{"error": {...}}`.
    public var error: JSONValue?
}

/// `GET /models`.
public struct ModelList: Sendable, Hashable, Decodable {
    public struct Model: Sendable, Hashable, Decodable {
        public var id: String
        public var ownedBy: String?
        enum CodingKeys: String, CodingKey { case id, ownedBy = "owned_by" }
    }
    public var data: [Model]
}
