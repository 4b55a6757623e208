import Foundation
import Testing
import ReceptionCore
@testable import ReceptionLoopSymphony

@Suite("Loop Symphony wire contract")
struct WireContractTests {
    @Test func decodesTheGuidesTaskResponseWithSnakeCaseKeys() throws {
        let json = """
        {"request_id":"abc-123","outcome":"complete","findings":[{"content":"Forest Park has 80+ miles of trails...",
         "source":"https://example.com/forest-park","confidence":0.95,"timestamp":"2026-02-10T12:00:05Z"}],
         "summary":"Portland has excellent hiking options.","confidence":0.92,
         "metadata":{"instrument_used":"research","iterations":3,"duration_ms":12500,"sources_consulted":["https://example.com/forest-park"],
           "process_type":"semi_autonomic","room_id":"server","failover_events":[{"from":"claude","to":"local","reason":{"code":503}}]},
         "discrepancy":null,"suggested_followups":["What gear do I need?","[proactive] Check trail conditions"]}
        """
        let response = try Wire.decode(TaskResponse.self, from: Data(json.utf8))
        #expect(response.requestID == "abc-123")
        #expect(response.outcome == .complete)
        #expect(response.metadata.processType == .semiAutonomic)
        #expect(response.metadata.durationMS == 12500)
        #expect(response.metadata.failoverEvents.first?["reason"]?["code"]?.intValue == 503)
        #expect(response.findings.first?.source == "https://example.com/forest-park")
    }

    @Test func unknownEnumValuesDecodeAsUnknownAndRoundTrip() throws {
        let json = #"{"request_id":"x","outcome":"transcendent","findings":[],"summary":"s","confidence":0.5,"metadata":{"instrument_used":"note","iterations":1,"duration_ms":3,"sources_consulted":[],"process_type":"hyperconscious","room_id":null,"failover_events":[]},"discrepancy":null,"suggested_followups":[]}"#
        let response = try Wire.decode(TaskResponse.self, from: Data(json.utf8))
        #expect(response.outcome == .unknown("transcendent"))
        #expect(response.metadata.processType == .unknown("hyperconscious"))
        let again = try Wire.decode(TaskResponse.self, from: Wire.encode(response))
        #expect(again == response)
        #expect(Wire.jsonString(response).contains(#""outcome":"transcendent""#))
    }

    @Test func encodesRequestsInSnakeCaseAndKeepsFreeFormKeysVerbatim() throws {
        var context = TaskContext(conversationSummary: "trip", goal: "planning a trip",
                                  intent: Intent(type: .decision, urgency: .planning, successCriteria: "a pick", confidence: 0.8))
        context.inputResults = [.object(["camelCaseKey": .number(1)])]
        let request = TaskRequest(id: "r1", query: "train or fly?", context: context, preferences: TaskPreferences(trustLevel: 1))
        let text = Wire.jsonString(request)
        #expect(text.contains(#""conversation_summary":"trip""#))
        #expect(text.contains(#""success_criteria":"a pick""#))
        #expect(text.contains(#""trust_level":1"#))
        #expect(text.contains(#""camelCaseKey":1"#))
        #expect(try Wire.decode(TaskRequest.self, from: Data(text.utf8)) == request)
    }

    @Test func submitResponseDecodesPlanAndNullPlan() throws {
        let planned = """
        {"task_id":"abc","status":"awaiting_approval","message":"Task plan ready for approval.","plan":{"task_id":"abc","query":"q",
         "instrument":"research","process_type":"semi_autonomic","estimated_iterations":5,"description":"Research it","requires_approval":true}}
        """
        let submit = try Wire.decode(TaskSubmitResponse.self, from: Data(planned.utf8))
        #expect(submit.status == .awaitingApproval)
        #expect(submit.plan?.estimatedIterations == 5)
        let pending = try Wire.decode(TaskSubmitResponse.self, from: Data(#"{"task_id":"abc","status":"pending","message":"ok","plan":null}"#.utf8))
        #expect(pending.plan == nil)
        #expect(Wire.jsonString(pending).contains(#""plan":null"#))
    }

    @Test func findingTimestampAcceptsUnixSeconds() throws {
        let finding = try Wire.decode(TaskFinding.self, from: Data(#"{"content":"c","source":null,"confidence":0.5,"timestamp":1795319556.68}"#.utf8))
        #expect(finding.timestamp.hasPrefix("2026-11-22T"))
    }

    @Test func aReceptionRequestMapsToThePostTaskBody() throws {
        let classification = IntentClassification(intent: .decision, urgency: .planning, intentConfidence: 0.9, urgencyConfidence: 0.8)
        let request = ReceptionRequest(id: "r2", text: "train or fly?",
                                       conversation: [ConversationTurn(query: "trip to Seattle", outcome: .bounded, summary: "partial")],
                                       classification: classification, trustLevel: 2, goal: "plan a trip", sessionID: "s",
                                       attachments: ["notes.md"], systemPrompt: "never sent to Loop Symphony",
                                       extensions: ["loop-symphony.thoroughness": .string("thorough")])
        let body = TaskRequest(request)
        #expect(body.id == "r2" && body.query == "train or fly?")
        #expect(body.context?.goal == "plan a trip" && body.context?.attachments == ["notes.md"])
        #expect(body.context?.conversationSummary == "Asked: trip to Seattle (bounded)")
        #expect(body.context?.intent == Intent(type: .decision, urgency: .planning, confidence: 0.8, inferred: false))
        #expect(body.preferences?.trustLevel == 2 && body.preferences?.thoroughness == .thorough)
        #expect(!Wire.jsonString(body).contains("never sent"))
    }

    @Test func aTaskResponseMapsToANeutralResultWithTheRawPayload() throws {
        let json = #"{"request_id":"x","outcome":"bounded","findings":[{"content":"c","source":"s","confidence":0.5,"timestamp":"t"}],"summary":"partial","confidence":0.4,"metadata":{"instrument_used":"research","iterations":4,"duration_ms":30,"sources_consulted":[],"process_type":"conscious","room_id":"server","failover_events":[]},"discrepancy":"d","suggested_followups":["Go on?","[pushback] Too broad"]}"#
        let result = BackendResult(try Wire.decode(TaskResponse.self, from: Data(json.utf8)))
        #expect(result.taskID == "x" && result.outcome == .bounded && result.text == "partial" && result.confidence == 0.4)
        #expect(result.findings == [Finding(content: "c", source: "s", confidence: 0.5)] && result.discrepancy == "d")
        #expect(result.followups == [.plain("Go on?"), .intervention(Intervention(type: .pushback, message: "Too broad"))])
        #expect(result.usage?.other["iterations"] == 4 && !result.textWasStreamed)
        #expect(result.raw?["metadata"]?["instrument_used"]?.stringValue == "research", "the engine's own payload stays available")
    }
}
