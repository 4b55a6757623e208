import ArgumentParser
import Foundation
import ReceptionReferenceServers

/// `reception-reference-server loomi --port P` (also `reception serve loomi ...`).
struct ServeLoomiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loomi",
        abstract: "A Loomi recipe agent: a fast decision, then recipe data written one recipe at a time.",
        discussion: """
        Implements POST /agent/find-recipes and POST /recipes/by-ids as the integration guide describes \
        them, over a fixed catalogue of twelve recipes (two of them partial). Ids are numbered per \
        session; a message without a dish refines the session's last search. Words in the query \
        script the rest: "ghost" (an id the data service does not have), "slow" (a slow data call), \
        "dropped" (the data answer is cut after one recipe), "unusual" (unknown fields), "fail" (500).
        Point Reception at it with: LOOMI_URL=http://127.0.0.1:PORT reception --backend loomi
        """)

    @Option(name: .long, help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 8791

    @Option(name: .customLong("api-key-env"), help: ArgumentHelp("Require the Bearer key held in this environment variable.", valueName: "name"))
    var apiKeyEnv: String?

    @Option(name: .customLong("decision-ms"), help: ArgumentHelp("Pause before the agent's decision, in milliseconds.", valueName: "ms"))
    var decisionMilliseconds = 0

    @Option(name: .customLong("recipe-delay-ms"), help: ArgumentHelp("Pause before each recipe of a data answer, in milliseconds (phase two's speed).", valueName: "ms"))
    var recipeMilliseconds = 150

    @Option(name: .customLong("fail-recipe-calls"), help: ArgumentHelp("The first N data calls answer 503 (phase two fails; retry it).", valueName: "n"))
    var failingRecipeCalls = 0

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard (0...60_000).contains(decisionMilliseconds) else { throw ValidationError("--decision-ms must be 0...60000") }
        guard (0...60_000).contains(recipeMilliseconds) else { throw ValidationError("--recipe-delay-ms must be 0...60000") }
        guard (0...1_000_000).contains(failingRecipeCalls) else { throw ValidationError("--fail-recipe-calls must be 0...1000000") }
    }

    func run() async throws {
        var keys: [String] = []
        if let apiKeyEnv {
            guard let key = ProcessInfo.processInfo.environment[apiKeyEnv], !key.isEmpty else {
                throw ValidationError("The environment variable \(apiKeyEnv) is not set.")
            }
            keys.append(key)
        }
        let options = LoomiReferenceOptions(port: port, apiKeys: keys, decisionDelay: .milliseconds(decisionMilliseconds),
                                            recipeDelay: .milliseconds(recipeMilliseconds), failingRecipeCalls: failingRecipeCalls)
        let server = LoomiReferenceServer(options: options)
        try await server.run { port in
            let line = "Loomi reference server on http://127.0.0.1:\(port)  (\(options.apiKeys.isEmpty ? "no key" : "Bearer key required"); Ctrl-C to stop)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
