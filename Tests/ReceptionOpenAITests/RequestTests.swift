import Foundation
import ReceptionCore
import ReceptionOpenAI
import ReceptionReferenceServers
import ReceptionSoul
import ReceptionTesting
import ReceptionTestSupport
import Testing

@Suite("OpenAI-compatible requests and errors")
struct OpenAIRequestTests {
    func pipeline(_ backend: OpenAIBackend, soul: Soul) -> Pipeline {
        Pipeline(middleware: [PersonalityMiddleware(store: SoulStore(soul))], backend: backend)
    }

    func context(_ backend: OpenAIBackend) -> ReceptionContext {
        var context = ReceptionContext()
        context.backend = backend.descriptor
        return context
    }

    func soul(_ name: String) throws -> Soul {
        try SoulParser.parse(String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Souls/\(name).md"), encoding: .utf8), fileName: "\(name).md")
    }

    @Test func theSoulIsTheSystemPromptAndTheConversationGoesAsMessages() async throws {
        try await withOpenAIServer { server, backend in
            let butler = try soul("butler")
            let history = [ConversationTurn(query: "first question", summary: "first answer"),
                           ConversationTurn(query: "a failed one")]
            let request = ReceptionRequest(text: "third question", conversation: history,
                                           classification: IntentClassification(intent: .decision, urgency: .immediate, intentConfidence: 0.9, urgencyConfidence: 0.8, source: .classifier),
                                           trustLevel: 1)
            let exchange = try await pipeline(backend, soul: butler).send(request, context: context(backend))
            var text = ""
            for try await event in exchange.events { if case .textDelta(let t) = event.event { text += t } }
            let body = try #require(await server.server.receivedBodies().last)
            guard case .array(let messages)? = body["messages"] else { Issue.record("no messages: \(body)"); return }
            let roles = messages.map { $0["role"]?.stringValue ?? "?" }
            #expect(roles == ["system", "user", "assistant", "user", "user"])
            let system = messages[0]["content"]?.stringValue ?? ""
            #expect(system.contains("You are Ambrose"))
            #expect(!system.contains("Conversation so far"), "the turns go as messages, not twice")
            #expect(messages[2]["content"]?.stringValue == "first answer")
            let last = messages[4]["content"]?.stringValue ?? ""
            #expect(last.hasPrefix("third question\n\n[Note for this message: the person is choosing"), "\(last)")
            #expect(last.contains("lead with a recommendation"), "the decision intent reaches the model")
            #expect(last.contains("answer first, details after"), "the immediate urgency reaches the model")
            #expect(text.contains("I am Ambrose"), "the model answered from that system prompt")
            #expect(body["stream"]?.boolValue == true)
            #expect(body["model"]?.stringValue == "reference-model")
        }
    }

    /// A local server reuses its cache of the last prompt only up to the first token that
    /// differs: the second turn's system prompt is the first's, byte for byte, though the two
    /// messages differ in intent, urgency and goal, and what differs comes after the turns.
    @Test func theSecondTurnSharesTheWholeSystemPromptWithTheFirst() async throws {
        try await withOpenAIServer { server, backend in
            let pipeline = pipeline(backend, soul: try soul("default"))
            let first = ReceptionRequest(text: "should I take the train or fly?",
                                         classification: IntentClassification(intent: .decision, urgency: .immediate, intentConfidence: 0.9, urgencyConfidence: 0.8),
                                         trustLevel: 1, goal: "plan a week in Kyoto.")
            var answer = ""
            for try await event in try await pipeline.send(first, context: context(backend)).events {
                if case .textDelta(let text) = event.event { answer += text }
            }
            let second = ReceptionRequest(text: "why is the sky blue?", conversation: [ConversationTurn(asked: first, outcome: .complete, summary: answer)],
                                          classification: IntentClassification(intent: .curiosity, urgency: .exploratory, intentConfidence: 0.7, urgencyConfidence: 0.6),
                                          trustLevel: 1)
            for try await _ in try await pipeline.send(second, context: context(backend)).events {}
            let bodies = await server.server.receivedBodies()
            try #require(bodies.count == 2)
            guard case .array(let one)? = bodies[0]["messages"], case .array(let two)? = bodies[1]["messages"] else {
                Issue.record("no messages: \(bodies)"); return
            }
            let system = one[0]["content"]?.stringValue ?? ""
            #expect(one[0]["role"]?.stringValue == "system" && two[0]["role"]?.stringValue == "system")
            #expect(two[0]["content"]?.stringValue == system, "the system prompt changed between turns:\n\(system)\n---\n\(two[0]["content"]?.stringValue ?? "")")
            for perMessage in ["choosing", "curious", "Kyoto", "Note for this message"] {
                #expect(!system.contains(perMessage), "\(perMessage) in the system prompt")
            }
            // The earlier turn is sent again as it was first sent, note and all: the first
            // request's messages are the start of the second's, byte for byte, so a server's
            // prompt cache reads only the new message (without its note, the earlier message
            // broke the cached prefix, and the whole answer after it was read again).
            #expect(two.map { $0["role"]?.stringValue ?? "" } == ["system", "user", "assistant", "user"])
            #expect(Array(two.prefix(one.count)) == one)
            #expect(two[2]["content"]?.stringValue == answer)
            #expect(one[1]["content"]?.stringValue == "should I take the train or fly?\n\n[Note for this message: "
                    + "the person is choosing between options: lead with a recommendation and the one factor that decides it. "
                    + "They need this now: answer first, details after. The conversation's goal: plan a week in Kyoto.]")
            #expect(two[3]["content"]?.stringValue == "why is the sky blue?\n\n[Note for this message: "
                    + "the person is curious: a clear, friendly explanation is enough.]")
            // The reference model answers the person's words, not the guidance after them.
            #expect(answer.contains("You said: should I take the train or fly?. "), "\(answer)")
        }
    }

    /// A conversation carried on from the log (`reception -c`) is sent as the session that
    /// wrote it sent it: each earlier message with the note it first had.
    @Test func aTurnReadBackFromTheLogIsSentAsItWasFirstSent() {
        let asked = ReceptionRequest(text: "should I take the train or fly?",
                                     classification: IntentClassification(intent: .decision, urgency: .immediate, intentConfidence: 0.9, urgencyConfidence: 0.8),
                                     trustLevel: 1, goal: "plan a week in Kyoto.")
        let kept = ExchangeRecord(id: "e1", conversationID: "c1", backend: "oai", message: asked.text, goal: asked.goal,
                                  intent: .decision, urgency: .immediate, engineText: "Take the train.", ending: .answered, engineOutcome: .complete)
        let live = ConversationTurn(asked: asked, outcome: .complete, summary: "Take the train.")
        #expect(kept.turn == live)
        #expect(live.queryAsSent.hasPrefix("should I take the train or fly?\n\n[Note for this message: the person is choosing"))
    }

    /// Every token of the note is paid for on every message: a classification that asks
    /// nothing in particular of the answer adds none.
    @Test func aMessageThatAsksNothingInParticularIsSentAsWritten() async throws {
        try await withOpenAIServer { server, backend in
            let plain = ReceptionRequest(text: "hello there", classification: IntentClassification(intent: .unknown("chat"), urgency: .soon, intentConfidence: 0.5, urgencyConfidence: 0.5),
                                         trustLevel: 1)
            _ = try await collect(backend.submit(plain))
            let body = try #require(await server.server.receivedBodies().last)
            guard case .array(let messages)? = body["messages"] else { Issue.record("no messages: \(body)"); return }
            #expect(messages.last?["content"]?.stringValue == "hello there")
        }
    }

    @Test func anotherSoulSendsAnotherSystemPromptAndRequestShowsIt() async throws {
        try await withOpenAIServer { _, backend in
            var prompts: [String] = []
            for name in ["butler", "terse-engineer"] {
                let exchange = try await pipeline(backend, soul: try soul(name)).send(ReceptionRequest(text: "hi", trustLevel: 1), context: context(backend))
                for try await _ in exchange.events {}
                let wire = try #require(backend.wirePayload(for: exchange.request))
                guard case .array(let messages)? = wire["messages"] else { Issue.record("no messages"); return }
                prompts.append(messages.first?["content"]?.stringValue ?? "")
            }
            #expect(prompts[0] != prompts[1])
            #expect(prompts[0].contains("Ambrose") && !prompts[1].contains("Ambrose"))
        }
    }

    @Test func historyIsCutToTheProfilesTurns() async throws {
        try await withOpenAIServer(configure: { $0.historyTurns = 1 }) { server, backend in
            let history = (1...5).map { ConversationTurn(query: "q\($0)", summary: "a\($0)") }
            _ = try await collect(backend.submit(ReceptionRequest(text: "now", conversation: history, trustLevel: 1)))
            let body = try #require(await server.server.receivedBodies().last)
            guard case .array(let messages)? = body["messages"] else { Issue.record("the body has no messages: \(body)"); return }
            #expect(messages.compactMap { $0["content"]?.stringValue } == ["q5", "a5", "now"])
        }
    }

    @Test func optionsFromTheProfileGoInTheBody() async throws {
        try await withOpenAIServer(configure: { $0.temperature = 0.3; $0.maxTokens = 5 }) { server, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "hi", trustLevel: 1)))
            let body = try #require(await server.server.receivedBodies().last)
            #expect(body["temperature"]?.doubleValue == 0.3)
            #expect(body["max_tokens"]?.intValue == 5)
            #expect(result(in: events)?.outcome == .bounded, "cut at max_tokens")
        }
    }

    @Test func anErrorBodyIsShownInTheServersWords() async throws {
        try await withOpenAIServer { _, backend in
            let error = await httpError { _ = try await collect(backend.submit(ReceptionRequest(text: "errorbody", trustLevel: 1))) }
            #expect(error?.status == 400)
            #expect(error?.detail.hasPrefix("This model's maximum context length is 2048 tokens.") == true, "\(String(describing: error))")
        }
    }

    @Test func aRefusedKeyIsNamedByWhereItCameFromNeverShown() async throws {
        let secret = "sk-wrong-\(UUID().uuidString)"
        try await withOpenAIServer(OpenAIReferenceOptions(port: 0, apiKeys: ["sk-right"]),
                                   configure: { $0.apiKey = secret; $0.apiKeySource = "$OPENAI_API_KEY" }) { _, backend in
            let error = await httpError { _ = try await collect(backend.submit(ReceptionRequest(text: "hi", trustLevel: 1))) }
            #expect(error?.status == 401)
            #expect(error?.detail.contains("Invalid API key") == true)
            #expect(error?.detail.contains("refused the API key from $OPENAI_API_KEY") == true, "\(String(describing: error))")
            #expect(error?.detail.contains(secret) == false)
        }
        try await withOpenAIServer(OpenAIReferenceOptions(port: 0, apiKeys: ["sk-right"])) { _, backend in
            let error = await httpError { _ = try await collect(backend.submit(ReceptionRequest(text: "hi", trustLevel: 1))) }
            #expect(error?.detail.contains("No API key was sent: the built-in openai backend reads OPENAI_API_KEY; a profile of your own names its key with api_key_env or api_key_file.") == true, "\(String(describing: error))")
        }
        try await withOpenAIServer(OpenAIReferenceOptions(port: 0, apiKeys: ["sk-right"]), configure: { $0.apiKey = "sk-right" }) { _, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "hi", trustLevel: 1)))
            #expect(result(in: events) != nil, "the right key is sent as Bearer")
        }
    }

    @Test func aTracebackAfterTheMessageIsLeftOut() async throws {
        // llama-cpp-python puts a Python traceback after the validation message.
        let client = OpenAIClient(configuration: OpenAIConfiguration(baseURL: refusingLoopbackURL() + "/v1"))
        let detail = "1 validation error:\n  {'type': 'list_type'}\n\n  File \"/x/app.py\", line 376, in f\n    raise"
        let explained = client.explain(BackendError.http(status: 500, detail: detail))
        #expect("\(explained)" == "HTTP 500: 1 validation error:   {'type': 'list_type'}")
        await client.shutdown()
    }
}
