import Testing
@testable import ReceptionCore

@Suite("Interventions in suggested_followups")
struct InterventionTests {
    let wire = [
        "What gear do I need for hiking in Oregon?",
        "[proactive] Consider checking trail conditions before your trip",
        "[pushback] This request is very broad.",
        "[ Scoping ] Break this into parts",
        "[education] Tip: the research instrument goes deeper",
        "[rollout] a type this client has never seen",
        "[1] a footnote-looking follow-up stays plain",
    ]

    @Test func parsesEachPrefixIntoATypedIntervention() {
        let parsed = wire.map(SuggestedFollowup.init(parsing:))
        #expect(parsed[0] == .plain("What gear do I need for hiking in Oregon?"))
        #expect(parsed[1] == .intervention(Intervention(type: .proactive, message: "Consider checking trail conditions before your trip")))
        #expect(parsed[3] == .intervention(Intervention(type: .scoping, message: "Break this into parts")))
        #expect(parsed[5] == .intervention(Intervention(type: .unknown("rollout"), message: "a type this client has never seen")))
        #expect(parsed[6] == .plain("[1] a footnote-looking follow-up stays plain"))
    }

    @Test(arguments: [
        (0, ["proactive", "pushback", "scoping", "education", "rollout"]),
        (1, ["proactive", "pushback", "scoping", "rollout"]),
        (2, ["proactive", "pushback", "rollout"]),
    ])
    func trustLevelGatingMatchesSection5(level: Int, visible: [String]) {
        let gated = wire.map(SuggestedFollowup.init(parsing:)).gated(forTrustLevel: level)
        #expect(gated.interventions.map(\.type.rawValue) == visible)
        #expect(gated.plainFollowups.count == 2, "plain follow-ups are never gated")
    }
}
