import Testing
import ReceptionCore
import ReceptionIntent

private struct Capture: Backend {
    var descriptor: BackendDescriptor { BackendDescriptor(name: "capture", summary: "", capabilities: []) }
    func submit(_ request: TaskRequest) -> BackendEventStream { BackendEventStream { $0.finish() } }
}

@Suite("Intent middleware")
struct IntentMiddlewareTests {
    func send(_ text: String, override: IntentOverride? = nil) async throws -> ReceptionRequest {
        let pipeline = Pipeline(middleware: [IntentMiddleware()], backend: Capture())
        let context = ReceptionContext(sessionID: "s", intentOverride: override)
        return try await pipeline.send(ReceptionRequest(task: TaskRequest(query: text)), context: context).request
    }

    @Test func fillsContextIntentFromTheClassifier() async throws {
        let request = try await send("should I take the train or fly to Seattle next month?")
        let intent = try #require(request.task.context?.intent)
        #expect(intent.type == .decision)
        #expect(intent.urgency == .planning)
        #expect(intent.inferred == false)
        #expect(intent.confidence > 0 && intent.confidence < 1)
        #expect(request.classification?.intentExplanation?.chosen.contributions.isEmpty == false)
    }

    @Test func aHandSetLabelWinsAndIsSentWithFullConfidence() async throws {
        let request = try await send("should I take the train or fly?", override: IntentOverride(intent: .research, urgency: .soon))
        #expect(request.task.context?.intent == Intent(type: .research, urgency: .soon, confidence: 1, inferred: false))
        #expect(request.classification?.source == .manual)
    }

    @Test func anIntentAlreadyOnTheRequestIsKept() async throws {
        let pipeline = Pipeline(middleware: [IntentMiddleware()], backend: Capture())
        let preset = Intent(type: .validation, urgency: .immediate, confidence: 0.7)
        let task = TaskRequest(query: "should I fly?", context: TaskContext(intent: preset))
        let sent = try await pipeline.send(ReceptionRequest(task: task), context: ReceptionContext(sessionID: "s")).request
        #expect(sent.task.context?.intent == preset)
    }
}
