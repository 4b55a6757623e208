import Foundation
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionLoopSymphony
import NIOHTTP1
import ReceptionReferenceServers
import ReceptionTesting
import Synchronization
import Testing

/// The slash commands of a session on `client`, with no knowledge cache.
func sessionCommands(for client: LoopSymphonyClient) -> LoopSymphonyCommands {
    LoopSymphonyCommands(client: client, cache: nil, cacheProblem: nil,
                         presence: RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: nil),
                         log: RoomLog())
}

@Suite struct EndpointTests {
    @Test func threeHealthEndpoints() async throws {
        try await withServer { _, client in
            let quick = try await client.health.check()
            #expect(quick.status == "ok" && quick.version == "0.1.0" && quick.tools == nil)
            _ = try await client.tasks.submit(request("warm up", trust: 0))
            #expect(try await client.health.check().tools == ["claude", "tavily"])
            let system = try await client.health.system()
            #expect(system.status == "healthy" && system.uptimeSeconds != nil && system.components == .object([:]))
            let database = try await client.health.database()
            #expect(database.healthy && database.error == nil)
        }
    }

    /// Found against the real server: it uses the client's id as the row's key, so a second
    /// task with the same id is a plain-text 500. The reference server now does the same.
    @Test func aSecondTaskWithTheSameIDIsAServerError() async throws {
        try await withServer { _, client in
            let request = request("hello twice", trust: 1)
            _ = try await client.tasks.submit(request)
            let failure = await httpError { _ = try await client.tasks.submit(request) }
            #expect(failure?.status == 500 && failure?.detail == "Internal Server Error")
        }
    }

    /// The server answers a failed or cancelled task with a 500; the
    /// command says what happened to the task instead of showing the raw error.
    @Test func tasksGetSaysAFailedOrCancelledTaskPlainly() async throws {
        try await withServer(.fast(step: .milliseconds(250))) { _, client in
            let commands = sessionCommands(for: client)
            let failed = try await client.tasks.submit(request("please fail now", trust: 1))
            for try await _ in client.tasks.events(failed.taskID) {}
            let text = try await commands.tasks(["get", failed.taskID])
            #expect(text.hasPrefix("Task `\(failed.taskID)` failed:") && !text.contains("HTTP 500"), "\(text)")
            let slow = try await client.tasks.submit(request("slow research to cancel", trust: 1))
            _ = try await client.tasks.cancel(slow.taskID)
            // Asked again until the server has the cancel through (300 ms was not always enough).
            let cancelled = try await answer(within: .seconds(60)) { try await commands.tasks(["get", slow.taskID]) } until: { $0.contains("was cancelled") }
            #expect(cancelled.contains("was cancelled") && !cancelled.contains("HTTP 500"), "\(cancelled)")
        }
    }

