import Foundation
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
        #expect(request.classification?.intentByHand == true && request.classification?.urgencyByHand == true)
    }

    /// `/intent set research` sets one head: the intent is the person's, the urgency still the
    /// classifier's, and each says so. It was marked as the classifier's throughout, so the
    /// REPL showed the hand-set label as the model's.
    @Test func oneHandSetHeadIsMarkedAsThePersonsAndTheOtherAsTheClassifiers() async throws {
        let text = "should I take the train or fly to Seattle next month?"
        let intentOnly = try #require(try await send(text, override: IntentOverride(intent: .research)).classification)
        #expect(intentOnly.intent == .research && intentOnly.intentConfidence == 1 && intentOnly.intentByHand)
        #expect(intentOnly.urgency == .planning && intentOnly.urgencyConfidence < 1 && !intentOnly.urgencyByHand)
        #expect(intentOnly.source == .classifier, "only both heads by hand make the classification the person's")
        // The engine is told how sure the classifier is of the head it still chose.
        let urgencySure = (intentOnly.urgencyConfidence * 1000).rounded() / 1000
        #expect(intentOnly.wireIntent == Intent(type: .research, urgency: .planning, confidence: urgencySure, inferred: false))

        let urgencyOnly = try #require(try await send(text, override: IntentOverride(urgency: .immediate)).classification)
        #expect(urgencyOnly.intent == .decision && !urgencyOnly.intentByHand && urgencyOnly.intentConfidence < 1)
        #expect(urgencyOnly.urgency == .immediate && urgencyOnly.urgencyByHand && urgencyOnly.urgencyConfidence == 1)
        #expect(urgencyOnly.source == .classifier)
    }

    /// What `--json` prints and the offline queue stores: each head's flag, and `source` as
    /// before. A classification stored before the flags existed reads `manual` as both heads.
    @Test func theHandSetFlagsSurviveJSONAndOlderStoredClassificationsRead() throws {
        var classification = IntentClassification(intent: .decision, urgency: .planning, intentConfidence: 1, urgencyConfidence: 0.8)
        classification.intentByHand = true
        let json = Wire.jsonString(classification)
        #expect(json.contains(#""intentByHand":true"#) && json.contains(#""urgencyByHand":false"#) && json.contains(#""source":"classifier""#), "\(json)")
        #expect(try Wire.decode(IntentClassification.self, from: Data(json.utf8)) == classification)

        let older = #"{"intent":"research","urgency":"soon","intentConfidence":1,"urgencyConfidence":1,"source":"manual"}"#
        let read = try Wire.decode(IntentClassification.self, from: Data(older.utf8))
        #expect(read.intentByHand && read.urgencyByHand && read.source == .manual)
        let classified = #"{"intent":"research","urgency":"soon","intentConfidence":0.6,"urgencyConfidence":0.7,"source":"classifier"}"#
        let model = try Wire.decode(IntentClassification.self, from: Data(classified.utf8))
        #expect(!model.intentByHand && !model.urgencyByHand && model.source == .classifier)
    }

    @Test func anIntentAlreadyOnTheRequestIsKept() async throws {
        let pipeline = Pipeline(middleware: [IntentMiddleware()], backend: Capture())
        let preset = IntentClassification(intent: .validation, urgency: .immediate, intentConfidence: 0.7, urgencyConfidence: 0.7, source: .manual)
        let sent = try await pipeline.send(ReceptionRequest(text: "should I fly?", classification: preset), context: ReceptionContext()).request
        #expect(sent.classification == preset)
        #expect(sent.intent == Intent(type: .validation, urgency: .immediate, confidence: 1, inferred: false))
    }
}
