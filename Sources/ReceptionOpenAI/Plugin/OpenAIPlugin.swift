import Foundation
import ReceptionCore

/// The `openai` plugin: any server that speaks OpenAI's chat-completions API.
///
/// Without a profile, `--backend openai` follows the official SDKs: the base URL from
/// `OPENAI_BASE_URL` (default `https://api.openai.com/v1`) and the key from `OPENAI_API_KEY`;
/// the model from `--model` (the REPL sets the profile's `model`), else `OPENAI_MODEL`, else
/// the server's only model when it serves exactly one (llama.cpp, a single Ollama model).
public enum OpenAIPlugin {
    public static let kind = "openai"
    public static let defaultBaseURL = "https://api.openai.com/v1"

    public static let options: [PluginOption] = [
        PluginOption("url", .url, help: "the API's base URL including /v1, e.g. http://127.0.0.1:8080/v1", required: true),
        PluginOption("model", .string, help: "the model to ask (default: the server's only model)"),
        PluginOption("api_key", .secret, help: "sent as Authorization: Bearer, to this URL only"),
        PluginOption("temperature", .number(0...2), help: "sampling temperature"),
        PluginOption("max_tokens", .integer(1...1_000_000), help: "longest answer, in tokens"),
        PluginOption("history_turns", .integer(0...200), help: "earlier turns sent with each message (default 12)"),
        PluginOption("timeout_s", .integer(1...3_600), help: "longest silence while the model answers, in seconds (default 120)"),
        PluginOption("rewrite", .boolean, help: "this model rewrites every answer in the soul's voice, facts checked (as --rewrite NAME; docs/soul-rewrite.md)"),
        PluginOption("rewrite_timeout_s", .integer(1...600), help: "longest wait for one rewrite, in seconds (default 30); then the soul's own rendering is shown"),
    ]

    public static let plugin = BackendPlugin(
        kind: kind, summary: "any OpenAI-compatible chat server (llama.cpp, Ollama, vLLM, LM Studio, hosted): streamed answers in the soul's voice",
        options: options,
        discussion: """
        Without a profile: OPENAI_BASE_URL (default \(defaultBaseURL)), OPENAI_API_KEY, and the model \
        from --model, else OPENAI_MODEL, else the server's only model.
        """,
        builtInProfile: builtInProfile,
        endpoint: { profile, _ in profile.string("url").map { OpenAIConfiguration(baseURL: $0).baseURL } },
        connect: { profile, environment in
            if let advice = await unconfiguredAdvice(profile, environment) { throw OpenAIConnectError(description: advice) }
            return try await connect(configuration(for: profile, environment: environment), name: profile.name)
        })

    /// The built-in `openai` profile with nothing set would ask api.openai.com without a key:
    /// certain to fail, and worded by the network ("the host does not resolve") rather than by
    /// what to do. Instead: how to point it at a server, and the local ones answering now.
    static func unconfiguredAdvice(_ profile: BackendProfile, _ environment: PluginEnvironment) async -> String? {
        guard profile.name == kind, profile.origin == builtInOrigin, profile.values["api_key"] == nil,
              environment[variable: "OPENAI_BASE_URL"] == nil else { return nil }
        let found = await LocalModelServers.look(LocalModelServers.places(environment), deadline: LocalModelServers.startupDeadline(environment))
        let local = found.isEmpty ? "" :
            " Running on this machine now: " + found.map { "\($0.place.product) at \($0.place.baseURL) (/backend \($0.place.name))" }
                .joined(separator: ", ") + "."
        return "The openai backend is not set up: it would ask \(defaultBaseURL) without an API key." + local +
            " To use another OpenAI-compatible server, start Reception with OPENAI_BASE_URL=http://HOST:PORT/v1 " +
            "(e.g. OPENAI_BASE_URL=http://127.0.0.1:8080/v1 reception --backend openai), or add a profile of kind openai " +
            "with its url to the configuration file (reception backends shows where); for OpenAI itself, set OPENAI_API_KEY."
    }

    static let builtInOrigin = "the OPENAI_* environment variables"

