import Foundation
import ReceptionCore
import ReceptionLoopSymphony
import ReceptionReferenceServers
import ReceptionTestSupport
import ReceptionTesting
import Testing

extension LoopSymphonyReferenceOptions {
    /// Fast timings so the suite runs in seconds.
    /// `step`: 20 ms makes a "slow" task (80 steps) end in about 1.6 s, too soon for a test
    /// that cancels it on a loaded machine; those take 250 ms (20 s a slow task).
    static func fast(keepalive: Duration = .milliseconds(200), streaming: Bool = true, seedKnowledge: Bool = true,
                     step: Duration = .milliseconds(20)) -> LoopSymphonyReferenceOptions {
        LoopSymphonyReferenceOptions(keepaliveInterval: keepalive, stepDelay: step, streamingEnabled: streaming,
                                     seedKnowledge: seedKnowledge)
    }
}

/// Starts a reference server on 127.0.0.1 (ephemeral port) and a client for it; both are shut
/// down afterwards, whatever happens.
func withServer<T: Sendable>(_ options: LoopSymphonyReferenceOptions = .fast(), apiKey: String? = "dev-key", userID: String? = "tester",
                             prefersStreaming: Bool = true,
                             _ body: (RunningLoopSymphonyServer, LoopSymphonyClient) async throws -> T) async throws -> T {
    let server = try await RunningLoopSymphonyServer.start(options)
    let client = LoopSymphonyClient(configuration: LoopSymphonyConfiguration(
        // Limits far above any answer's time, however loaded the machine: no test here is
        // about them, and at 10 s a suite run beside other builds missed them.
        baseURL: server.baseURL, apiKey: apiKey, userID: userID, requestTimeout: .seconds(60),
        streamIdleTimeout: .seconds(60), pollInterval: .milliseconds(30), prefersStreaming: prefersStreaming))
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

func progress(in events: [BackendEvent]) -> [TaskProgress] {
    events.compactMap { if case .progress(let p) = $0 { p } else { nil } }
}

/// The HTTP error a call threw, or nil.
func httpError(_ body: () async throws -> Void) async -> (status: Int, detail: String)? {
    do {
        try await body()
        return nil
    } catch BackendError.http(let status, let detail) {
        return (status, detail)
    } catch {
        Issue.record("expected an HTTP error, got \(error)")
        return nil
    }
}

func request(_ query: String, trust: Int) -> TaskRequest {
    TaskRequest(query: query, preferences: TaskPreferences(trustLevel: trust))
}

func temporaryDirectory() throws -> URL {
    let url = Scratch.root.appendingPathComponent("reception-ls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// What `body` returned or threw, kept to be looked at once the client is shut down (a client
/// released without its shutdown stops a debug test process, taking every result with it).
func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// `ask`'s answer once `done` holds, asked again every 50 ms (the last answer when `limit`
/// passes first): for a state the server reaches soon after a call, however loaded the machine.
func answer(within limit: Duration, _ ask: () async throws -> String, until done: (String) -> Bool) async throws -> String {
    let deadline = ContinuousClock.now + limit
    var text = try await ask()
    while !done(text), ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(50))
        text = try await ask()
    }
    return text
}
