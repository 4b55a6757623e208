import Foundation
import ReceptionCore

/// Where an OpenAI-compatible server is and how to talk to it.
public struct OpenAIConfiguration: Sendable {
    /// The API's base URL, `/v1` included (`http://127.0.0.1:8081/v1`, `https://api.openai.com/v1`),
    /// as the official SDKs take `OPENAI_BASE_URL`.
    public var baseURL: String
    /// The model to ask; nil lets `connect` pick the server's only model.
    public var model: String?
    /// Sent as `Authorization: Bearer …`, to this base URL only.
    public var apiKey: String?
    /// Where the key came from ("$OPENAI_API_KEY"), for messages that must not show the key.
    public var apiKeySource: String?
    public var temperature: Double?
    public var maxTokens: Int?
    /// How many earlier turns go with each message. Small local models have small contexts
    /// (2048 tokens for SmolLM2 on llama.cpp's defaults), so the default stays modest.
    public var historyTurns: Int
    /// Longest silence while streaming. A long new system prompt on a CPU can take the model
    /// many seconds before its first token, so this is generous.
    public var idleTimeout: Duration
    public var retry: HTTPRetry

    /// How a refused request (429, 503) is retried; mirrors the transport's policy so that
    /// this module's public surface does not expose the transport module.
    public struct HTTPRetry: Sendable, Hashable {
        public var maxAttempts: Int
        public var baseDelay: Duration
        public var maxDelay: Duration
        public init(maxAttempts: Int = 4, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30)) {
            self.maxAttempts = maxAttempts
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
        }
    }

    public init(baseURL: String, model: String? = nil, apiKey: String? = nil, temperature: Double? = nil, maxTokens: Int? = nil,
                historyTurns: Int = 12, idleTimeout: Duration = .seconds(120), retry: HTTPRetry = HTTPRetry()) {
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        self.baseURL = url
        self.model = model
        self.apiKey = apiKey
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.historyTurns = historyTurns
        self.idleTimeout = idleTimeout
        self.retry = retry
    }
}