    static func builtInProfile(_ environment: PluginEnvironment) -> BackendProfile {
        var values: [String: ProfileValue] = ["url": .string(environment[variable: "OPENAI_BASE_URL"] ?? defaultBaseURL)]
        if environment[variable: "OPENAI_API_KEY"] != nil { values["api_key"] = .secretFromEnvironment("OPENAI_API_KEY") }
        if let model = environment[variable: "OPENAI_MODEL"] { values["model"] = .string(model) }
        return BackendProfile(name: kind, kind: kind, values: values, origin: builtInOrigin)
    }

    /// A client configuration for a profile, with its key read from where the profile says.
    public static func configuration(for profile: BackendProfile, environment: PluginEnvironment) throws -> OpenAIConfiguration {
        guard let url = profile.string("url") else { throw ProfileError(profile: profile, "it has no url.") }
        var configuration = OpenAIConfiguration(baseURL: url, model: profile.string("model"),
                                                apiKey: try profile.secret("api_key", environment: environment),
                                                temperature: profile.number("temperature"), maxTokens: profile.integer("max_tokens"))
        if let turns = profile.integer("history_turns") { configuration.historyTurns = turns }
        if let seconds = profile.integer("timeout_s") { configuration.idleTimeout = .seconds(seconds) }
        switch profile.values["api_key"] {
        case .secretFromEnvironment(let variable)?: configuration.apiKeySource = "$\(variable)"
        case .secretFromFile(let path)?: configuration.apiKeySource = path
        default: break
        }
        return configuration
    }

    /// Connects: asks the server for its models (which also checks the address and the key),
    /// settles the model, and adds `/model`.
    public static func connect(_ configuration: OpenAIConfiguration, name: String) async throws -> BackendConnection {
        let client = OpenAIClient(configuration: configuration)
        let offered: [String]
        var notice: String?
        do {
            offered = try await client.models().map(\.id)
        } catch BackendError.http(let status, _) where status == 404 || status == 405 {
            // Some compatible servers have no model list; with a model named, chat still works.
            guard configuration.model != nil else {
                await client.shutdown()
                let url = RedactedURL.display(configuration.baseURL)
                throw OpenAIConnectError(description: "GET /models at \(url) answered HTTP \(status) (\(status == 404 ? "Not Found" : "Method Not Allowed")). Is \(url) the API's base URL (usually ending in /v1)? If it is, the server has no model list: name a model with --model or the profile's model.")
            }
            offered = []
            notice = "This server has no model list (GET /models answered \(status)); /model cannot list models."
        } catch BackendError.unreachable(_, let reason) where configuration.model != nil {
            // Nothing listens there now: with a model named, connect offline, so what the person
            // sends waits in the offline queue instead of ending the session.
            offered = []
            notice = "The server at \(RedactedURL.display(configuration.baseURL)) cannot be reached (\(reason)). Messages you send now are queued and sent when it answers (the key and the model could not be checked)."
        } catch {
            await client.shutdown()
            throw error
        }
        let model: String
        if let named = configuration.model {
            model = named
            if !offered.isEmpty, !offered.contains(named) {
                notice = "The server does not list the model \"\(named)\" (it offers \(offered.prefix(8).joined(separator: ", "))); some servers answer with another model, others refuse."
            }
        } else if offered.count == 1 {
            model = offered[0]
        } else {
            await client.shutdown()
            let list = offered.isEmpty ? "none" : offered.prefix(12).joined(separator: ", ") + (offered.count > 12 ? ", …" : "")
            throw OpenAIConnectError(description: "Name a model with --model NAME (or OPENAI_MODEL, or the profile's model). The server offers: \(list).")
        }
        let backend = OpenAIBackend(client: client, model: model, name: name)
        let known = ModelNames(offered)
        // The model is named in the conversation log; the turns are all it needs to go on.
        return BackendConnection(backend: backend, commands: OpenAICommands(backend: backend, known: known).all, notice: notice,
                                 continuity: ConversationContinuity(state: { ["model": backend.model] }),
                                 shutdown: { await client.shutdown() })
    }
}

public struct OpenAIConnectError: Error, Sendable, CustomStringConvertible {
    public var description: String
}