    /// A plan awaiting approval is in no server list (they read the task manager, the plan
    /// waits in the database): `/tasks` says this session's from the backend, until approved
    /// or rejected.
    @Test func tasksListThisSessionsPlansAwaitingApproval() async throws {
        try await withServer { _, client in
            let backend = LoopSymphonyBackend(client: client)
            let commands = LoopSymphonyCommands(client: client, cache: nil, cacheProblem: nil,
                                                presence: RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: nil),
                                                log: RoomLog(), plansAwaitingApproval: { backend.plansAwaitingApproval })
            var planID: String?
            for try await event in backend.submit(ReceptionRequest(text: "research tide | tables", trustLevel: 0)) {
                if case .planAwaitingApproval(let plan) = event { planID = plan.taskID }
            }
            let id = try #require(planID)
            for listing in ["recent", "active"] {
                let text = try await commands.tasks([listing])
                #expect(text.contains("Awaiting your approval") && text.contains("| `\(id.prefix(8))` | research tide \\| tables |"), "\(listing): \(text)")
            }
            try await backend.reject(taskID: id)
            #expect(!(try await commands.tasks(["recent"])).contains("Awaiting your approval"))
        }
    }

    /// The task tables show ids cut to 8 characters: `/tasks get` and `checkpoints` take such a
    /// prefix, and one that names no task, or several, says so.
    @Test func tasksGetTakesTheShortIDTheTablesShow() async throws {
        try await withServer { _, client in
            let commands = sessionCommands(for: client)
            let task = try await client.tasks.submit(request("research tide tables", trust: 1))
            for try await _ in client.tasks.events(task.taskID) {}
            let recent = try await commands.tasks(["recent"])
            let short = String(task.taskID.prefix(8))
            #expect(recent.contains("`\(short)`"), "\(recent)")
            let answer = try await commands.tasks(["get", short])
            #expect(answer.contains("Reference research answer to: research tide tables"), "\(answer)")
            #expect(try await commands.tasks(["get", short.uppercased()]) == answer, "case does not matter")
            let checkpoints = try await commands.tasks(["checkpoints", short])
            #expect(checkpoints.hasPrefix("| # | phase"), "\(checkpoints)")
            await #expect { _ = try await commands.tasks(["get", "zzzzzzzz"]) } throws: { error in
                String(describing: error).contains("Task zzzzzzzz: no active or recent task id starts with it")
            }
            let other = try await client.tasks.submit(request("research tide clocks", trust: 1))
            for try await _ in client.tasks.events(other.taskID) {}
            await #expect { _ = try await commands.tasks(["get", ""]) } throws: { error in
                String(describing: error).contains("starts 2 task ids")
            }
        }
    }

    /// `/cancel ID` goes to the backend's cancel: it takes the short id too.
    @Test func cancelTakesTheShortIDTheTablesShow() async throws {
        try await withServer(.fast(step: .milliseconds(250)), { _, client in
            let slow = try await client.tasks.submit(request("slow research to cancel by its short id", trust: 1))
            try await LoopSymphonyBackend(client: client).cancel(taskID: String(slow.taskID.prefix(8)))
            let commands = sessionCommands(for: client)
            let state = try await answer(within: .seconds(60)) { try await commands.tasks(["get", String(slow.taskID.prefix(8))]) } until: { $0.contains("was cancelled") }
            #expect(state.contains("was cancelled"), "\(state)")
        })
    }

    /// Before any room synced, the sync status is one line, not a header over an empty list.
    @Test func knowledgeSyncWithNoRoomsIsOneLine() async throws {
        try await withServer { _, client in
            let commands = sessionCommands(for: client)
            let text = try await commands.knowledge(["sync"])
            #expect(text.hasPrefix("Server knowledge version **") && text.hasSuffix("No room has synced yet."), "\(text)")
            #expect(!text.contains("\n"), "\(text)")
        }
    }

    /// The server keys user knowledge by its internal id; with no argument
    /// the command finds the person's own through /trust/metrics instead of showing zeros.
    @Test func knowledgeUserWithoutAnIDShowsThePersonsOwn() async throws {
        try await withServer { _, client in
            let commands = sessionCommands(for: client)
            for n in 1...2 {
                let task = try await client.tasks.submit(request("hello number \(n)", trust: 1))
                for try await _ in client.tasks.events(task.taskID) {}
            }
            let own = try await commands.knowledge(["user"])
            #expect(own.contains("2 tasks") && own.contains("100% succeeded"), "\(own)")
            let external = try await commands.knowledge(["user", "tester"])
            #expect(external.contains("0 tasks"), "the X-User-Id is not the server's key: \(external)")
        }
    }

    /// /rooms status is shadowed on the real server (and the reference);
    /// the command says so and where to look instead of showing a raw 404.
    @Test func roomsStatusExplainsTheShadowedRoute() async throws {
        try await withServer { _, client in
            let commands = sessionCommands(for: client)
            let text = try await commands.rooms(["status"])
            #expect(text.contains("cannot answer /rooms/status") && text.contains("/rooms list"), "\(text)")
        }
    }

    @Test func checkpointsActiveRecentAndStats() async throws {
        try await withServer(.fast(step: .milliseconds(250))) { _, client in
            let backend = LoopSymphonyBackend(client: client)
            let done = try #require(result(in: try await collect(backend.submit(request("research checkpoints", trust: 1)))))
            let checkpoints = try await client.tasks.checkpoints(done.taskID!)
            #expect(checkpoints.map(\.iterationNum) == [1, 2, 3])
            #expect(checkpoints.allSatisfy { $0.phase == "iteration" && $0.taskID == done.taskID! && $0.createdAt?.hasSuffix("+00:00") == true })

            let slow = try await client.tasks.submit(request("slow research for the active list", trust: 1))
            var active = try await client.tasks.active()
            for _ in 0..<150 where active.first?.state != "running" {
                try await Task.sleep(for: .milliseconds(20))
                active = try await client.tasks.active()
            }
            #expect(active.map(\.taskID) == [slow.taskID])
            #expect(active.first?.state == "running" && active.first?.maxIterations == 8)
            let recent = try await client.tasks.recent(limit: 1)
            #expect(recent.map(\.taskID) == [slow.taskID])
            #expect(try await client.tasks.recent().count == 2)
            let stats = try await client.tasks.stats()
            #expect(stats.activeCount == 1 && stats.totalCount == 2)
            _ = try await client.tasks.cancel(slow.taskID)
        }
    }

    @Test func plansNovelArrangementsLoopProposalsAndSavedArrangements() async throws {
        try await withServer { _, client in
            let single = try await client.arrangements.plan(TaskRequest(query: "research rust"))
            #expect(single.type == "single" && single.instrument == "research")
            let sequential = try await client.arrangements.plan(TaskRequest(query: "find prices and compare them"))
            #expect(sequential.type == "sequential" && sequential.steps?.map(\.instrument) == ["research", "synthesis"])
            #expect(try await client.arrangements.validate(sequential).valid)
            var bogus = single
            bogus.instrument = "telepathy"
            let invalid = try await client.arrangements.validate(bogus)
            #expect(!invalid.valid && invalid.errors == ["Unknown instrument: telepathy"])

            let loop = try await client.arrangements.proposeLoop(TaskRequest(query: "fact check a claim"))
            #expect(loop.phases.map(\.name) == ["hypothesize", "gather", "analyze", "synthesize"])
            let validation = try await client.arrangements.validateLoop(loop)
            #expect(validation.valid && validation.scientificMethodCoverage == ["hypothesize": true, "gather": true, "analyze": true, "synthesize": true])
            let loopPlan = try await client.arrangements.loopPlan(loop)
            #expect(loopPlan.estimatedIterations == 4 && loopPlan.requiresApproval && loopPlan.proposal == loop)
            var tooShort = loop
            tooShort.phases = [loop.phases[0]]
            let short = await httpError { _ = try await client.arrangements.validateLoop(tooShort) }
            #expect(short?.status == 422 && short?.detail.hasPrefix("body phases: List should have at least 2 items") == true)

            let backend = LoopSymphonyBackend(client: client)
            let novel = try await client.tasks.submitNovel(request("research and summarize", trust: 1))
            #expect(novel.status == .pending && novel.message == "Novel arrangement task submitted")
            let novelEvents = try await collect(AsyncThrowingStream { continuation in
                Task {
                    do { try await backend.follow(novel.taskID, continuation: continuation); continuation.finish() } catch { continuation.finish(throwing: error) }
                }
            })
            #expect(result(in: novelEvents)?.raw?["metadata"]?["instrument_used"]?.stringValue == "novel:research")
            let loopTask = try await client.tasks.submitLoop(request("deep dive", trust: 1))
            #expect(loopTask.message == "Loop proposal task submitted")

            let fromTask = try await client.arrangements.saveFromTask(novel.taskID, name: "research-then-summarize", description: "two steps")
            #expect(fromTask.arrangementType == "composition" && fromTask.compositionSpec?.type == "sequential")
            let plain = try #require(result(in: try await collect(backend.submit(request("plain note", trust: 1)))))
            let notNovel = await httpError { _ = try await client.arrangements.saveFromTask(plain.taskID!, name: "x", description: "y") }
            #expect(notNovel?.status == 400 && notNovel?.detail == "Task was not executed with a novel arrangement or loop")

            let saved = try await client.arrangements.save(SaveArrangementRequest(name: "fact-check", description: "checks claims",
                                                                                  queryPatterns: ["is it true"], tags: ["verify"], loopSpec: loop))
            #expect(saved.arrangementType == "loop" && saved.loopSpec == loop && saved.stats?.totalExecutions == 0)
            let duplicate = await httpError { _ = try await client.arrangements.save(SaveArrangementRequest(name: "fact-check", description: "again", loopSpec: loop)) }
            #expect(duplicate?.status == 400 && duplicate?.detail == "Arrangement with name 'fact-check' already exists")
            #expect(try await client.arrangements.list().map(\.name) == ["research-then-summarize", "fact-check"])
            #expect(try await client.arrangements.get(saved.id).name == "fact-check")
            #expect(try await client.arrangements.suggestion() == nil)
            let deleted = try await client.arrangements.delete(saved.id)
            #expect(deleted.status == "deleted" && deleted.id == saved.id)
            let gone = await httpError { _ = try await client.arrangements.get(saved.id) }
            #expect(gone?.status == 404 && gone?.detail == "Arrangement \(saved.id) not found")
        }
    }

    @Test func trustMetricsSuggestionAndLevelNeverDowngradedByTheClient() async throws {
        try await withServer { _, client in
            let advisor = TrustAdvisor(client: client)
            #expect(try await advisor.offer() == nil)
            let backend = LoopSymphonyBackend(client: client)
            for n in 1...4 { _ = try await collect(backend.submit(request("question \(n)", trust: 1))) }
            #expect(try await advisor.offer() == nil)
            _ = try await collect(backend.submit(request("question 5", trust: 1)))
            let metrics = try await client.trust.metrics()
            #expect(metrics.totalTasks == 5 && metrics.successfulTasks == 5 && metrics.consecutiveSuccesses == 5 && metrics.currentTrustLevel == 0)
            #expect(metrics.userID != "tester" && metrics.userID != nil)  // the server's internal UUID
            let suggestion = try #require(try await client.trust.suggestion())
            #expect(suggestion.currentLevel == 0 && suggestion.suggestedLevel == 1 && suggestion.reason == "5 consecutive successes with 100% success rate")
            let offer = try #require(try await advisor.offer())
            #expect(offer.question == "5 successful tasks in a row. Enable semi-autonomous mode?")
            // Nothing changed until the person accepts.
            #expect(try await client.trust.metrics().currentTrustLevel == 0)
            #expect(try await advisor.accept(offer).currentTrustLevel == 1)
            #expect(try await advisor.offer() == nil)
            // A failure resets the streak; the level stays where the person put it.
            _ = try await collect(backend.submit(request("bounded question", trust: 1)))
            let after = try await client.trust.metrics()
            #expect(after.consecutiveSuccesses == 0 && after.failedTasks == 1 && after.currentTrustLevel == 1)
            let bad = await httpError { _ = try await client.trust.setLevel(3) }
            #expect(bad?.status == 422 && bad?.detail == "body trust_level: Input should be less than or equal to 2")
        }
    }

    @Test func authErrors401403And422() async throws {
        try await withServer(apiKey: "wrong-key") { _, client in
            let invalid = await httpError { _ = try await client.trust.metrics() }
            #expect(invalid?.status == 401 && invalid?.detail == "Invalid API key")
            // Optional-auth endpoints ignore a bad key.
            let anonymous = try await client.tasks.submit(request("anonymous", trust: 0))
            #expect(anonymous.status == .awaitingApproval)
        }
        try await withServer(apiKey: "inactive-key") { _, client in
            let inactive = await httpError { _ = try await client.heartbeats.list() }
            #expect(inactive?.status == 403 && inactive?.detail == "App is deactivated")
        }
        try await withServer(apiKey: nil) { _, client in
            let missing = await httpError { _ = try await client.trust.suggestion() }
            #expect(missing?.status == 422 && missing?.detail == "header x-api-key: Field required")
            let offer = try await TrustAdvisor(client: client).offer()
            #expect(offer == nil)
        }
    }

    @Test func knowledgeFilesEntriesUserKnowledgeAndLearnings() async throws {
        try await withServer { _, client in
            let capabilities = try await client.knowledge.file(.capabilities)
            #expect(capabilities.category == "capabilities" && capabilities.title == "Capabilities" && capabilities.entries.count == 2)
            #expect(capabilities.entries.allSatisfy { $0.version == 0 })  // as on the real server
            #expect(capabilities.markdown.hasPrefix("# Capabilities"))
            #expect(try await client.knowledge.file(.changelog).entries.isEmpty)
            let wrong = await httpError { _ = try await client.knowledge.file(.unknown("secrets")) }
            #expect(wrong?.status == 422)

            let entry = try await client.knowledge.createEntry(KnowledgeEntryCreate(category: "user", title: "Prefers short answers",
                                                                                   content: "Keep it brief", userID: "u-1", tags: ["style"]))
            #expect(entry.source == "manual" && entry.userID == "u-1" && entry.tags == ["style"])
            #expect(try await client.knowledge.entries(source: "manual").map(\.id) == [entry.id])
            #expect(try await client.knowledge.entries(category: "boundaries").count == 1)
            let user = try await client.knowledge.user("u-1")
            #expect(user.userID == "u-1" && user.entries.map(\.id) == [entry.id] && user.markdown?.contains("Keep it brief") == true)

            let accepted = try await client.knowledge.reportLearnings(LearningsReport(roomID: "room-a", learnings: [
                RoomLearning(category: "patterns", title: "User prefers concise answers", content: "Dismisses long replies", confidence: 0.7,
                             tags: ["user_preference"], roomID: "room-a"),
            ]))
            #expect(accepted.accepted == 1 && accepted.roomID == "room-a")
            let aggregated = try await client.knowledge.aggregate()
            #expect(aggregated.entriesCreated == 1 && aggregated.learningsProcessed == 1)
            #expect(try await client.knowledge.entries(source: "aggregated").first?.title == "User prefers concise answers")
            let refreshed = try await client.knowledge.refresh()
            #expect(refreshed.entriesCreated == 1 && refreshed.entriesRemoved == 0)
            #expect(try await client.knowledge.refresh().entriesRemoved == 1)
            let status = try await client.knowledge.syncStatus()
            #expect(status.serverVersion >= 7 && status.rooms.isEmpty)
        }
    }

    @Test func roomsRegisterHeartbeatListGetDeregister() async throws {
        try await withServer { _, client in
            let registration = RoomRegistration(roomID: "cli-test", roomName: "Test room", roomType: "cli", url: "http://127.0.0.1:1/",
                                                capabilities: ["personality"], instruments: [])
            let registered = try await client.rooms.register(registration)
            #expect(registered.status == "registered" && registered.roomType == "cli")
            let beat = try await client.rooms.heartbeat(RoomHeartbeat(roomID: "cli-test"))
            #expect(beat.status == "ok" && beat.knowledgeUpdates == nil)
            let list = try await client.rooms.list()
            #expect(Set(list.rooms.map(\.roomID)) == ["server", "cli-test"] && list.stats?.onlineRooms == 2)
            let room = try await client.rooms.get("cli-test")
            #expect(room.registeredAt != nil && room.status == "online" && room.lastHeartbeat?.hasSuffix("+00:00") == true)
            let shadowed = await httpError { _ = try await client.rooms.degradationStatus() }
            #expect(shadowed?.status == 404 && shadowed?.detail == "Room not found: status")
            #expect(try await client.rooms.deregister("cli-test").status == "deregistered")
            #expect(try await client.rooms.deregister("cli-test").status == "not_found")
            let unknown = await httpError { _ = try await client.rooms.heartbeat(RoomHeartbeat(roomID: "cli-test")) }
            #expect(unknown?.status == 404 && unknown?.detail == "Room not found: cli-test. Please re-register.")
        }
    }

    @Test func scheduledHeartbeatsCrudTickAndStatus() async throws {
        try await withServer { _, client in
            let created = try await client.heartbeats.create(HeartbeatCreate(name: "Morning Briefing",
                query_template_value: "What happened on {date}?", cronExpression: "0 7 * * *"))
            #expect(created.timezone == "UTC" && created.isActive && created.contextTemplate == .object([:]))
            #expect(try await client.heartbeats.list().map(\.id) == [created.id])
            #expect(try await client.heartbeats.get(created.id).name == "Morning Briefing")
            let updated = try await client.heartbeats.update(created.id, HeartbeatUpdate(name: "Evening Briefing", cronExpression: "30 18 * * 1-5"))
            #expect(updated.name == "Evening Briefing" && updated.cronExpression == "30 18 * * 1-5" && updated.queryTemplate == "What happened on {date}?")
            let status = try await client.heartbeats.status()
            #expect(status.heartbeats.first?.isDue == true && status.heartbeats.first?.nextScheduled?.contains("T18:30:00") == true)
            let tick = try await client.heartbeats.tick()
            #expect(tick.processed.count == 1 && tick.totalActive == 1 && tick.skipped.isEmpty)
            let second = try await client.heartbeats.tick()
            #expect(second.processed.isEmpty && second.skipped.first?.reason == "Not due yet")
            _ = try await client.heartbeats.update(created.id, HeartbeatUpdate(isActive: false))
            #expect(try await client.heartbeats.status().heartbeats.isEmpty)
            try await client.heartbeats.delete(created.id)
            let gone = await httpError { _ = try await client.heartbeats.get(created.id) }
            #expect(gone?.status == 404 && gone?.detail == "Heartbeat not found")
            let notUUID = await httpError { _ = try await client.heartbeats.get("not-a-uuid") }
            #expect(notUUID?.status == 422 && notUUID?.detail.hasPrefix("path heartbeat_id: Input should be a valid UUID") == true)
        }
    }

    @Test func interventionsStatusAndEvaluate() async throws {
        try await withServer { _, client in
            let status = try await client.interventions.status()
            #expect(status.maxInterventions == 3 && status.availableInstruments == ["note", "research", "synthesis", "vision"])
            let evaluated = try await client.interventions.evaluate(InterventionEvaluateRequest(query: "tell me everything? and also why?", trustLevel: 1))
            #expect(evaluated.count == 2 && evaluated.interventions.map(\.type) == [.pushback, .scoping])
            let none = try await client.interventions.evaluate(InterventionEvaluateRequest(query: "research the moon", trustLevel: 2))
            #expect(none.count == 0)
        }
    }

    @Test func unknownRoutesAndMethods() async throws {
        try await withServer { _, client in
            let transport = client.transport
            let notFound = await httpError { _ = try await transport.json(JSONValue.self, .GET, "/nowhere", auth: .none) }
            #expect(notFound?.status == 404 && notFound?.detail == "Not Found")
            let method = await httpError { _ = try await transport.json(JSONValue.self, .DELETE, "/health", auth: .none) }
            #expect(method?.status == 405 && method?.detail == "Method Not Allowed")
        }
    }
}

