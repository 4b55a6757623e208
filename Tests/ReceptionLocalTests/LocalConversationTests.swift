import Foundation
import Testing
import ReceptionCore
@testable import ReceptionLocal

/// What the local backend says across a conversation: a new conversation answers in full what
/// the last one was already told, and nothing of an answered passage is dropped unsaid.
@Suite("Embedded local backend across a conversation")
struct LocalConversationTests {
    let fast = LocalBackend.Settings(stepDelay: .milliseconds(1))

    func ask(_ backend: LocalBackend, _ query: String) async throws -> BackendResult {
        try #require(LocalBackendTests.result(try await LocalBackendTests.events(backend.submit(ReceptionRequest(text: query, trustLevel: 1)))))
    }

    /// `/new` forgets what was said: the same question is answered in full again, not as
    /// "already given" with part of the answer.
    @Test func aNewConversationAnswersAgainInFull() async throws {
        let kb = try LocalBackendTests.knowledge(["garden.md": "# Roses\nRoses need six hours of sun and deep watering once a week.\n"])
        let backend = LocalBackend(knowledge: kb, settings: fast)
        #expect(try await ask(backend, "how much sun do roses need?").outcome == .complete)
        #expect(try await ask(backend, "how much sun do roses need?").outcome == .saturated)
        await backend.startNewConversation()
        let again = try await ask(backend, "how much sun do roses need?")
        #expect(again.outcome == .complete && again.text.contains("six hours of sun"))
    }

    /// Tips are shown at trust level 0 only: one given at level 1 was used up unseen, and the
    /// one about plans came just after the person typed /trust 0 (a greeting gets no plan).
    @Test func aTipIsGivenWhereItIsSeenAndNeverAboutWhatWasJustTyped() async throws {
        let kb = try LocalBackendTests.knowledge(["garden.md": "# Roses\nRoses need six hours of sun.\n"])
        let backend = LocalBackend(knowledge: kb, usesBuiltInKnowledge: true, settings: fast)
        func tips(_ text: String, atTrustLevel level: Int) async throws -> [String] {
            let events = try await LocalBackendTests.events(backend.submit(ReceptionRequest(text: text, trustLevel: level)))
            let result = try #require(LocalBackendTests.result(events))
            return result.followups.compactMap { if case .intervention(let card) = $0, card.type == .education { card.message } else { nil } }
        }
        #expect(try await tips("how much sun do roses need?", atTrustLevel: 1).isEmpty)
        let atZero = try await tips("hello", atTrustLevel: 0)
        #expect(atZero == ["Point the local backend at your own notes with reception --knowledge DIR."], "\(atZero)")
    }

    /// A file's introduction lists what the file covers, also when it was given before: the
    /// introduction alone answers nothing.
    @Test func anIntroductionGivenAgainKeepsItsList() async throws {
        let kb = try LocalBackendTests.knowledge([
            "garden.md": "Everything the garden club knows about roses.\n\n## Roses in sun\nRoses need six hours of sun.\n\n## Roses in pots\nPots need drainage holes.\n",
        ])
        let backend = LocalBackend(knowledge: kb, settings: fast)
        let first = try await ask(backend, "what does the garden club know about roses?")
        let second = try await ask(backend, "what does the garden club know about roses?")
        for answer in [first, second] {
            #expect(answer.text.contains("- Roses in pots"), "\(answer.outcome): \(answer.text)")
        }
    }

    /// The finding under an answer holds the rest of the passage, not two sentences of it; a
    /// long one says how much more the section holds.
    @Test func theFindingHoldsTheRestOfThePassageOrSaysWhatIsLeft() async throws {
        let six = "Fly into SEA. Stay downtown. Ride the Link light rail. Buy a CityPASS. Pack a rain jacket. Do not rent a car unless you visit Rainier."
        let long = (1...14).map { "Seattle fact number \($0) is here." }.joined(separator: " ")
        let kb = try LocalBackendTests.knowledge(["seattle.md": "# Seattle trips\n\(six)\n", "facts.md": "# Seattle facts\n\(long)\n"])
        let backend = LocalBackend(knowledge: kb, settings: fast)
        let trip = try await ask(backend, "how do I plan seattle trips with the link light rail?")
        #expect(trip.findings.first?.content == "Buy a CityPASS. Pack a rain jacket. Do not rent a car unless you visit Rainier.", "\(trip.findings)")
        let facts = try await ask(backend, "which seattle facts number are here?")
        let finding = try #require(facts.findings.first { $0.source == "facts.md#Seattle facts" })
        #expect(finding.content.hasSuffix("Seattle fact number 11 is here. (3 more sentences in the section.)"), "\(finding.content)")
    }
}
