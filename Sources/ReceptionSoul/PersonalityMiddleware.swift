import ReceptionCore

/// Renders every incoming event through the current soul; outgoing, it gives engines that
/// read a system prompt the soul's.
///
/// Streamed text (`.textDelta`) goes through a `SoulTextStream`, so a word to replace
/// that is split across chunks is still replaced: chunks may be held back until the word
/// is complete, and the rest is released before the next other event and when the
/// backend's stream ends. Each released `.textDelta` event carries the raw text it covers
/// (the raw texts concatenate to the backend's text) and one `.text` block in the soul's voice.
///
/// Each event's `display` is rendered afresh from the event: blocks that middleware inside it
/// (after it in the list) added are replaced. A middleware that adds display blocks stands
/// before it in the list; one that changes fields for the soul to render stands after it.
public struct PersonalityMiddleware: Middleware {
    public let store: SoulStore
    /// Nil: the built-in templates, compiled on the first system prompt rather than at start
    /// (most backends never ask for one, and compiling them is an eighth of the start-up).
    public let prompts: SoulPrompts?

    public init(store: SoulStore, prompts: SoulPrompts? = nil) {
        self.store = store
        self.prompts = prompts
    }

    public func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
        // One soul for the whole exchange, even if it is switched meanwhile.
        let soul = store.current
        var request = request
        // Outgoing: a language-model engine gets the soul as its system prompt. The message's
        // classification is not in it: the adapter sends that after the conversation
        // (`ReceptionRequest.answerGuidance`), so the prompt is the same text on every turn.
        if case .submit = request.action, request.systemPrompt == nil, let capabilities = context.backend?.capabilities,
           capabilities.contains(.systemPrompt) {
            // An engine that receives the turns as messages of its own needs no copy of them here.
            let history = capabilities.contains(.conversationMessages) ? [] : request.conversation
            request.systemPrompt = (prompts ?? SoulPrompts()).systemPrompt(soul: soul, history: history)
        }
        let exchange = try await next(request, context)
        let renderer = SoulRenderer(soul: soul)
        // The whole answer too, kept only when the soul's limits or verbosity left part of it
        // out: the person who asks for more is shown what the engine already sent first.
        // (Drawn only for a soul that can leave something out: for the others it is the same answer.)
        let whole = renderer.mayLeaveOut ? SoulRenderer(soul: soul, whole: true) : nil
        let trustLevel = exchange.request.trustLevel
        let stream = SharedTextStream(renderer.makeTextStream())
        @Sendable func textEvents(_ output: SoulTextStream.Output?) -> [ResponseEvent] {
            guard let output else { return [] }
            return [ResponseEvent(.textDelta(output.raw), display: [DisplayBlock(role: .text, markdown: output.styled)])]
        }
        return exchange.mapEvents({ event in
            if case .textDelta(let text) = event.event { return textEvents(stream.feed(text)) }
            var event = event
            event.display = renderer.render(event.event, trustLevel: trustLevel)
            if case .result = event.event, let full = whole?.render(event.event, trustLevel: trustLevel), full != event.display {
                event.displayInFull = full
            }
            return textEvents(stream.finish()) + [event]
        }, finish: {
            textEvents(stream.finish())
        })
    }
}
