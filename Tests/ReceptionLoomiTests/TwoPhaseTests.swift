import Foundation
import ReceptionCore
import ReceptionLoomi
import ReceptionReferenceServers
import ReceptionTesting
import Testing

@Suite("Loomi: the answer first, recipe cards as they arrive")
struct TwoPhaseTests {
    @Test func theAgentsAnswerIsShownBeforeTheRecipeDataArrives() async throws {
        // Phase two takes 400 ms per recipe: the answer must not wait for it.
        let options = LoomiReferenceOptions(port: 0, recipeDelay: .milliseconds(400))
        // The slow-decision notice far off: a loaded machine can take the default 3 s over a
        // quick decision, and this test is about the order of what is shown, not that notice.
        try await withLoomi(options, configure: { $0.slowNoticeAfter = .seconds(120) }) { loomi in
            let events = try await collectTimed(loomi.backend.submit(search("gluten-free vegan cheesecake with 20g protein")))
            let textEvents = events.filter { if case .textDelta = $0.event { true } else { false } }
            guard case .textDelta(let first)? = textEvents.first?.event else { Issue.record("no text"); return }
            #expect(first.hasPrefix("Found 1 perfect match for your gluten-free high-protein vegan cheesecake!"), "\(first)")
            #expect(!first.contains("Perfect Vegan Cheesecake"), "the answer comes alone, before any card")
            let cards = textEvents.dropFirst()
            #expect(cards.count == 4, "\(cards.map(\.event))")
            let firstCard = try #require(cards.first)
            let lastCard = try #require(cards.last)
            // Shown at once, then each card as its record arrives (not all at the end).
            #expect(firstCard.at - textEvents[0].at >= .milliseconds(300), "the answer came \(firstCard.at - textEvents[0].at) before the first card")
            #expect(lastCard.at - firstCard.at >= .milliseconds(900), "cards arrived together: \(cards.map(\.at))")
            // "Found 4 recipes! Loading details…" sits between the answer and the cards.
            let loading = try #require(events.firstIndex { if case .progress(let p) = $0.event { p.message.hasPrefix("Found 4 recipes! Loading details") } else { false } })
            let answerIndex = try #require(events.firstIndex { if case .textDelta = $0.event { true } else { false } })
            #expect(answerIndex < loading)
            #expect(loading < events.firstIndex { $0.at == firstCard.at && $0.event == firstCard.event }!)
            let final = try #require(result(in: events.map(\.event)))
            #expect(final.outcome == .complete)
            #expect(final.textWasStreamed && final.text == texts(events.map(\.event)).joined())
            #expect(final.text.contains("1. Gluten-Free Vegan Cheesecake Bars (session_recipe_001)"), "\(final.text)")
            // The client asked for exactly the ids the agent chose, in the same session.
            let received = await loomi.server.server.received()
            #expect(received.map(\.path) == ["/agent/find-recipes", "/recipes/by-ids"])
            #expect(received[0].body["target_count"] == .number(4))
            #expect(!progressMessages(events.map(\.event)).contains { $0.hasPrefix("Taking longer") }, "a quick decision gets no notice")
            #expect(received[1].body["session_id"] == .string("session-a"))
            #expect(received[1].body["recipe_ids"] == .array((1...4).map { .string(String(format: "session_recipe_%03d", $0)) }))
        }
    }

    @Test func unknownIDsBecomePlaceholdersAndPartialRecordsNameWhatIsMissing() async throws {
        try await withLoomi(configure: { $0.targetCount = 6 }) { loomi in
            let events = try await collect(loomi.backend.submit(search("ghost cheesecake")))
            let text = try #require(result(in: events)).text
            #expect(text.contains("6. Recipe unavailable (session_recipe_999): the recipe service has no data for it."), "\(text)")
            // The cups have no steps; the ricotta cake no nutrition and no images.
            let cups = try #require(text.components(separatedBy: "\n\n").first { $0.contains("Protein Chocolate Cheesecake Cups") })
            #expect(cups.contains("Not in the data: instructions."), "\(cups)")
            #expect(!cups.contains("Steps:"))
            let ricotta = try #require(text.components(separatedBy: "\n\n").first { $0.contains("Lemon Ricotta Cheesecake") })
            #expect(ricotta.contains("Not in the data: nutrition, images."), "\(ricotta)")
            let complete = try #require(text.components(separatedBy: "\n\n").first { $0.contains("Perfect Vegan Cheesecake") })
            #expect(!complete.contains("Not in the data"))
            #expect(complete.contains("Nutrition: calories 420 kcal · protein 21 g"), "\(complete)")
            // A placeholder is not cached: /recipe says it is not there.
            #expect(try await loomi.command("/recipe", ["session_recipe_999"]).hasPrefix("No cached recipe `session_recipe_999`"))
        }
    }

