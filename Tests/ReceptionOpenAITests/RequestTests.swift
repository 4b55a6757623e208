import Foundation
import ReceptionCore
import ReceptionOpenAI
import ReceptionReferenceServers
import ReceptionSoul
import ReceptionTesting
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
            #expect(system.contains("lead with a recommendation"), "the decision intent reaches the model")
            #expect(system.contains("answer first, details after"), "the immediate urgency reaches the model")
            #expect(!system.contains("Conversation so far"), "the turns go as messages, not twice")
            #expect(messages[2]["content"]?.stringValue == "first answer")
            #expect(messages[4]["content"]?.stringValue == "third question")
            #expect(text.contains("I am Ambrose"), "the model answered from that system prompt")
            #expect(body["stream"]?.boolValue == true)
            #expect(body["model"]?.stringValue == "reference-model")
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
        let client = OpenAIClient(configuration: OpenAIConfiguration(baseURL: "http://127.0.0.1:1/v1"))
        let detail = "1 validation error:\n  {'type': 'list_type'}\n\n  File \"/x/app.py\", line 376, in f\n    raise"
        let explained = client.explain(BackendError.http(status: 500, detail: detail))
        #expect("\(explained)" == "HTTP 500: 1 validation error:   {'type': 'list_type'}")
        await client.shutdown()
    }
}
