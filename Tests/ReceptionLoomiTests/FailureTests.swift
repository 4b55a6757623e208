import Foundation
import ReceptionCore
import ReceptionLoomi
import ReceptionReferenceServers
import ReceptionTesting
import ReceptionTestSupport
import Testing

@Suite("Loomi: phase two failing, retry, keys")
struct FailureTests {
    /// "/recipe 1" is card 1 of the last answer: when that card did not load, it is said, not
    /// the freshest recipe of the same id from another session (ids are numbered per session).
    @Test func aCardThatDidNotLoadIsNotAnotherSessionsRecipe() async throws {
        try await withLoomi { loomi in
            _ = try await collect(loomi.backend.submit(search("vegan cheesecake", session: "session-earlier")))
            await loomi.server.server.failRecipeCalls(100)
            let final = try #require(result(in: try await collect(loomi.backend.submit(search("pasta", session: "session-now")))))
            #expect(final.text.contains("1. Not loaded yet (session_recipe_001)"), "\(final.text)")
            let first = try await loomi.command("/recipe", ["1"])
            #expect(first.hasPrefix("Recipe 1 of the last answer (`session_recipe_001`) did not load"), "\(first)")
            #expect(!first.contains("Cheesecake"), "another session's recipe: \(first)")
        }
    }

    @Test func aFailedRecipeCallKeepsTheAnswerAndRetryLoadsTheRest() async throws {
        try await withLoomi { loomi in
            await loomi.server.server.failRecipeCalls(100)
            let events = try await collect(loomi.backend.submit(search("pasta")))
            let final = try #require(result(in: events))
            #expect(final.outcome == .bounded, "the answer stands, incomplete")
            #expect(final.text.hasPrefix("Here are 2 pasta recipes to start with."), "\(final.text)")
            #expect(final.text.contains("1. Not loaded yet (session_recipe_001): /recipes retry loads it."))
            #expect(final.text.hasSuffix("Recipe details could not be loaded: HTTP 503: Recipe data service unavailable. The answer above stands; /recipes retry loads the rest.\n"), "\(final.text)")
            // Three attempts in all, with a notice before each new one.
            #expect(progressMessages(events).filter { $0.hasPrefix("Recipe details: HTTP 503") }.count == 2, "\(progressMessages(events))")
            #expect(await loomi.server.server.received().filter { $0.path == "/recipes/by-ids" }.count == 3)
            #expect(loomi.backend.lastAnswer?.notLoaded == ["session_recipe_001", "session_recipe_002"])

            await loomi.server.server.failRecipeCalls(0)
            // "Continue" (what the soul offers after a partial answer) asks the same search again:
            // the agent's choice from the cache, the missing cards from the data service.
            await loomi.server.server.failRecipeCalls(100)
            let continued = try #require(result(in: try await collect(loomi.backend.submit(search("continue")))))
            #expect(continued.text.hasPrefix("Here are 2 pasta recipes to start with."), "\(continued.text)")
            #expect(await loomi.server.server.received().filter { $0.path == "/agent/find-recipes" }.count == 1)
            await loomi.server.server.failRecipeCalls(0)
            let retried = try await loomi.command("/recipes", ["retry"])
            #expect(retried.hasPrefix("1. Creamy Tomato Pasta (session_recipe_001)"), "\(retried)")
            #expect(retried.contains("2. Gluten-Free Penne Primavera (session_recipe_002)"))
            #expect(try await loomi.command("/recipes", ["retry"]) == "Every recipe of the last search is loaded; /recipes lists them.")
            #expect(try await loomi.command("/recipes").contains("Gluten-Free Penne Primavera"))
        }
    }

    @Test func aConnectionCutMidAnswerKeepsTheCardsThatArrivedAndAsksOnlyForTheRest() async throws {
        try await withLoomi { loomi in
            await loomi.server.server.failRecipeCalls(1, drop: true)
            let events = try await collect(loomi.backend.submit(search("vegan cheesecake")))
            let final = try #require(result(in: events))
            #expect(final.outcome == .complete, "\(final.text)")
            #expect(final.text.components(separatedBy: "Perfect Vegan Cheesecake (session_recipe_001)").count == 2, "the first card once: \(final.text)")
            let calls = await loomi.server.server.received().filter { $0.path == "/recipes/by-ids" }
            #expect(calls.count == 2)
            #expect(calls.last?.body["recipe_ids"] == .array((2...4).map { .string(String(format: "session_recipe_%03d", $0)) }))
        }
    }

