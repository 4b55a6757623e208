import Foundation
import ReceptionCore
import ReceptionLoomi
import ReceptionReferenceServers
import ReceptionTestSupport
import Synchronization
import ReceptionTesting
import Testing

/// A clock the tests move by hand, for the caches' TTLs.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// A new empty directory for one test.
func makeScratchDirectory() throws -> String {
    let path = Scratch.root.appendingPathComponent("loomi-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A scratch directory, removed afterwards.
func withScratchDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = try makeScratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// The configuration tests use: short retry delays so failures are quick; time limits far
/// above any answer's time, however loaded the machine (no test here is about them).
func testConfiguration(_ url: String) -> LoomiConfiguration {
    LoomiConfiguration(baseURL: url, decisionTimeout: .seconds(60), recipesTimeout: .seconds(60), recipeAttempts: 3,
                       recipeRetryDelay: .milliseconds(20))
}

/// A reference server, and a connection to it whose cache lives in a scratch directory.
struct LoomiFixture {
    let server: RunningLoomiServer
    let connection: BackendConnection
    let cachePath: String
    var backend: LoomiBackend { connection.backend as! LoomiBackend }

    func command(_ name: String, _ arguments: [String] = []) async throws -> String {
        let command = try #require(connection.commands.first { $0.name == name })
        return try await command.run(arguments)
    }
}

func withLoomi<T>(_ options: LoomiReferenceOptions = LoomiReferenceOptions(port: 0, recipeDelay: .milliseconds(10)),
                  clock: TestClock? = nil, configure: (inout LoomiConfiguration) -> Void = { _ in },
                  _ body: (LoomiFixture) async throws -> T) async throws -> T {
    let directory = try makeScratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let server = try await RunningLoomiServer.start(options)
    var configuration = testConfiguration(server.baseURL)
    configure(&configuration)
    let now: @Sendable () -> Date
    if let clock { now = { clock.now } } else { now = { Date() } }
    let cachePath = directory + "/cache/loomi.sqlite"
    let connection: BackendConnection
    do {
        connection = try LoomiPlugin.connect(configuration, name: "loomi", cachePath: cachePath, now: now)
    } catch {
        await server.stop()
        throw error
    }
    let fixture = LoomiFixture(server: server, connection: connection, cachePath: cachePath)
    do {
        let result = try await body(fixture)
        await connection.shutdown()
        await server.stop()
        return result
    } catch {
        await connection.shutdown()
        await server.stop()
        throw error
    }
}

func collect(_ stream: BackendEventStream) async throws -> [BackendEvent] {
    var events: [BackendEvent] = []
    for try await event in stream { events.append(event) }
    return events
}

func texts(_ events: [BackendEvent]) -> [String] {
    events.compactMap { if case .textDelta(let text) = $0 { text } else { nil } }
}

func progressMessages(_ events: [BackendEvent]) -> [String] {
    events.compactMap { if case .progress(let progress) = $0 { progress.message } else { nil } }
}

func search(_ text: String, session: String = "session-a") -> ReceptionRequest {
    ReceptionRequest(text: text, trustLevel: 1, sessionID: session)
}

/// Holds each recipe of a data answer at the reference server until the test releases it
/// (`LoomiReferenceOptions.recipeGate`): the test releases recipe N only once the client has
/// shown card N-1, so a client that showed the cards only at the end would never see the
/// next one. A recipe still held after `patience` goes anyway and is counted as forced, so
/// such a client fails the test instead of hanging it.
actor RecipeRelease {
    /// How many recipes the server may send (recipes 0..<released).
    private(set) var released = 0
    /// Recipes that went because the client showed nothing for `patience`.
    private(set) var forced: [Int] = []
    /// Recipes the server waits to send, by index (a data call asked again waits at the same
    /// index as the first one).
    private var waiting: [(index: Int, id: UUID, continuation: CheckedContinuation<Void, Never>)] = []
    let patience: Duration

    init(patience: Duration = .seconds(60)) { self.patience = patience }

    deinit {
        for waiter in waiting { waiter.continuation.resume() }
    }

    /// What the server awaits before writing recipe `index`.
    nonisolated var gate: @Sendable (Int) async -> Void {
        { index in
            let id = UUID()
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.hold(index, id: id) }
                group.addTask {
                    try? await Task.sleep(for: self.patience)
                    await self.force(id)
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Lets recipes up to `index` go.
    func release(through index: Int) {
        released = max(released, index + 1)
        let going = waiting.filter { $0.index < released }
        waiting.removeAll { $0.index < released }
        for waiter in going { waiter.continuation.resume() }
    }

    private func hold(_ index: Int, id: UUID) async {
        if index < released { return }
        await withCheckedContinuation { waiting.append((index, id, $0)) }
    }

    private func force(_ id: UUID) {
        guard let position = waiting.firstIndex(where: { $0.id == id }) else { return }
        let waiter = waiting.remove(at: position)
        forced.append(waiter.index)
        waiter.continuation.resume()
    }
}
