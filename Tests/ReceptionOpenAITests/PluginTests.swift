import Foundation
import ReceptionCore
import ReceptionOpenAI
import ReceptionReferenceServers
import ReceptionTestSupport
import Testing

@Suite("OpenAI-compatible plugin and /model")
struct OpenAIPluginTests {
    func environment(_ variables: [String: String]) -> PluginEnvironment {
        PluginEnvironment(variables: variables, dataDirectory: "/nonexistent", stateDirectory: "/nonexistent", configDirectory: "/nonexistent")
    }

    @Test func withoutAProfileTheSDKsEnvironmentVariablesApply() throws {
        let profile = try #require(OpenAIPlugin.plugin.builtInProfile?(environment(["OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-x"])))
        #expect(profile.string("url") == "http://127.0.0.1:9/v1")
        #expect(profile.values["api_key"] == .secretFromEnvironment("OPENAI_API_KEY"), "the key is named, not copied")
        let bare = try #require(OpenAIPlugin.plugin.builtInProfile?(environment([:])))
        #expect(bare.string("url") == "https://api.openai.com/v1")
        #expect(bare.values["api_key"] == nil)
    }

    @Test func theServersOnlyModelIsChosenWhenNoneIsNamed() async throws {
        let server = try await RunningOpenAIServer.start()
        let connection = try await OpenAIPlugin.connect(OpenAIConfiguration(baseURL: server.baseURL), name: "openai")
        #expect(connection.backend.descriptor.summary.hasPrefix("reference-model at http://127.0.0.1:"))
        #expect(connection.backend.descriptor.capabilities.contains(.systemPrompt))
        await connection.shutdown()
        await server.stop()
    }

    @Test func severalModelsAndNoneNamedIsAClearErrorListingThem() async throws {
        let server = try await RunningOpenAIServer.start(OpenAIReferenceOptions(port: 0, models: ["small", "large"]))
        do {
            _ = try await OpenAIPlugin.connect(OpenAIConfiguration(baseURL: server.baseURL), name: "openai")
            Issue.record("connected without a model")
        } catch {
            #expect("\(error)" == "Name a model with --model NAME (or OPENAI_MODEL, or the profile's model). The server offers: small, large.")
        }
        await server.stop()
    }

    @Test func aWrongBaseURLSaysWhereTheAPIUsuallyIs() async throws {
        let server = try await RunningOpenAIServer.start()
        let wrong = server.baseURL.replacingOccurrences(of: "/v1", with: "")
        do {
            let connection = try await OpenAIPlugin.connect(OpenAIConfiguration(baseURL: wrong, model: "m"), name: "openai")
            #expect(connection.notice?.contains("no model list") == true)
            await connection.shutdown()
        } catch {
            Issue.record("a named model connects even without a model list: \(error)")
        }
        let noModel = await httpErrorOrDescription { _ = try await OpenAIPlugin.connect(OpenAIConfiguration(baseURL: wrong), name: "openai") }
        #expect(noModel.contains("GET /models at \(wrong) answered HTTP 404 (Not Found). Is \(wrong) the API's base URL (usually ending in /v1)?"), "\(noModel)")
        await server.stop()
    }

    /// An unreachable server with a model named opens the session offline (the offline queue
    /// keeps what is sent); without a model there is nothing to ask, so it is an error.
    @Test func anUnreachableServerConnectsOfflineWhenAModelIsNamed() async throws {
        let connection = try await OpenAIPlugin.connect(OpenAIConfiguration(baseURL: refusingLoopbackURL() + "/v1", model: "m"), name: "openai")
        #expect(connection.notice?.hasPrefix("The server at \(refusingLoopbackURL())/v1 cannot be reached") == true, "\(String(describing: connection.notice))")
        #expect(connection.notice?.contains("queued") == true)
        await connection.shutdown()
        let refused = await httpErrorOrDescription { _ = try await OpenAIPlugin.connect(OpenAIConfiguration(baseURL: refusingLoopbackURL() + "/v1"), name: "openai") }
        #expect(refused.hasPrefix("Cannot reach \(refusingLoopbackURL())/v1/models"), "\(refused)")
    }

    @Test func modelListsSwitchesAndRefusesNamesTheServerDoesNotOffer() async throws {
        let server = try await RunningOpenAIServer.start(OpenAIReferenceOptions(port: 0, models: ["small-chat", "large-chat"]))
        let connection = try await OpenAIPlugin.connect(OpenAIConfiguration(baseURL: server.baseURL, model: "small-chat"), name: "openai")
        let model = try #require(connection.commands.first { $0.name == "/model" })
        let listing = try await model.run([])
        #expect(listing.contains("Model: **small-chat**"))
        #expect(listing.contains("`large-chat`") && listing.contains("`small-chat` (current)"))
        #expect(model.completions([]) == ["small-chat", "large-chat"], "completion offers the names heard at connect")
        let typo = try await model.run(["large-chat2"])
        #expect(typo.contains("does not offer `large-chat2`. Did you mean `large-chat`?"), "\(typo)")
        #expect(try await model.run(["large-chat"]) == "The next messages go to **large-chat**.")
        let backend = try #require(connection.backend as? OpenAIBackend)
        #expect(backend.model == "large-chat")
        let wire = try #require(backend.wirePayload(for: ReceptionRequest(text: "x")))
        #expect(wire["model"]?.stringValue == "large-chat")
        await connection.shutdown()
        await server.stop()
    }

    func httpErrorOrDescription(_ body: () async throws -> Void) async -> String {
        do { try await body(); return "no error" } catch { return "\(error)" }
    }
}
