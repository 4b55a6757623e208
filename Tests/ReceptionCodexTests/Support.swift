import Foundation
import ReceptionCodex
import ReceptionCore
import ReceptionReferenceServers
import Testing

/// Starts the reference server on 127.0.0.1 (ephemeral port) and a client for it; both stop afterwards.
func withCodexServer<T: Sendable>(_ options: CodexReferenceOptions = CodexReferenceOptions(port: 0),
                                  token: String = "reception-dev-token",
                                  configure: (inout CodexConfiguration) -> Void = { _ in },
                                  _ body: (RunningCodexServer, CodexClient) async throws -> T) async throws -> T {
    let server = try await RunningCodexServer.start(options)
    var configuration = CodexConfiguration(baseURL: server.baseURL, token: token, tokenSource: "the test")
    configuration.tailMS = 300
    configure(&configuration)
    let client = CodexClient(configuration: configuration)
    do {
        let result = try await body(server, client)
        await client.shutdown()
        await server.stop()
        return result
    } catch {
        await client.shutdown()
        await server.stop()
        throw error
    }
}

/// Watch options for tests: short polls, quick backoff, fixed jitter.
func quickWatch(tailMS: Int = 300, seed: UInt64 = 1) -> CodexWatcher.Options {
    var options = CodexWatcher.Options()
    options.tailMS = tailMS
    options.backoff = CodexBackoff(base: .milliseconds(20), maximum: .milliseconds(200))
    options.seed = seed
    options.maxConsecutiveFailures = 20
    options.minimumPollInterval = .milliseconds(20)
    return options
}

/// Reads updates until `until` says stop (or the deadline passes), and returns them.
func collectUpdates(_ watcher: CodexWatcher, from cursor: Int? = nil, deadline: Duration = .seconds(120),
                    until done: @escaping @Sendable ([CodexWatchUpdate]) -> Bool) async throws -> [CodexWatchUpdate] {
    try await withThrowingTaskGroup(of: [CodexWatchUpdate]?.self) { group in
        group.addTask {
            var updates: [CodexWatchUpdate] = []
            for try await update in watcher.updates(from: cursor) {
                updates.append(update)
                if done(updates) { return updates }
            }
            return updates
        }
        group.addTask {
            try await Task.sleep(for: deadline)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let updates = first else {
            Issue.record("the watcher did not finish within \(deadline); cursor \(watcher.cursor), \(watcher.statistics)")
            return []
        }
        return updates
    }
}

func seqs(_ updates: [CodexWatchUpdate]) -> [Int] {
    updates.compactMap { if case .event(let event) = $0 { event.seq } else { nil } }
}

/// Appends `count` events to a worker, as a busy runtime would.
@discardableResult
func appendEvents(_ server: RunningCodexServer, worker: String, count: Int, label: String = "step") async -> Int {
    var last = 0
    for index in 1...count {
        last = await server.server.append(worker, payload: .object(["source": .string("autopilot-desktop"), "method": .string("codex/event"),
                                                                      "params": .object(["msg": .string("\(label) \(index)")])])) ?? last
    }
    return last
}

/// The `CodexError` a call threw; an issue is recorded when it throws none or another error.
func codexError(_ body: () async throws -> Void) async -> CodexError? {
    await #expect(throws: CodexError.self) { try await body() }
}
