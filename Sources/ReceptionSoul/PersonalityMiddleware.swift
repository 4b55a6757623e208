import ReceptionCore

/// Incoming middleware: renders every event through the current soul.
///
/// Streamed text (`.textDelta`) goes through a `SoulTextStream`, so a word to replace
/// that is split across chunks is still replaced: chunks may be held back until the word
/// is complete, and the rest is released before the next other event and when the
/// backend's stream ends. Each released `.textDelta` event carries the raw text it covers
/// (the raw texts concatenate to the backend's text) and one `.text` block in the soul's voice.
public struct PersonalityMiddleware: Middleware {
    public let store: SoulStore

    public init(store: SoulStore) {
        self.store = store
    }

    public func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
        let exchange = try await next(request, context)
        // One soul for the whole exchange, even if it is switched meanwhile.
        let renderer = SoulRenderer(soul: store.current)
        let trustLevel = request.task.trustLevel
        let stream = SharedTextStream(renderer.makeTextStream())
        @Sendable func textEvents(_ output: SoulTextStream.Output?) -> [ResponseEvent] {
            guard let output else { return [] }
            return [ResponseEvent(.textDelta(output.raw), display: [DisplayBlock(role: .text, markdown: output.styled)])]
        }
        return exchange.mapEvents({ event in
            if case .textDelta(let text) = event.event { return textEvents(stream.feed(text)) }
            var event = event
            event.display = renderer.render(event.event, trustLevel: trustLevel)
            return textEvents(stream.finish()) + [event]
        }, finish: {
            textEvents(stream.finish())
        })
    }
}
