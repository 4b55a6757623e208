import Foundation
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionLoopSymphony
import ReceptionReferenceServers
import Testing

/// What the real Loop Symphony server says in its own terms (Python's `None`, FastAPI's
/// validation lists, states of its task manager) reaches a person in words; an explicit trust
/// level wins over the server's record, which is named; a cron the server could never run is
/// refused before it is sent; the local knowledge cache agrees with a restarted server.
@Suite("Loop Symphony in plain words")
struct PlainWordsTests {
    func commands(_ client: LoopSymphonyClient, cache: KnowledgeCache? = nil) -> LoopSymphonyCommands {
        LoopSymphonyCommands(client: client, cache: cache, cacheProblem: nil,
                             presence: RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: cache),
                             log: RoomLog())
    }

    /// The command as the REPL runs it (with the server's refusals put in words).
    func run(_ commands: LoopSymphonyCommands, _ name: String, _ arguments: [String]) async throws -> String {
        let command = try #require(commands.all.first { $0.name == name })
        return try await command.run(arguments)
    }

    func failure(_ body: () async throws -> String) async -> String {
        do {
            let answer = try await body()
            Issue.record("expected a refusal, got: \(answer)")
            return ""
        } catch {
            return String(describing: error)
        }
    }

    @Test func cronExpressionsAreReadAsCroniterReadsThem() {
        for good in ["0 7 * * *", "*/15 9-17 * * mon-fri", "@daily", "0 0 L * *", "0 9 * * mon#2", "5,35 */2 1-15 jan-jun 0-6", "0 0 * * 7"] {
            #expect(CronExpression.problem(good) == nil, "\(good)")
        }
        #expect(CronExpression.problem("not a cron")?.contains("needs five fields, minute hour day month weekday, and has 3") == true)
        #expect(CronExpression.problem("61 * * * *")?.contains("the minute field “61” is not a number from 0 to 59") == true)
        #expect(CronExpression.problem("* * * * funday")?.contains("or a name (sun–sat)") == true)
        #expect(CronExpression.problem("5-1 * * * *")?.contains("goes backwards") == true)
        #expect(CronExpression.problem("*/0 * * * *")?.contains("not a whole number above 0") == true)
        #expect(CronExpression.problem("@sometimes")?.contains("the named schedules are") == true)
    }

    @Test func aBadCronIsRefusedBeforeItIsSentAndATickSaysWhatRanAndHowItEnded() async throws {
        try await withServer { _, client in
            let commands = commands(client)
            let refused = await failure { try await run(commands, "/heartbeats", ["create", "Bad", "|", "not", "a", "cron", "|", "news"]) }
            #expect(refused.contains("“not a cron” is not a cron expression") && refused.contains("Nothing was sent."), "\(refused)")
            #expect(try await client.heartbeats.list().isEmpty, "nothing reached the server")
            // Due once a year (a heartbeat never run is due at once): the second tick finds it
            // not due whichever minute it comes in.
            let created = try await run(commands, "/heartbeats", ["create", "Morning", "|", "0", "3", "1", "1", "*", "|", "what", "is", "new", "on", "{date}"])
            let id = try #require(try await client.heartbeats.list().first?.id, "\(created)")
            let kept = await failure { try await run(commands, "/heartbeats", ["cron", id, "not", "a", "cron"]) }
            #expect(kept.contains("is not a cron expression") && kept.contains("keeps its schedule"), "\(kept)")
            #expect(try await client.heartbeats.get(id).cronExpression == "0 3 1 1 *")
            let notAnID = await failure { try await run(commands, "/heartbeats", ["pause", "morning"]) }
            #expect(notAnID.contains("“morning” is not a heartbeat id") && !notAnID.contains("422"), "\(notAnID)")
            let tick = try await run(commands, "/heartbeats", ["tick"])
            #expect(tick.hasPrefix("Ran 1 of 1 active heartbeat:"), "\(tick)")
            #expect(tick.contains("- **Morning** (task `") && tick.contains("ended complete:"), "what ran and how it ended: \(tick)")
            let again = try await run(commands, "/heartbeats", ["tick"])
            #expect(again.contains("Ran 0 of 1 active heartbeat.") && again.contains("- skipped **Morning**: not due yet"), "\(again)")
        }
    }

    @Test func theServersTerseWordsAreSaid() async throws {
        #expect(LoopSymphonyWording.taskFailure("Task failed: None").contains("gave no reason"))
        #expect(!LoopSymphonyWording.taskFailure("Task failed: None").hasPrefix("Task failed"))
        #expect(LoopSymphonyWording.taskFailure("Task failed: Cancelled by user") == "The task was cancelled (Cancelled by user).")
        #expect(LoopSymphonyWording.taskFailure("Task failed: Tavily quota exceeded") == "Task failed: Tavily quota exceeded", "the server's own words")
        #expect(LoopSymphonyWording.taskFailure("None").contains("gave no reason"), "a stream's error event without a reason")
        // No API key, as after "going on without an API key": the 422 about a header is said as what it means.
        try await withServer(apiKey: nil) { _, client in
            let said = await failure { try await run(commands(client), "/trust-metrics", []) }
            #expect(said.contains("This needs an API key, and this session has none") && !said.contains("Field required"), "\(said)")
            #expect(said.contains("LOOP_SYMPHONY_API_KEY"))
        }
    }

    @Test func cancellingATaskThisSessionCancelledSaysSo() async throws {
        try await withServer(.fast(step: .milliseconds(250))) { _, client in
            let backend = LoopSymphonyBackend(client: client)
            var taskID = ""
            var cancelled = false
            for try await event in backend.submit(ReceptionRequest(text: "slow research on rivers", trustLevel: 1)) {
                if case .accepted(let id, _) = event { taskID = id }
                if case .progress = event, !cancelled {
                    cancelled = true
                    try await backend.cancel(taskID: taskID)
                }
            }
            do {
                try await backend.cancel(taskID: taskID)
                Issue.record("a second cancel was accepted")
            } catch BackendError.invalidTaskState(_, let reason) {
                #expect(reason == "was cancelled already: this session asked for it, and the server has stopped it")
            }
        }
    }

    @Test func anExplicitTrustLevelWinsAndTheServerThatDisagreesIsNamed() async throws {
        try await withServer { server, _ in
            var configuration = LoopSymphonyConfiguration(baseURL: server.baseURL, apiKey: "dev-key", userID: "tester", defaultTrustLevel: 1)
            configuration.trustLevelSource = "the profile's trust_level (backends.json:3)"
            let home = try temporaryDirectory().path
            let environment = PluginEnvironment(variables: ["HOME": home], dataDirectory: home + "/data", stateDirectory: home + "/state",
                                                configDirectory: home + "/config")
            let connection = try await LoopSymphonyPlugin.connect(configuration, name: "ls", environment: environment)
            let defaultLevel = connection.defaultTrustLevel
            let said = connection.trustLevelDisagreement?(1, false)
            let agreeing = connection.trustLevelDisagreement?(0, true)
            await connection.shutdown()
            #expect(defaultLevel == 1, "the profile's level, not the server's 0")
            #expect(said?.contains("keeps trust level 0 (supervised) for this app and user; this session sends level 1 (semi-autonomous), as the profile's trust_level (backends.json:3) says") == true,
                    "\(said ?? "nothing said")")
            #expect(agreeing == nil, "nothing to say when they agree")
            // Without an explicit level the server's record is used, and there is nothing to say.
            let unset = try await LoopSymphonyPlugin.connect(LoopSymphonyConfiguration(baseURL: server.baseURL, apiKey: "dev-key", userID: "tester"),
                                                             name: "ls", environment: environment)
            let unsetLevel = unset.defaultTrustLevel
            let unsetSaid = unset.trustLevelDisagreement?(0, false)
            await unset.shutdown()
            #expect(unsetLevel == 0 && unsetSaid == nil)
        }
    }

    /// The server restarts with an empty store: the room it forgot registers again, and that
    /// first answer is everything the server has, so the cache ends up as empty as the server.
    @Test func afterARestartWithAnEmptyStoreTheCacheAgreesWithTheServer() async throws {
        let cache = try KnowledgeCache(path: ":memory:")
        // A port of the test's own, below the kernel's ephemeral range: no server bound to
        // port 0 elsewhere can be given it while the server is down.
        let port = try unusedLoopbackPort()
        var firstOptions = LoopSymphonyReferenceOptions.fast()
        firstOptions.port = port
        let first = try await RunningLoopSymphonyServer.start(firstOptions)
        let client = LoopSymphonyClient(configuration: LoopSymphonyConfiguration(baseURL: first.baseURL, apiKey: "dev-key", userID: "tester",
                                                                                 requestTimeout: .seconds(10)))
        var restarted: RunningLoopSymphonyServer?
        do {
            let commands = commands(client, cache: cache)
            _ = try await client.rooms.register(commands.presence.registration)
            _ = try await commands.presence.beat()
            #expect(try cache.count() == 3)
            await first.stop()
            var options = LoopSymphonyReferenceOptions.fast(seedKnowledge: false)
            options.port = port
            restarted = try await RunningLoopSymphonyServer.start(options)
            let entries = try await run(commands, "/knowledge", ["entries"])
            let cached = try await run(commands, "/knowledge", ["cached"])
            #expect(entries == "No entries.")
            #expect(cached == "Nothing cached.", "the cache agrees with the server: \(cached)")
            let sync = try await run(commands, "/knowledge", ["sync"])
            #expect(!sync.contains("version none") && sync.contains("the local cache was synced just now and holds 0 entries"), "\(sync)")
        } catch {
            await client.shutdown()
            await first.stop()
            await restarted?.stop()
            throw error
        }
        await client.shutdown()
        await restarted?.stop()
    }
}