extension HeartbeatCreate {
    init(name: String, query_template_value: String, cronExpression: String) {
        self.init(name: name, queryTemplate: query_template_value, cronExpression: cronExpression)
    }
}


/// "learnings reported while offline are queued the same way".
@Suite("Learnings made while the server cannot be reached")
struct PendingLearningTests {
    func commands(_ client: LoopSymphonyClient, cache: KnowledgeCache, presence: RoomPresence) -> LoopSymphonyCommands {
        LoopSymphonyCommands(client: client, cache: cache, cacheProblem: nil, presence: presence, log: RoomLog())
    }

    @Test func aLearningMadeOfflineIsKeptAndReportedAtTheNextHeartbeat() async throws {
        let cache = try KnowledgeCache(path: ":memory:")
        let nowhere = LoopSymphonyClient(configuration: LoopSymphonyConfiguration(baseURL: refusingLoopbackURL(), apiKey: "dev-key", userID: "tester"))
        let offline = commands(nowhere, cache: cache, presence: RoomPresence(client: nowhere, registration: RoomPresence.defaultRegistration(), cache: cache))
        let kept = try await offline.knowledge(["learn", "Prefers", "tables", "--", "Likes", "answers", "as", "tables"])
        #expect(kept.hasPrefix("Loop Symphony cannot be reached (connection refused"), "\(kept)")
        #expect(kept.contains("The learning is kept here (1 waiting)"), "\(kept)")
        _ = try await offline.knowledge(["learn", "Mornings", "--", "Asks", "for", "news", "at", "seven"])
        #expect(try cache.pendingLearnings().map(\.title) == ["Prefers tables", "Mornings"])
        await nowhere.shutdown()

        try await withServer { _, client in
            let presence = RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: cache)
            _ = try await client.rooms.register(presence.registration)
            try await presence.beat()
            #expect(try cache.pendingLearnings().isEmpty, "reported once the server answered")
            let aggregated = try await commands(client, cache: cache, presence: presence).knowledge(["aggregate"])
            #expect(aggregated.contains("Aggregated 2 learnings"), "both reached the server, once: \(aggregated)")
        }
    }

    @Test func theNextLearnReportsTheKeptOnesFirst() async throws {
        let cache = try KnowledgeCache(path: ":memory:")
        try cache.keepLearning(category: "patterns", title: "Kept earlier", content: "Made offline", observedAt: "2026-11-26T10:00:00Z")
        try await withServer { _, client in
            let presence = RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: cache)
            let text = try await commands(client, cache: cache, presence: presence).knowledge(["learn", "Now", "--", "Made", "online"])
            #expect(text.contains("accepted 1 learning ") && text.contains("It also accepted 1 kept while it could not be reached."), "\(text)")
            #expect(try cache.pendingLearnings().isEmpty)
        }
    }
}

