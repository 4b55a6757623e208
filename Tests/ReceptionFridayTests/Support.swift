import Foundation
import ReceptionCore
import ReceptionFriday
import ReceptionREPL
import ReceptionReferenceServers
import ReceptionSoul
import Synchronization
import Testing

/// Runs `body` against a reference Friday server on loopback, stopped afterwards.
func withFridayServer<T>(_ options: FridayReferenceOptions = FridayReferenceOptions(stepDelay: .milliseconds(5)),
                         _ body: (RunningFridayServer) async throws -> T) async throws -> T {
    let server = try await RunningFridayServer.start(options)
    do {
        let value = try await body(server)
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}

/// Plays typed lines to the REPL, then end of input. `interactive` stands for a person at a
/// terminal (who can be asked a question); otherwise it is a script.
final class TypedLines: LineReader {
    private let lines: Mutex<[String]>
    private let prompts = Mutex<[String]>([])
    let isInteractive: Bool

    init(_ lines: [String], interactive: Bool = false) {
        self.lines = Mutex(lines)
        isInteractive = interactive
    }

    func readLine(prompt: String) async -> LineInput {
        prompts.withLock { $0.append(prompt) }
        return lines.withLock { $0.isEmpty ? .endOfInput : .line($0.removeFirst()) }
    }

    func remember(_ line: String) {}
    var promptsShown: [String] { prompts.withLock { $0 } }
}

final class Printed: Sendable {
    private let text = Mutex("")
    func append(_ chunk: String) { text.withLock { $0 += chunk } }
    var all: String { text.withLock { $0 } }
}

/// The REPL library with the Friday plugin and the default soul, as `reception --backend
/// friday` runs it, against `server`. Returns what a person would see and the session.
func chat(_ lines: [String], server: RunningFridayServer, interactive: Bool = false, idleTimeout: Int? = nil,
          mode: OutputMode = .plain) async -> (output: String, state: SessionState, reader: TypedLines, status: Int32) {
    var variables = ["HOME": "/nonexistent", "FRIDAY_URL": server.url]
    if let idleTimeout { variables["FRIDAY_IDLE_TIMEOUT"] = String(idleTimeout) }
    let catalog = BackendCatalog(plugins: [FridayPlugin.plugin], environment: .standard(variables))
    let printed = Printed()
    let reader = TypedLines(lines, interactive: interactive)
    let soul = SoulCatalog.builtIn("default")!
    let repl = REPL(configuration: .init(mode: mode, trustLevel: 1, initialBackend: "friday"), reader: reader,
                    console: Console(mode: mode, sink: { printed.append($0) }),
                    middleware: [PersonalityMiddleware(store: SoulStore(soul))], catalog: catalog, souls: nil)
    let status = await repl.run()
    return (printed.all, await repl.snapshot, reader, status)
}

/// The messages of `type` the server received.
func received(_ type: String, by server: RunningFridayServer) async -> [JSONValue] {
    await server.received().filter { $0["type"]?.stringValue == type }
}

/// Every event of one submission (with a deadline, so a hang fails the test).
func events(of stream: BackendEventStream, within limit: Duration = .seconds(120)) async throws -> [BackendEvent] {
    try await withThrowingTaskGroup(of: [BackendEvent]?.self) { group in
        group.addTask {
            var events: [BackendEvent] = []
            for try await event in stream { events.append(event) }
            return events
        }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        let first = try await group.next()!
        group.cancelAll()
        return try #require(first, "the stream did not end within \(limit)")
    }
}

func streamedText(_ events: [BackendEvent]) -> String {
    events.compactMap { if case .textDelta(let text) = $0 { text } else { nil } }.joined()
}
