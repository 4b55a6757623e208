import Testing
import ReceptionTestSupport
import ReceptionCore
import ReceptionSoul

@Suite("soul.md basics", .onTheCPULane)
struct SoulBasicsTests {
    @Test func frontMatterAndNameFromHeading() throws {
        let soul = try SoulParser.parse("""
        ---
        greeting: Hello there.
        outcomes:
          saturated: "Best I can do:"
        ---
        # Ada

        Calm and precise.
        """)
        #expect(soul.name == "Ada")
        #expect(soul.greeting == "Hello there.")
        #expect(soul.outcomeFraming["saturated"] == "Best I can do:")
    }

    @Test func brokenYAMLReportsTheLine() throws {
        let error = try #require(throws: SoulParser.ParseError.self) {
            try SoulParser.parse("---\nname: ok\ngreeting: fine\nvoice: [unclosed\n---\n# X\n", fileName: "x.md")
        }
        #expect(error.file == "x.md")
        #expect((4...5).contains(error.line), "the unclosed list is on line 4 of the file: \(error)")
    }

    @Test func rendersInterventionsAsCardsAndGatesThemByTrust() {
        let response = BackendResult(taskID: "r", outcome: .complete, text: "Done.", confidence: 0.9,
                                     followups: ["Next?", "[education] Try /followups", "[pushback] Too broad"].map(SuggestedFollowup.init(parsing:)))
        let renderer = SoulRenderer(soul: Soul(name: "t", interventionLabels: ["education": "Tip"]))
        let atZero = renderer.render(response, trustLevel: 0)
        #expect(atZero.filter { $0.role == .intervention }.map(\.title) == ["Tip", "Pushback"])
        #expect(atZero.first { $0.role == .followups }?.items == ["Next?"])
        let atTwo = renderer.render(response, trustLevel: 2)
        #expect(atTwo.filter { $0.role == .intervention }.map(\.interventionType) == [.pushback])
    }
}