@Suite("Room presence after an offline start")
struct OfflineRoomPresenceTests {
    /// A session that started while the server could not be reached joins as a room once it
    /// answers (before, the room loop gave up at the first failed registration).
    @Test func theRoomRegistersOnceTheServerAnswers() async throws {
        let port = try unusedLoopbackPort()
        let client = LoopSymphonyClient(configuration: LoopSymphonyConfiguration(baseURL: "http://127.0.0.1:\(port)", apiKey: "dev-key", userID: "tester"))
        let events = Mutex<[RoomPresence.Event]>([])
        let presence = RoomPresence(client: client, registration: RoomPresence.defaultRegistration(), cache: nil,
                                    interval: .milliseconds(50)) { event in events.withLock { $0.append(event) } }
        let room = Task { try await presence.run() }
        // Up to a minute each: a loaded machine can take seconds over a refused connection.
        for _ in 0..<3_000 where !events.withLock({ $0.contains { if case .registrationFailed = $0 { true } else { false } } }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        var options = LoopSymphonyReferenceOptions.fast()
        options.port = port
        let server = try await RunningLoopSymphonyServer.start(options)
        for _ in 0..<3_000 where !events.withLock({ $0.contains(.registered(roomID: presence.registration.roomID)) }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let seen = events.withLock { $0 }
        #expect(seen.contains { if case .registrationFailed(let why) = $0 { why.contains("connection refused") } else { false } }, "\(seen)")
        #expect(seen.contains(.registered(roomID: presence.registration.roomID)), "\(seen)")
        room.cancel()
        _ = try? await room.value
        await client.shutdown()
        await server.stop()
    }
}