    @Test func aSessionTheDataServiceForgotIsSearchedAgain() async throws {
        try await withLoomi { loomi in
            // The decision is cached, but none of its recipes arrived.
            await loomi.server.server.failRecipeCalls(100)
            _ = try await collect(loomi.backend.submit(search("vegan cheesecake")))
            _ = try await collect(loomi.backend.submit(search("make it gluten-free")))
            await loomi.server.server.failRecipeCalls(0)
            // The service restarts: its sessions are gone, and with them what the ids meant.
            await loomi.server.server.forgetSessions()
            let events = try await collect(loomi.backend.submit(search("make it gluten-free")))
            let final = try #require(result(in: events))
            #expect(progressMessages(events).contains("The recipe service no longer has that search; asking the agent again…"))
            #expect(final.outcome == .complete, "\(final.text)")
            #expect(final.text.contains("Found 1 perfect match for your gluten-free vegan cheesecake!"), "the whole search was asked again: \(final.text)")
            #expect(final.text.contains("1. Gluten-Free Vegan Cheesecake Bars (session_recipe_001)"), "\(final.text)")
            #expect(!final.text.contains("Recipe unavailable"))
            let queries = await loomi.server.server.received().filter { $0.path == "/agent/find-recipes" }.map { $0.body["query"] }
            #expect(queries.last == .string("gluten-free vegan cheesecake"), "\(queries)")
        }
    }

