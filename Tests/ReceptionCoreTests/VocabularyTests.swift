import Foundation
import Testing
import ReceptionCore

@Suite("Reception's vocabulary")
struct VocabularyTests {
    @Test func intentDefaultsFollowTheContractWhenFieldsAreMissing() throws {
        let intent = try Wire.decode(Intent.self, from: Data("{}".utf8))
        #expect(intent.type == .curiosity)
        #expect(intent.urgency == .exploratory)
        #expect(intent.confidence == 1.0)
        #expect(intent.inferred == false)
    }

    @Test func userInputParsingOfEnums() {
        #expect(TaskStatus(userInput: "Awaiting-Approval") == .awaitingApproval)
        #expect(UrgencyLevel(userInput: "later") == nil)
    }

    /// Follow-ups are parsed once, by the adapter; the ASCII fast path and the general path
    /// must read every form the same way.
    @Test func followupsAndInterventionsAreReadFromTheirPrefix() {
        let cases: [(String, SuggestedFollowup)] = [
            ("What next?", .plain("What next?")),
            ("  [proactive] Watch it", .intervention(Intervention(type: .proactive, message: "Watch it"))),
            ("[ Pushback ]  Too broad ", .intervention(Intervention(type: .pushback, message: "Too broad"))),
            ("[education]", .intervention(Intervention(type: .education, message: ""))),
            ("[scoping]\tSplit it\t", .intervention(Intervention(type: .scoping, message: "Split it"))),
            ("[new_type] a card", .intervention(Intervention(type: .unknown("new_type"), message: "a card"))),
            ("[a-b] c", .intervention(Intervention(type: .unknown("a-b"), message: "c"))),
            ("[Proactive]\u{00A0}nbsp\u{00A0}", .intervention(Intervention(type: .proactive, message: "nbsp"))),
            ("[Écoute] oui", .intervention(Intervention(type: .unknown("écoute"), message: "oui"))),
            ("[not a tag!] text", .plain("[not a tag!] text")),
            ("[] empty", .plain("[] empty")),
            ("[ ] space", .plain("[ ] space")),
            ("[waytoolongtagnamethatgoesonandon] x", .plain("[waytoolongtagnamethatgoesonandon] x")),
            ("no [tag] here", .plain("no [tag] here")),
            ("   ", .plain("   ")),
            ("", .plain("")),
        ]
        for (text, expected) in cases {
            let parsed = SuggestedFollowup(parsing: text)
            #expect(parsed == expected, "\(text.debugDescription)")
            #expect(SuggestedFollowup(parsing: parsed.wireText) == parsed, "round trip of \(text.debugDescription)")
        }
    }

    @Test func aResultRoundTripsAsJSONWithItsFollowupsAsWireText() throws {
        let result = BackendResult(taskID: "t", outcome: .saturated, findings: [Finding(content: "f", source: "s")], text: "answer",
                                   confidence: 0.7, followups: [.plain("More?"), .intervention(Intervention(type: .scoping, message: "Split"))],
                                   textWasStreamed: true, usage: Usage(inputTokens: 3, outputTokens: 5))
        let text = Wire.jsonString(result)
        #expect(text.contains(#""[scoping] Split""#))
        #expect(try Wire.decode(BackendResult.self, from: Data(text.utf8)) == result)
    }
}
