import ReceptionCore

/// Reception's request as a chat-completions body: the one place that decides what an
/// OpenAI-compatible model is told.
enum OpenAIMapping {
    static func body(for request: ReceptionRequest, model: String, configuration: OpenAIConfiguration, stream: Bool = true) -> ChatCompletionRequest {
        ChatCompletionRequest(model: model, messages: messages(for: request, historyTurns: configuration.historyTurns),
                              stream: stream, temperature: configuration.temperature, maxTokens: configuration.maxTokens)
    }

    /// The system prompt (the soul, with the intent and urgency), the last `historyTurns`
    /// turns as user/assistant messages, then the new message.
    static func messages(for request: ReceptionRequest, historyTurns: Int) -> [ChatMessage] {
        var messages: [ChatMessage] = []
        if let system = request.systemPrompt ?? fallbackSystemPrompt(request) { messages.append(.system(system)) }
        for turn in request.conversation.suffix(max(0, historyTurns)) {
            messages.append(.user(turn.query))
            // A turn that failed has no answer; the model still sees what was asked.
            if let answer = turn.summary, !answer.isEmpty { messages.append(.assistant(answer)) }
        }
        messages.append(.user(request.text))
        return messages
    }

    /// Without a soul (a library user with no personality middleware), the model still
    /// learns what the person wants: a chat API has no other field for intent.
    static func fallbackSystemPrompt(_ request: ReceptionRequest) -> String? {
        guard let classification = request.classification else { return nil }
        var lines = ["The person's intent is \(classification.intent.rawValue), urgency \(classification.urgency.rawValue)."]
        if classification.intent == .decision { lines.append("They are choosing: lead with a recommendation.") }
        if classification.urgency == .immediate { lines.append("They need this now: the short answer first, details after.") }
        if let goal = request.goal { lines.append("The conversation's goal: \(goal).") }
        return lines.joined(separator: " ")
    }
}