    /// The service forgets a search whose first card was already shown: asking the agent
    /// again shows the rest, not the answer and the first card a second time, and a retry
    /// does not point at itself.
    @Test func aSearchAskedAgainShowsNothingTwice() async throws {
        try await withLoomi(configure: { $0.recipeAttempts = 1 }) { loomi in
            await loomi.server.server.failRecipeCalls(1, drop: true)
            let first = try #require(result(in: try await collect(loomi.backend.submit(search("vegan cheesecake")))))
            #expect(first.text.contains("2. Not loaded yet (session_recipe_002)"), "\(first.text)")
            await loomi.server.server.forgetSessions()
            let retried = try await loomi.command("/recipes", ["retry"])
            #expect(retried.hasPrefix("The recipe service no longer has the last search"), "\(retried)")
            #expect(!retried.contains("/recipes retry") && !retried.contains("/agent/find-recipes"), "\(retried)")
            #expect(try await loomi.command("/recipes", ["retry"]).hasPrefix("The recipe service no longer has the last search"))

            let events = try await collect(loomi.backend.submit(search("continue")))
            let again = try #require(result(in: events))
            #expect(progressMessages(events).contains("The recipe service no longer has that search; asking the agent again…"))
            #expect(again.text.components(separatedBy: "Found 2 perfect matches for your vegan cheesecake!").count == 2, "the answer once: \(again.text)")
            #expect(again.text.components(separatedBy: "Perfect Vegan Cheesecake (session_recipe_001)").count == 2, "card 1 once: \(again.text)")
            for position in 2...4 { #expect(again.text.contains("\(position). "), "card \(position): \(again.text)") }
            #expect(again.outcome == .complete, "\(again.text)")
        }
    }

    /// Ctrl-C after the first card: the cards that had not arrived are the ones `/recipes
    /// retry` loads (it said there was no search to retry).
    @Test func aRetryAfterAStopLoadsTheCardsThatHadNotArrived() async throws {
        try await withLoomi(LoomiReferenceOptions(port: 0, recipeDelay: .seconds(1))) { loomi in
            let request = search("vegan cheesecake")
            var shown = ""
            for try await event in loomi.backend.submit(request) {
                guard case .textDelta(let chunk) = event else { continue }
                shown += chunk
                if shown.contains("session_recipe_001") { try await loomi.backend.cancel(taskID: request.id) }
            }
            // However slow the machine, what was not shown is what retry loads, and only that.
            let all = (1...4).map { String(format: "session_recipe_%03d", $0) }
            let missing = all.filter { !shown.contains("(\($0))") }
            #expect(!missing.isEmpty, "stopped before every card arrived: \(shown)")
            #expect(loomi.backend.lastAnswer?.notLoaded == missing)
            let retried = try await loomi.command("/recipes", ["retry"])
            for id in all { #expect(retried.contains("(\(id))") == missing.contains(id), "\(id): \(retried)") }
        }
    }

    /// A redirect to another origin, through Loomi's own client (its data call maps
    /// 3xx itself, not through the shared transport). Reported with the password in the
    /// Location masked, never followed: the key never reaches the other server, and the
    /// agent's answer stands.
    @Test func aRedirectOfTheDataCallIsReportedMaskedAndNeverFollowed() async throws {
        let elsewhere = try await RunningLoomiServer.start(LoomiReferenceOptions(port: 0))
        defer { Task { await elsewhere.stop() } }
        var options = LoomiReferenceOptions(port: 0, apiKeys: ["loomi-secret-key"], recipeDelay: .zero)
        options.recipeRedirect = "http://thief:hunter2@127.0.0.1:\(elsewhere.port)/recipes/by-ids"
        try await withLoomi(options, configure: { $0.apiKey = "loomi-secret-key" }) { loomi in
            let events = try await collect(loomi.backend.submit(search("vegan cheesecake")))
            let final = try #require(result(in: events))
            #expect(final.text.hasPrefix("Found 2 perfect matches for your vegan cheesecake!"), "the answer stands: \(final.text)")
            #expect(final.text.contains("the server redirects to http://thief:•••@127.0.0.1:\(elsewhere.port)/recipes/by-ids; Reception does not follow redirects"), "\(final.text)")
            #expect(!final.text.contains("hunter2") && !final.text.contains("loomi-secret-key"), "\(final.text)")
            #expect(final.text.contains("change the backend's url. The answer above stands"), "one full stop, not \"url..\": \(final.text)")
            #expect(await elsewhere.server.received().isEmpty, "nothing, and no key, reached the other server")
        }
    }

    @Test func aSlowDecisionIsSaidToBeStillSearching() async throws {
        let options = LoomiReferenceOptions(port: 0, decisionDelay: .milliseconds(600), recipeDelay: .zero)
        try await withLoomi(options, configure: { $0.slowNoticeAfter = .milliseconds(150) }) { loomi in
            let events = try await collect(loomi.backend.submit(search("soup")))
            guard case .progress(let notice)? = events.first else { Issue.record("\(events)"); return }
            #expect(notice.message == "Taking longer than expected, still searching…")
            #expect(result(in: events)?.text.contains("Quick Lentil Soup") == true)
        }
    }

    @Test func anUnreachableServerIsSaidPlainlyAndNothingIsInvented() async throws {
        let connection = try await withScratchDirectory { directory in
            try LoomiPlugin.connect(testConfiguration(refusingLoopbackURL()), name: "loomi", cachePath: directory + "/c.sqlite")
        }
        do {
            _ = try await collect(connection.backend.submit(search("vegan cheesecake")))
            Issue.record("an unreachable agent answered")
        } catch let error as BackendError {
            guard case .unreachable = error else { Issue.record("\(error)"); return }
            #expect(error.description.hasPrefix("Cannot reach \(refusingLoopbackURL())/agent/find-recipes"), "\(error)")
        }
        await connection.shutdown()
    }

    @Test func theKeyGoesAsBearerAndARefusalNeverRepeatsIt() async throws {
        let options = LoomiReferenceOptions(port: 0, apiKeys: ["loomi-secret-123"], recipeDelay: .zero)
        try await withLoomi(options, configure: { $0.apiKey = "loomi-secret-123" }) { loomi in
            let answer = try #require(result(in: try await collect(loomi.backend.submit(search("curry")))))
            #expect(answer.text.contains("Chicken Tikka Masala"))
        }
        try await withLoomi(options, configure: { $0.apiKey = "wrong-key-456"; $0.apiKeySource = "$LOOMI_API_KEY" }) { loomi in
            do {
                _ = try await collect(loomi.backend.submit(search("curry")))
                Issue.record("a wrong key was accepted")
            } catch {
                #expect("\(error)" == "HTTP 401: Invalid API key. The server refused the API key from $LOOMI_API_KEY.")
                #expect(!"\(error)".contains("wrong-key-456"))
            }
        }
    }

    @Test func theBuiltInProfileReadsTheEnvironmentAndNamesTheKeyOnly() throws {
        let environment = PluginEnvironment(variables: ["LOOMI_URL": "http://127.0.0.1:9999", "LOOMI_API_KEY": "k", "HOME": "/home/x"],
                                            dataDirectory: "/d", stateDirectory: "/s", configDirectory: "/c")
        let profile = try #require(LoomiPlugin.plugin.builtInProfile?(environment))
        #expect(profile.string("url") == "http://127.0.0.1:9999")
        #expect(profile.values["api_key"] == .secretFromEnvironment("LOOMI_API_KEY"))
        let configuration = try LoomiPlugin.configuration(for: profile, environment: environment)
        #expect(configuration.apiKey == "k" && configuration.apiKeySource == "$LOOMI_API_KEY")
        #expect(LoomiPlugin.cachePath(profile: "loomi", environment: environment) == "/home/x/.cache/reception/loomi/loomi.sqlite")
        var withXDG = environment
        withXDG.variables["XDG_CACHE_HOME"] = "/xdg"
        #expect(LoomiPlugin.cachePath(profile: "my/profile", environment: withXDG) == "/xdg/reception/loomi/my_profile.sqlite")
    }
}
