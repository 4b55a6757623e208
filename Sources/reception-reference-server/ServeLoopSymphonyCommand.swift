import ArgumentParser
import Foundation
import ReceptionReferenceServers

/// `reception-reference-server loop-symphony --port P` (also `reception serve loop-symphony ...`).
struct ServeLoopSymphonyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loop-symphony",
        abstract: "A Loop Symphony server with scripted, deterministic behaviour.",
        discussion: """
        Implements the Loop Symphony API as the real server (commit 1917bde) speaks it: tasks with \
        plans at trust level 0, SSE streams, trust, knowledge, rooms, heartbeats, interventions, health. \
        Behaviour follows words in the query: "research"/"compare"/"best"/"find" iterate, "slow" runs \
        long enough to cancel, "fail" fails, "crash" answers a plain-text 500, "saturated"/"bounded"/ \
        "inconclusive" pick the outcome, "tell me everything about" draws a pushback intervention.
        API keys: dev-key (active) and inactive-key (deactivated), plus any --api-key you add.
        Point Reception at it with: reception --backend loop-symphony (LOOP_SYMPHONY_URL defaults to http://127.0.0.1:8765).
        """)

    @Option(name: .long, help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 8765

    @Option(name: .customLong("api-key"), help: ArgumentHelp("Extra API key to accept (repeatable). Prefer --api-key-env.", valueName: "key"))
    var apiKeys: [String] = []

    @Option(name: .customLong("api-key-env"), help: ArgumentHelp("Accept the API key held in this environment variable.", valueName: "name"))
    var apiKeyEnv: String?

    @Option(name: .long, help: ArgumentHelp("Seconds of silence before an SSE keepalive comment (30 on the real server).", valueName: "s"))
    var keepalive = 30.0

    @Option(name: .customLong("step-ms"), help: ArgumentHelp("Duration of one task step in milliseconds.", valueName: "ms"))
    var stepMilliseconds = 400

    @Flag(name: .customLong("no-stream"), help: "Answer GET /task/{id}/stream with a 500 (to try the client's fallback to polling).")
    var noStream = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard keepalive > 0 else { throw ValidationError("--keepalive must be positive") }
    }

    func run() async throws {
        var apps = LoopSymphonyReferenceOptions.defaultApps
        var extra = apiKeys
        if let apiKeyEnv {
            guard let key = ProcessInfo.processInfo.environment[apiKeyEnv], !key.isEmpty else {
                throw ValidationError("The environment variable \(apiKeyEnv) is not set.")
            }
            extra.append(key)
        }
        for (index, key) in extra.enumerated() { apps.append(.init(apiKey: key, name: "CLI app \(index + 1)")) }
        let options = LoopSymphonyReferenceOptions(
            port: port, apps: apps, keepaliveInterval: .milliseconds(Int(keepalive * 1000)),
            stepDelay: .milliseconds(stepMilliseconds), streamingEnabled: !noStream)
        let server = LoopSymphonyReferenceServer(options: options)
        let extraCount = extra.count
        try await server.run { port in
            let line = "Loop Symphony reference server on http://127.0.0.1:\(port)  (keys: dev-key\(extraCount == 0 ? "" : " + \(extraCount) more"); Ctrl-C to stop)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
