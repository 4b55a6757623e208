import ReceptionCore

/// Incoming middleware: renders every event through the current soul.
public struct PersonalityMiddleware: Middleware {
    public let store: SoulStore

    public init(store: SoulStore) {
        self.store = store
    }

    public func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
        let exchange = try await next(request, context)
        let renderer = SoulRenderer(soul: store.current)
        let trustLevel = request.task.trustLevel
        return exchange.mapEvents { event in
            var event = event
            event.display = renderer.render(event.event, trustLevel: trustLevel)
            return [event]
        }
    }
}
