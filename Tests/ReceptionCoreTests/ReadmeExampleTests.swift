import Foundation
import Testing
import ReceptionCore

// The middleware example of docs/architecture.md (the page the README links for library use),
// verbatim, so the documentation cannot drift from the API: `theDocumentationShowsThisExample`
// checks that page holds this code character for character.

/// Adds the person's city to every request, and times each answer.
struct LocationAndTiming: Middleware {
    let city: String

    func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
        var request = request
        request.extensions["location"] = .string(city)               // outgoing: enrich
        let started = ContinuousClock.now
        return try await next(request, context).mapEvents { event in
            guard case .result = event.event else { return [event] }
            var event = event                                         // incoming: wrap
            event.display.append(DisplayBlock(role: .note, markdown: "answered in \(started.duration(to: .now))"))
            return [event]
        }
    }
}

private struct Answer: Backend {
    var descriptor: BackendDescriptor { BackendDescriptor(name: "answer", summary: "", capabilities: []) }
    func submit(_ request: ReceptionRequest) -> BackendEventStream {
        BackendEventStream { continuation in
            continuation.yield(.result(BackendResult(text: request.extensions["location"]?.stringValue ?? "nowhere")))
            continuation.finish()
        }
    }
}

@Test("The documented middleware example enriches requests and wraps results")
func readmeMiddlewareExample() async throws {
    let pipeline = Pipeline(middleware: [LocationAndTiming(city: "Lisbon")], backend: Answer())
    let exchange = try await pipeline.send(ReceptionRequest(text: "hi"), context: ReceptionContext())
    #expect(exchange.request.extensions["location"] == .string("Lisbon"))
    var results: [(BackendResult, [DisplayBlock])] = []
    for try await event in exchange.events {
        if case .result(let response) = event.event { results.append((response, event.display)) }
    }
    let (response, display) = try #require(results.first, "the backend's result comes through")
    #expect(results.count == 1)
    #expect(response.text == "Lisbon")
    #expect(display.first?.markdown.hasPrefix("answered in ") == true)
}

@Test("docs/architecture.md shows the middleware example exactly as it compiles here")
func theDocumentationShowsThisExample() throws {
    let source = try String(contentsOfFile: #filePath, encoding: .utf8)
    let start = try #require(source.range(of: "/// Adds the person's city"))
    let end = try #require(source.range(of: "private struct Answer"))
    let example = source[start.lowerBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
    let page = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/architecture.md").path, encoding: .utf8)
    #expect(page.contains("```swift\nimport ReceptionCore\n\n" + example + "\n```"),
            "docs/architecture.md must show the middleware example exactly as it compiles here")
}
