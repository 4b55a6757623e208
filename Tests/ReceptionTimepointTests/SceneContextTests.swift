import Foundation
import ReceptionCore
import ReceptionReferenceServers
import ReceptionSoul
import ReceptionTimepoint
import Synchronization
import ReceptionTesting
import Testing

@Suite("TIMEPOINT: a scene as the conversation's context; commands")
struct SceneContextTests {
    @Test func askingSomeoneInTheSceneGoesToTheirCharacterChat() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            _ = try await collect(backend.submit(ReceptionRequest(text: "Oppenheimer at Trinity, 1945", trustLevel: 1)))
            let scene = try #require(backend.scene)
            let events = try await collect(backend.submit(ReceptionRequest(text: "ask Oppenheimer what he is thinking", trustLevel: 1)))
            #expect(progressLines(events).first == "Asking Oppenheimer costs 1 credit; you have 45 credits.")
            let answer = try #require(result(in: events))
            #expect(answer.text == "**Oppenheimer**: Oppenheimer considers \"What he is thinking\" and says: here in Trinity, 1945, I am thinking about what comes next.")
            let chat = await rig.reference.receivedCalls().filter { $0.path == "/api/v1/interactions/\(scene.id)/chat" }
            #expect(chat.count == 1)
            #expect(await rig.reference.balance(of: rig.email) == 44)
        }
    }

    @Test func theSoulWrapsACharactersAnswer() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            _ = try await collect(backend.submit(ReceptionRequest(text: "Oppenheimer at Trinity, 1945", trustLevel: 1)))
            let butler = try SoulParser.parse(String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Souls/butler.md"), encoding: .utf8), fileName: "butler.md")
            let pipeline = Pipeline(middleware: [PersonalityMiddleware(store: SoulStore(butler))], backend: backend)
            var context = ReceptionContext()
            context.backend = backend.descriptor
            let exchange = try await pipeline.send(ReceptionRequest(text: "Oppenheimer, are you afraid?", trustLevel: 1), context: context)
            var shown: [String] = []
            for try await event in exchange.events {
                if case .result = event.event { shown += event.display.map(\.markdown) }
            }
            let text = shown.joined(separator: "\n")
            #expect(text.contains("I am pleased to report the following."), "the butler's lead: \(text)")
            #expect(text.contains("Oppenheimer considers"), "\(text)")
            #expect(text.contains("I remain at your disposal.") || text.contains("pleased"), "\(text)")
        }
    }

    @Test func aMessageNamingNobodyIsAnsweredWithTheCastAndCostsNothing() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            _ = try await collect(backend.submit(ReceptionRequest(text: "Oppenheimer at Trinity, 1945", trustLevel: 1)))
            let events = try await collect(backend.submit(ReceptionRequest(text: "what is happening here?", trustLevel: 1)))
            #expect(result(in: events)?.text.contains("In the scene: Oppenheimer, Tomas Brenner, Old Scribe.") == true)
            #expect(await rig.reference.balance(of: rig.email) == 45)
            let survey = try await collect(backend.submit(ReceptionRequest(text: "ask everyone how they feel", trustLevel: 1)))
            #expect(result(in: survey)?.text.contains("**Tomas Brenner**: Tomas Brenner answers: How they feel") == true)
        }
    }

    @Test func routingFindsTheCharacterByFullNameSurnameOrFirstName() {
        let cast = [SceneCharacter(name: "J. Robert Oppenheimer", role: "primary", speaks: true),
                    SceneCharacter(name: "Kitty Oppenheimer", role: "secondary", speaks: true),
                    SceneCharacter(name: "Old Scribe", role: "background", speaks: false)]
        #expect(MessageRoute("ask Kitty Oppenheimer why", cast: cast) == .chat(character: "Kitty Oppenheimer", message: "Why"))
        #expect(MessageRoute("Kitty, how are you?", cast: cast) == .chat(character: "Kitty Oppenheimer", message: "How are you?"))
        #expect(MessageRoute("what does the scribe write?", cast: cast) == .chat(character: "Old Scribe", message: "what does the scribe write?"))
        #expect(MessageRoute("tell me about the old days", cast: cast) == .unaddressed)
        #expect(MessageRoute("Rome, 50 BCE", cast: cast) == .generate(query: "Rome, 50 BCE"))
        #expect(MessageRoute("anything at all", cast: nil) == .generate(query: "anything at all"))
    }

    @Test func aCostedCommandSaysItsCostBeforeItRunsWhereTheFrontEndPrintsAsItGoes() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            let live = try #require(TimepointCommands(backend: backend).all.first { $0.name == "/scene" }?.live)
            // What was printed, and whether the scene existed yet when it was.
            let printed = Mutex<[(text: String, sceneExisted: Bool)]>([])
            let output = CommandOutput(interactive: true) { text in printed.withLock { $0.append((text, backend.scene != nil)) } }
            let answer = try await live(["new", "Ada", "Lovelace", "in", "London", "1843"], output)
            let said = printed.withLock { $0 }
            #expect(said.map(\.text) == ["Generating a scene costs 5 credits; you have 50 credits."])
            #expect(said.first?.sceneExisted == false, "the cost is said before the scene is generated")
            #expect(answer.hasPrefix("**Ada Lovelace in London 1843**"), "and not said twice: \(answer)")
        }
    }

    @Test func commandsOpenListJumpAndChangeVisibility() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            let commands = Dictionary(uniqueKeysWithValues: TimepointCommands(backend: backend).all.map { ($0.name, $0) })
            func run(_ line: String) async throws -> String {
                let words = line.split(separator: " ").map(String.init)
                return try await commands[words[0]]!.run(Array(words.dropFirst()))
            }
            let created = try await run("/scene new Ada Lovelace in London 1843")
            #expect(created.hasPrefix("Generating a scene costs 5 credits; you have 50 credits.\n\n**Ada Lovelace in London 1843**"))
            let id = try #require(backend.scene?.id)
            #expect(try await run("/scene private") == "The scene is now private.")
            #expect(try await run("/scene list private").contains(id))
            let chat = try await run("/chat Ada Lovelace what are you computing?")
            #expect(chat.contains("**Ada Lovelace**: Ada Lovelace considers \"what are you computing?\""), "\(chat)")
            let jumped = try await run("/jump next 2 years")
            #expect(jumped.hasPrefix("A jump in time costs 2 credits; you have 44 credits."), "\(jumped)")
            #expect(jumped.contains("(1845"), "\(jumped)")
            #expect(backend.scene?.id != id, "the target became the context")
            let timeline = try await run("/timeline")
            #expect(timeline.contains(id) && timeline.contains("← here"))
            // Two scenes before this one: the server lists them nearest first; the timeline
            // reads in time order.
            _ = try await run("/jump next 2 years")
            let here = try #require(backend.scene?.id)
            let sequence = try await rig.client.sequence(of: here)
            #expect(sequence.prior.map(\.year) == [1845, 1843], "as the real server lists them: the parent first")
            let longer = try await run("/timeline").split(separator: "\n")
            #expect(longer.map { $0.dropFirst(2).prefix(4) } == ["1843", "1845", "1847"], "\(longer)")
            #expect(longer.last?.hasSuffix("← here") == true)
            let credits = try await run("/credits")
            #expect(credits.contains("You have **40 credits**"))
            #expect(credits.contains("| a jump in time | 2 |"))
            let history = try await run("/credits history")
            #expect(history.contains("| -2 | 40 | temporal |"))
            let missing = await timepointError { _ = try await run("/scene 00000000-0000-0000-0000-000000000000") }
            #expect(missing == .notFound("Timepoint not found"))
            // The first characters of an id open it, as /tasks takes short ids.
            let reopened = try await run("/scene \(id.prefix(8))")
            #expect(reopened.contains("**Ada Lovelace in London 1843**") && backend.scene?.id == id, "\(reopened)")
            let unknown = await timepointError { _ = try await run("/scene zzzzzzzz") }
            #expect(unknown == .unavailable("No scene of yours starts with “zzzzzzzz”; /scene list shows them."))
            #expect(try await run("/account delete").contains("To go ahead, type: /account delete \(rig.email)"))
            #expect(try await rig.client.me().email == rig.email, "asking what deletion means deletes nothing")
        }
    }
}
