import ArgumentParser
import Foundation
import ReceptionReferenceServers

/// `reception-reference-server codex --port P` (also `reception serve codex ...`).
struct ServeCodexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codex",
        abstract: "An OpenAgents Codex workers API (Laravel + runtime) with seeded faults on demand.",
        discussion: """
        Answers as /api/runtime/codex/workers does at OpenAgents 562314f4e8: Bearer token reception-dev-token, \
        {"data": ...} JSON, a long-poll SSE stream (cursor, tail_ms, Last-Event-ID) whose frames lack the blank line, \
        a stale cursor as event: error (or 410 with --stale-as-status), 409 for a stopped worker, 422 for bad input, \
        403 for another user's worker. Workers: wrk-desktop (its desktop acknowledges /handshake), wrk-hosted (no desktop), \
        wrk-stopped, wrk-other (forbidden). Words in a request's text: fail, slow, unusual, drop.
        Point Reception at it with: reception --backend codex (CODEX_URL defaults to http://127.0.0.1:8790).
        """)

    @Option(name: .long, help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 8790

    @Option(name: .long, help: "Seed for where streams are cut.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "How many stream responses to cut at a random point.")
    var drops = 0

    @Option(name: .customLong("duplicates"), help: "How many stream responses send their events twice (a proxy's retry).")
    var duplicateReplays = 0

    @Option(name: .customLong("gateway-errors"), help: "How many stream requests are answered 502/503 first (a gateway while the runtime restarts).")
    var gatewayErrors = 0

    @Option(name: .long, help: "Events kept per worker; older cursors are stale (410).")
    var retention = 1_000

    @Flag(name: .customLong("terminated-frames"), help: "End frames with a blank line (the fixed runtime) instead of a single newline.")
    var terminatedFrames = false

    @Flag(name: .customLong("stale-as-status"), help: "Answer a stale cursor with HTTP 410, as the runtime reached directly does.")
    var staleAsStatus = false

    @Option(name: .customLong("tick-ms"), help: ArgumentHelp("Running desktop workers add an event this often (0: never).", valueName: "ms"))
    var tickMilliseconds = 2_000

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        guard drops >= 0, duplicateReplays >= 0, gatewayErrors >= 0, tickMilliseconds >= 0 else { throw ValidationError("counts and pauses cannot be negative") }
        guard retention >= 1 else { throw ValidationError("--retention must be at least 1") }
    }

    func run() async throws {
        var options = CodexReferenceOptions(port: port)
        options.seed = seed
        options.drops = drops
        options.duplicateReplays = duplicateReplays
        options.gatewayErrors = gatewayErrors
        options.retention = retention
        options.unterminatedFrames = !terminatedFrames
        options.staleAsStatus = staleAsStatus
        options.tick = tickMilliseconds > 0 ? .milliseconds(tickMilliseconds) : nil
        let server = CodexReferenceServer(options: options)
        try await server.run { port in
            FileHandle.standardOutput.write(Data("Codex workers reference server on http://127.0.0.1:\(port)  (token reception-dev-token; Ctrl-C to stop)\n".utf8))
        }
    }
}
