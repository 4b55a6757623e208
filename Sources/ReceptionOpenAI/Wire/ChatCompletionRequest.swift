import ReceptionCore

/// One message of an OpenAI chat conversation.
public struct ChatMessage: Sendable, Hashable, Codable {
    public var role: String
    public var content: String

    public init(role: String, content: String) {
        self.role = role
        self.content = content
    }

    public static func system(_ content: String) -> ChatMessage { ChatMessage(role: "system", content: content) }
    public static func user(_ content: String) -> ChatMessage { ChatMessage(role: "user", content: content) }
    public static func assistant(_ content: String) -> ChatMessage { ChatMessage(role: "assistant", content: content) }
}

/// The body of `POST /chat/completions`, as Reception sends it: only fields every
/// OpenAI-compatible server reads (llama.cpp, Ollama, vLLM, LM Studio, hosted services).
public struct ChatCompletionRequest: Sendable, Hashable, Codable {
    public struct StreamOptions: Sendable, Hashable, Codable {
        public var includeUsage: Bool
        enum CodingKeys: String, CodingKey { case includeUsage = "include_usage" }
    }

    public var model: String
    public var messages: [ChatMessage]
    public var stream: Bool
    /// Asks for a final usage chunk; servers that ignore it (llama-cpp-python) send none.
    public var streamOptions: StreamOptions?
    public var temperature: Double?
    public var maxTokens: Int?

    public init(model: String, messages: [ChatMessage], stream: Bool = true, temperature: Double? = nil, maxTokens: Int? = nil) {
        self.model = model
        self.messages = messages
        self.stream = stream
        self.streamOptions = stream ? StreamOptions(includeUsage: true) : nil
        self.temperature = temperature
        self.maxTokens = maxTokens
    }

    enum CodingKeys: String, CodingKey {
        case model, messages, stream, streamOptions = "stream_options", temperature, maxTokens = "max_tokens"
    }
}