    @Test func aRefinementKeepsTheSessionAndCarriesTheConstraints() async throws {
        try await withLoomi { loomi in
            let first = try #require(result(in: try await collect(loomi.backend.submit(search("vegan cheesecake", session: "s1")))))
            #expect(first.text.hasPrefix("Found 2 perfect matches for your vegan cheesecake!"), "\(first.text)")
            let second = try #require(result(in: try await collect(loomi.backend.submit(search("make it gluten-free", session: "s1")))))
            #expect(second.text.hasPrefix("Keeping your cheesecake search and adding gluten-free. Found 1 perfect match for your gluten-free vegan cheesecake!"), "\(second.text)")
            #expect(second.text.contains("1. Gluten-Free Vegan Cheesecake Bars"))
            let decisions = await loomi.server.server.received().filter { $0.path == "/agent/find-recipes" }
            #expect(decisions.map { $0.body["session_id"] } == [.string("s1"), .string("s1")], "one session for the conversation")
            #expect(decisions.last?.body["query"] == .string("make it gluten-free"))
            // Another conversation does not inherit the constraints.
            let other = try #require(result(in: try await collect(loomi.backend.submit(search("make it gluten-free", session: "s2")))))
            #expect(other.text.hasPrefix("Found 4 perfect matches for your gluten-free recipes!"), "\(other.text)")
        }
    }

    @Test func refinementsAddConstraintsAndANewDishStartsOver() {
        let first = RecipeSearch.next(after: nil, text: "Find me a vegan cheesecake with 20g protein")
        #expect(first.search == RecipeSearch(topic: "cheesecake", constraints: ["protein 20g+", "vegan"]))
        #expect(!first.refines)
        let refined = RecipeSearch.next(after: first.search, text: "Make it gluten free")
        #expect(refined.refines)
        #expect(refined.search == RecipeSearch(topic: "cheesecake", constraints: ["gluten-free", "protein 20g+", "vegan"]))
        let quicker = RecipeSearch.next(after: refined.search, text: "something quicker")
        #expect(quicker.search.constraints.contains("quick") && quicker.search.topic == "cheesecake")
        let again = RecipeSearch.next(after: quicker.search, text: "Continue")
        #expect(again.refines && again.search == quicker.search, "the same search once more")
        let fresh = RecipeSearch.next(after: quicker.search, text: "chickpea curry")
        #expect(!fresh.refines && fresh.search == RecipeSearch(topic: "chickpea curry", constraints: []))
        // The same search in other words is the same cache key.
        let reordered = RecipeSearch.next(after: nil, text: "cheesecake, vegan, 20 g of protein").search
        #expect(reordered.cacheKey(sessionID: "s", targetCount: 4) == first.search.cacheKey(sessionID: "s", targetCount: 4))
    }

    @Test func theBackendPassesTheConformanceSuite() async throws {
        let options = LoomiReferenceOptions(port: 0, recipeDelay: .milliseconds(10), slowRecipeDelay: .seconds(2))
        try await withLoomi(options) { loomi in
            let report = await BackendConformance(backend: loomi.backend, scenarios: .init(
                answered: ReceptionRequest(text: "hello", trustLevel: 1),
                // Not a dish "hello" showed: its cards would come from the cache, at once.
                slow: ReceptionRequest(text: "slow curry", trustLevel: 1),
                failing: ReceptionRequest(text: "please fail", trustLevel: 1),
                unusual: ReceptionRequest(text: "unusual breakfast", trustLevel: 1),
                dropped: ReceptionRequest(text: "dropped pasta", trustLevel: 1),
                notApplicable: ["planned": "the recipe agent answers at once; it has no plans to approve"])).run()
            #expect(report.failures.isEmpty, "\(report)")
            #expect(report.passed.count == report.outcomes.count - 1, "\(report)")
        }
    }
}
