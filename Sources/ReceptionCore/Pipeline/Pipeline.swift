/// Middleware composed in front of a backend.
///
/// The first middleware in `middleware` sees the request first and the events last.
public struct Pipeline: Sendable {
    public var middleware: [any Middleware]
    public var backend: any Backend

    public init(middleware: [any Middleware] = [], backend: any Backend) {
        self.middleware = middleware
        self.backend = backend
    }

    /// Sends a request through every middleware to the backend.
    public func send(_ request: ReceptionRequest, context: ReceptionContext = ReceptionContext()) async throws -> Exchange {
        var context = context
        context.backend = backend.descriptor
        return try await chain(from: 0)(request, context)
    }

    private func chain(from index: Int) -> MiddlewareNext {
        guard index < middleware.count else { return terminal }
        let current = middleware[index]
        let next = chain(from: index + 1)
        return { request, context in try await current.handle(request, context: context, next: next) }
    }

    private var terminal: MiddlewareNext {
        let backend = backend
        return { request, _ in
            let upstream: BackendEventStream = switch request.action {
            case .submit: backend.submit(request)
            case .approve(let taskID): backend.approve(taskID: taskID)
            }
            let events = ResponseStream.forwarding(upstream) { [ResponseEvent($0)] }
            return Exchange(request: request, events: events)
        }
    }
}
