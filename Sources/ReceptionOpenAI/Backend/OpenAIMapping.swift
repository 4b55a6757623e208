import ReceptionCore

/// Reception's request as a chat-completions body: the one place that decides what an
/// OpenAI-compatible model is told.
enum OpenAIMapping {
    static func body(for request: ReceptionRequest, model: String, configuration: OpenAIConfiguration, stream: Bool = true) -> ChatCompletionRequest {
        ChatCompletionRequest(model: model, messages: messages(for: request, historyTurns: configuration.historyTurns),
                              stream: stream, temperature: configuration.temperature, maxTokens: configuration.maxTokens)
    }

    /// The system prompt (the soul), the last `historyTurns` turns as user/assistant messages,
    /// then the new message with what its classification and goal ask of the answer.
    ///
    /// The per-message guidance comes last, after the person's words, and an earlier turn is
    /// sent with its own, as first sent: the system prompt and the earlier turns are then the
    /// same bytes as in the previous request, and a server that keeps its last prompt's cache
    /// (llama.cpp) evaluates only the new message. Sent without its note, an earlier message
    /// broke the cached prefix there, and the whole previous answer was read again.
    static func messages(for request: ReceptionRequest, historyTurns: Int) -> [ChatMessage] {
        var messages: [ChatMessage] = []
        if let system = request.systemPrompt { messages.append(.system(system)) }
        for turn in request.conversation.suffix(max(0, historyTurns)) {
            messages.append(.user(turn.queryAsSent))
            // A turn that failed has no answer; the model still sees what was asked.
            if let answer = turn.summary, !answer.isEmpty { messages.append(.assistant(answer)) }
        }
        // In the message itself rather than a system message of its own: chat templates that
        // allow a system message only first (Mistral's, for one) would refuse the request.
        messages.append(.user(request.answerGuidance.map { request.text + "\n\n" + $0 } ?? request.text))
        return messages
    }
}
