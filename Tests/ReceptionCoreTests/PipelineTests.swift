import Testing
import ReceptionCore

/// A backend that answers every request with one result echoing the query: enough to
/// observe what the chain did to the request and to the events.
private struct TextEcho: Backend {
    var descriptor: BackendDescriptor { BackendDescriptor(name: "echo", summary: "echo", capabilities: []) }
    func submit(_ request: ReceptionRequest) -> BackendEventStream {
        BackendEventStream { continuation in
            continuation.yield(.accepted(taskID: request.id, status: .pending))
            continuation.yield(.result(BackendResult(taskID: request.id, outcome: .complete, text: request.text, confidence: 1)))
            continuation.finish()
        }
    }
}

private struct Tag: Middleware {
    let name: String
    func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
        var request = request
        request.text += " >\(name)"
        return try await next(request, context).mapEvents { event in
            var event = event
            event.display.append(DisplayBlock(role: .note, markdown: "<\(name)"))
            return [event]
        }
    }
}

@Suite("Middleware pipeline")
struct PipelineTests {
    @Test func outgoingRunsInOrderAndIncomingInReverse() async throws {
        let pipeline = Pipeline(middleware: [Tag(name: "a"), Tag(name: "b")], backend: TextEcho())
        let exchange = try await pipeline.send(ReceptionRequest(text: "hi"), context: ReceptionContext())
        #expect(exchange.request.text == "hi >a >b", "the exchange reports the request as the backend got it")
        var last: ResponseEvent?
        for try await event in exchange.events { last = event }
        guard case .result(let response)? = last?.event else { Issue.record("no result"); return }
        #expect(response.text == "hi >a >b")
        #expect(last?.display.map(\.markdown) == ["<b", "<a"])
    }

    @Test func thePipelineTellsMiddlewareWhichBackendTheRequestGoesTo() async throws {
        struct Peek: Middleware {
            let seen: @Sendable (BackendDescriptor?) -> Void
            func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
                seen(context.backend)
                return try await next(request, context)
            }
        }
        let box = Box()
        _ = try await Pipeline(middleware: [Peek { box.value = $0?.name }], backend: TextEcho()).send(ReceptionRequest(text: "x"), context: ReceptionContext())
        #expect(box.value == "echo")
    }

    @Test func textAMiddlewareHeldBackIsShownBeforeTheBackendsError() async throws {
        struct Stalls: Error {}
        // The backend streams half a word, then its connection stalls and fails.
        let upstream = ResponseStream { continuation in
            continuation.yield(ResponseEvent(.textDelta("starting")))
            continuation.finish(throwing: Stalls())
        }
        // A middleware that holds text until the word is complete (as the soul's text stream does).
        let held = HeldText()
        let exchange = Exchange(request: ReceptionRequest(text: "x"), events: upstream).mapEvents({ event in
            if case .textDelta(let text) = event.event { held.value += text; return [] }
            return [event]
        }, finish: {
            held.value.isEmpty ? [] : [ResponseEvent(.textDelta(held.value))]
        })
        var shown: [String] = []
        await #expect(throws: Stalls.self) {
            for try await event in exchange.events {
                if case .textDelta(let text) = event.event { shown.append(text) }
            }
        }
        #expect(shown == ["starting"], "the held text reaches the person before the error")
    }

    @Test func backendDefaultsReportUnsupportedOperations() async throws {
        await #expect(throws: BackendError.unsupported(operation: "cancel", backend: "echo")) {
            try await TextEcho().cancel(taskID: "t")
        }
        await #expect(throws: BackendError.unsupported(operation: "approve", backend: "echo")) {
            for try await _ in TextEcho().approve(taskID: "t") {}
        }
    }
}

private final class Box: @unchecked Sendable {
    var value: String?
}

private final class HeldText: @unchecked Sendable {
    var value = ""
}
