import ArgumentParser
import Foundation
import ReceptionReferenceServers

/// `reception-reference-server openai --port P` (also `reception serve openai ...`).
struct ServeOpenAICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openai",
        abstract: "An OpenAI-compatible chat server with a scripted, deterministic model.",
        discussion: """
        Implements GET /v1/models and POST /v1/chat/completions (streamed and not) as llama.cpp's \
        server sends them. The answer repeats the message, names the persona from the system \
        prompt and counts the conversation's messages. Words in the message script the stream: \
        "slow", "nodone" (no [DONE]), "cut" ([DONE] without a finish reason), "dropped" (the \
        connection closes mid-answer), "overflow" (an empty 200), "errorbody" (400), "busy" (429 \
        once, Retry-After 1), "reasoning", "long" (finish reason length).
        Point Reception at it with: OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 reception --backend openai
        """)

    @Option(name: .long, help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 8080

    @Option(name: .customLong("model"), help: ArgumentHelp("A model to list (repeatable; default reference-model).", valueName: "name"))
    var models: [String] = []

    @Option(name: .customLong("api-key-env"), help: ArgumentHelp("Require the Bearer key held in this environment variable.", valueName: "name"))
    var apiKeyEnv: String?

    @Option(name: .customLong("chunk-ms"), help: ArgumentHelp("Pause between chunks in milliseconds.", valueName: "ms"))
    var chunkMilliseconds = 15

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard (0...60_000).contains(chunkMilliseconds) else { throw ValidationError("--chunk-ms must be 0...60000") }
    }

    func run() async throws {
        var keys: [String] = []
        if let apiKeyEnv {
            guard let key = ProcessInfo.processInfo.environment[apiKeyEnv], !key.isEmpty else {
                throw ValidationError("The environment variable \(apiKeyEnv) is not set.")
            }
            keys.append(key)
        }
        let options = OpenAIReferenceOptions(port: port, models: models.isEmpty ? ["reference-model"] : models, apiKeys: keys,
                                             chunkDelay: .milliseconds(chunkMilliseconds))
        let server = OpenAIReferenceServer(options: options)
        try await server.run { port in
            let line = "OpenAI-compatible reference server on http://127.0.0.1:\(port)/v1  (models: \(options.models.joined(separator: ", "))\(options.apiKeys.isEmpty ? "" : "; Bearer key required"); Ctrl-C to stop)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
