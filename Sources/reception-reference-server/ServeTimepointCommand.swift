import ArgumentParser
import Foundation
import ReceptionReferenceServers

/// `reception-reference-server timepoint --port P` (also `reception serve timepoint ...`).
struct ServeTimepointCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timepoint",
        abstract: "A TIMEPOINT Flash server: JWT sign-in with rotation, credits, scenes, character chat, time travel.",
        discussion: """
        Speaks the real server's wire format (errors as {"error": ...}, data:-only SSE generation). \
        Sign in with X-Admin-Key (default dev-admin-key) at POST /api/v1/auth/dev/token; new users get \
        50 credits. Words in a query script it: "slow" (each step waits), "stubfail" (the scene fails). \
        With X-Admin-Key: POST /reference/faults {"path": "/api/v1/credits/balance", "status": 429, \
        "retry_after": "1", "times": 2} plays a refusal; POST /reference/expire-access-tokens expires \
        every access token.
        Point Reception at it with: TIMEPOINT_URL=http://127.0.0.1:PORT TIMEPOINT_ADMIN_KEY=dev-admin-key reception --backend timepoint
        """)

    @Option(name: .long, help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 8000

    @Option(name: .customLong("admin-key-env"), help: ArgumentHelp("Take the admin key from this environment variable (default: dev-admin-key).", valueName: "name"))
    var adminKeyEnv: String?

    @Option(name: .customLong("signup-credits"), help: "Credits a new user starts with.")
    var signupCredits = 50

    @Option(name: .customLong("access-ttl-s"), help: ArgumentHelp("Access token lifetime in seconds.", valueName: "seconds"))
    var accessSeconds = 900

    @Option(name: .customLong("step-ms"), help: ArgumentHelp("Pause before each streamed step, in milliseconds.", valueName: "ms"))
    var stepMilliseconds = 20

    @Flag(name: .customLong("refresh-500"), help: "Answer every valid refresh with 500, as upstream 74d8e06 does.")
    var refresh500 = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard (0...1_000_000).contains(signupCredits) else { throw ValidationError("--signup-credits must be 0...1000000") }
        guard (1...86_400).contains(accessSeconds) else { throw ValidationError("--access-ttl-s must be 1...86400") }
        guard (0...60_000).contains(stepMilliseconds) else { throw ValidationError("--step-ms must be 0...60000") }
    }

    func run() async throws {
        var options = TimepointReferenceOptions(port: port, signupCredits: signupCredits, accessTokenLifetime: .seconds(accessSeconds),
                                                stepDelay: .milliseconds(stepMilliseconds), refreshAnswers500: refresh500)
        if let adminKeyEnv {
            guard let key = ProcessInfo.processInfo.environment[adminKeyEnv], !key.isEmpty else {
                throw ValidationError("The environment variable \(adminKeyEnv) is not set.")
            }
            options.adminKey = key
        }
        let server = TimepointReferenceServer(options: options)
        try await server.run { port in
            let line = "TIMEPOINT Flash reference server on http://127.0.0.1:\(port)  (API under /api/v1; X-Admin-Key \(adminKeyEnv.map { "from $\($0)" } ?? "dev-admin-key"); Ctrl-C to stop)\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
