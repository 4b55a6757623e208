import Testing
import ReceptionTestSupport
import ReceptionCore
import ReceptionIntent

private struct Capture: Backend {
    var descriptor: BackendDescriptor { BackendDescriptor(name: "capture", summary: "", capabilities: []) }
    func submit(_ request: ReceptionRequest) -> BackendEventStream { BackendEventStream { $0.finish() } }
}

@Suite("Intent middleware", .onTheCPULane)
struct IntentMiddlewareTests {
    func send(_ text: String, override: IntentOverride? = nil) async throws -> ReceptionRequest {
        let pipeline = Pipeline(middleware: [IntentMiddleware()], backend: Capture())
        let context = ReceptionContext(intentOverride: override)
        return try await pipeline.send(ReceptionRequest(text: text), context: context).request
    }

    @Test func fillsTheRequestsIntentFromTheClassifier() async throws {
        let request = try await send("should I take the train or fly to Seattle next month?")
        let intent = try #require(request.intent)
        #expect(intent.type == .decision)
        #expect(intent.urgency == .planning)
        #expect(intent.inferred == false)
        #expect(intent.confidence > 0 && intent.confidence < 1)
        #expect(request.classification?.intentExplanation?.chosen.contributions.isEmpty == false)
    }

    @Test func aHandSetLabelWinsAndIsSentWithFullConfidence() async throws {
        let request = try await send("should I take the train or fly?", override: IntentOverride(intent: .research, urgency: .soon))
        #expect(request.intent == Intent(type: .research, urgency: .soon, confidence: 1, inferred: false))
        #expect(request.classification?.source == .manual)
    }

    @Test func anIntentAlreadyOnTheRequestIsKept() async throws {
        let pipeline = Pipeline(middleware: [IntentMiddleware()], backend: Capture())
        let preset = IntentClassification(intent: .validation, urgency: .immediate, intentConfidence: 0.7, urgencyConfidence: 0.7, source: .manual)
        let sent = try await pipeline.send(ReceptionRequest(text: "should I fly?", classification: preset), context: ReceptionContext()).request
        #expect(sent.classification == preset)
        #expect(sent.intent == Intent(type: .validation, urgency: .immediate, confidence: 1, inferred: false))
    }
}
