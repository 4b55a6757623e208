import Foundation
import ReceptionCore

/// Slash commands a Loop Symphony backend adds to the REPL. Each returns Markdown.
///
/// | command | does |
/// |---|---|
/// | `/tasks [active \| recent [N] \| stats \| get ID \| checkpoints ID]` | the server's task manager |
/// | `/trust-metrics [set LEVEL]` | metrics and upgrade suggestion; `set` is the person's explicit choice |
/// | `/knowledge [FILE \| entries [CATEGORY] \| user ID \| add CATEGORY TITLE -- CONTENT \| learn TITLE -- CONTENT \| refresh \| aggregate \| sync \| cached [TEXT]]` | knowledge files, entries, learnings, local cache |
/// | `/rooms [list \| get ID \| status \| beat \| log]` | room registry and this session's room |
/// | `/heartbeats [list \| get ID \| create NAME \| CRON \| QUERY \| pause ID \| resume ID \| cron ID EXPR \| delete ID \| tick \| status]` | scheduled tasks |
/// | `/arrangements [plan QUERY \| list \| get ID \| delete ID \| suggestion \| save-from-task ID NAME -- DESCRIPTION]` | plans and saved arrangements |
/// | `/loops [propose QUERY \| plan QUERY]` and `/novel QUERY`, `/loop-task QUERY` | loop proposals, novel and loop submissions |
/// | `/interventions [status \| evaluate QUERY]` | the intervention engine |
/// | `/health` | the three health endpoints |
public struct LoopSymphonyCommands: Sendable {
    let client: LoopSymphonyClient
    let cache: KnowledgeCache?
    /// Why `cache` is nil, for the person who asks for it.
    let cacheProblem: String?
    let presence: RoomPresence
    let log: RoomLog
    /// This session's plans awaiting approval (the server lists none of them).
    let plansAwaitingApproval: @Sendable () -> [(taskID: String, query: String)]

    public init(client: LoopSymphonyClient, cache: KnowledgeCache?, cacheProblem: String?, presence: RoomPresence, log: RoomLog,
                plansAwaitingApproval: @escaping @Sendable () -> [(taskID: String, query: String)] = { [] }) {
        self.plansAwaitingApproval = plansAwaitingApproval
        self.client = client
        self.cache = cache
        self.cacheProblem = cacheProblem
        self.presence = presence
        self.log = log
    }

    public var all: [BackendCommand] {
        commands.map { command in
            // The server's raw refusals (a missing API key, an id of the wrong form) in words.
            var command = command
            let run = command.run
            let baseURL = client.configuration.baseURL
            command.run = { arguments in
                do { return try await run(arguments) } catch { throw Self.inWords(error, baseURL: baseURL) }
            }
            return command
        }
    }

    static func inWords(_ error: any Error, baseURL: String) -> any Error {
        if LoopSymphonyWording.isMissingAPIKey(error) { return UsageError(description: LoopSymphonyWording.missingAPIKey(baseURL: baseURL)) }
        if LoopSymphonyWording.isInvalidUUIDPath(error), case BackendError.http(_, let detail)? = error as? BackendError {
            return UsageError(description: "The server takes only ids of the form 3f2c1d9e-5b7a-4c1e-9d2f-0a1b2c3d4e5f there; the list command shows them (it said: \(detail)).")
        }
        return error
    }

    var commands: [BackendCommand] {
        [
            BackendCommand(name: "/tasks", arguments: "[active | recent | stats | …]", summary: "server tasks: active, recent, stats, get, checkpoints",
                          usage: "/tasks [active | recent [N] | stats | get ID | checkpoints ID]\n\nID may be the 8 characters the task tables show, or any start of the id that names one task.") { try await tasks($0) },
            BackendCommand(name: "/trust-metrics", arguments: "[set LEVEL]", summary: "trust metrics and upgrade suggestion from the server",
                          usage: "/trust-metrics            metrics and any upgrade suggestion\n/trust-metrics set LEVEL  set the server-side trust level (0, 1 or 2)") { try await trust($0) },
            BackendCommand(name: "/knowledge", arguments: "[TOPIC | entries | …]", summary: "server knowledge files, entries, learnings and the local cache",
                          usage: """
                          /knowledge [capabilities | boundaries | patterns | changelog]
                          /knowledge entries [CATEGORY]      /knowledge user [ID]   (yours without an ID)
                          /knowledge add CATEGORY TITLE -- CONTENT
                          /knowledge learn TITLE -- CONTENT  (report a learning from this room)
                          /knowledge refresh | aggregate | sync
                          /knowledge cached [TEXT]           (the local SQLite cache)
                          """) { try await knowledge($0) },
            BackendCommand(name: "/rooms", arguments: "[list | get ID | status | …]", summary: "rooms registered on the server and this session's room",
                          usage: "/rooms [list | get ID | status | beat | log]") { try await rooms($0) },
            BackendCommand(name: "/heartbeats", arguments: "[list | get ID | …]", summary: "scheduled tasks (heartbeats) on the server",
                          usage: """
                          /heartbeats [list | status | tick]
                          /heartbeats get ID | pause ID | resume ID | delete ID
                          /heartbeats cron ID EXPRESSION
                          /heartbeats create NAME | CRON | QUERY TEMPLATE   (e.g. Morning | 0 7 * * * | News for {date}?)
                          """) { try await heartbeats($0) },
            BackendCommand(name: "/arrangements", arguments: "[plan QUERY | …]", summary: "arrangement plans and saved arrangements",
                          usage: "/arrangements [plan QUERY | list | get ID | delete ID | suggestion | save-from-task ID NAME -- DESCRIPTION]") { try await arrangements($0) },
            BackendCommand(name: "/loops", arguments: "propose | plan QUERY", summary: "propose a new loop type for a query and show its plan",
                          usage: "/loops propose QUERY | /loops plan QUERY") { try await loops($0) },
            BackendCommand(name: "/novel", arguments: "QUERY", summary: "submit a task with a novel arrangement (the server composes instruments)",
                          usage: "/novel QUERY") { try await submitSpecial($0, loop: false) }.keptInTranscript(),
            BackendCommand(name: "/loop-task", arguments: "QUERY", summary: "submit a task the server solves with a loop it designs",
                          usage: "/loop-task QUERY") { try await submitSpecial($0, loop: true) }.keptInTranscript(),
            BackendCommand(name: "/interventions", arguments: "[evaluate QUERY]", summary: "intervention engine status or a dry-run evaluation",
                          usage: "/interventions [status | evaluate QUERY]") { try await interventions($0) },
            BackendCommand(name: "/health", summary: "the server's three health endpoints",
                          usage: "/health") { _ in try await health() },
        ]
    }

    // MARK: Tasks

    func tasks(_ args: [String]) async throws -> String {
        switch args.first ?? "active" {
        case "active":
            return table(try await client.tasks.active(), empty: "Nothing is running on the server.") + awaitingApproval()
        case "recent":
            return table(try await client.tasks.recent(limit: args.dropFirst().first.flatMap(Int.init) ?? 20), empty: "No recent tasks.") + awaitingApproval()
        case "stats":
            let stats = try await client.tasks.stats()
            return "**\(stats.activeCount)** active, **\(stats.totalCount)** in total."
        case "get":
            let id = try await client.tasks.fullID(try argument(args, 1, "a task id"))
            let answer: TaskState
            do {
                answer = try await client.tasks.get(id)
            } catch BackendError.http(let status, let detail) where status == 500 && detail.hasPrefix("Task failed") {
                // The server reports a failed (or cancelled) task as a 500: a state, not an error.
                if let plain = LoopSymphonyWording.plainTaskFailure(detail) { return "Task `\(id)`: " + plain }
                let reason = detail.dropFirst("Task failed".count).drop { $0 == ":" || $0 == " " }
                return "Task `\(id)` failed: \(reason)"
            }
            switch answer {
            case .finished(let r):
                return "**\(r.outcome)** (confidence \(percent(r.confidence))) — \(r.summary)\n\n" + r.findings.map { "- \($0.content)" }.joined(separator: "\n")
            case .inProgress(let p):
                return "Task `\(p.taskID)`: \(p.status) — \(p.progress ?? "")"
            }
        case "checkpoints":
            let list = try await client.tasks.checkpoints(try await client.tasks.fullID(try argument(args, 1, "a task id")))
            guard !list.isEmpty else { return "No checkpoints (the task has not iterated)." }
            return "| # | phase | ms | output |\n|---|---|---|---|\n" + list.map {
                "| \($0.iterationNum) | \($0.phase) | \($0.durationMS.map(String.init) ?? "") | \(compact($0.output)) |"
            }.joined(separator: "\n")
        default:
            throw usage("/tasks [active | recent [N] | stats | get ID | checkpoints ID]")
        }
    }

    /// The plans of this session still awaiting approval, after a task table: the server keeps
    /// them in its database, not in the task manager its lists read, so they were nowhere.
    func awaitingApproval() -> String {
        let plans = plansAwaitingApproval()
        guard !plans.isEmpty else { return "" }
        return "\n\nAwaiting your approval (plans this session was given; the server's lists leave them out):\n\n"
            + "| task | query |\n|---|---|\n"
            + plans.map { "| `\($0.taskID.prefix(8))` | \($0.query.replacingOccurrences(of: "|", with: "\\|")) |" }.joined(separator: "\n")
            + "\n\n/approve runs the latest; /reject drops it."
    }

    func table(_ tasks: [ManagedTask], empty: String) -> String {
        guard !tasks.isEmpty else { return empty }
        return "| task | state | progress | query |\n|---|---|---|---|\n" + tasks.map {
            "| `\($0.taskID.prefix(8))` | \($0.state) | \($0.progress ?? "") | \($0.query) |"
        }.joined(separator: "\n")
    }

    // MARK: Trust

    func trust(_ args: [String]) async throws -> String {
        if args.first == "set" {
            guard let level = args.dropFirst().first.flatMap(Int.init) else { throw usage("/trust-metrics set LEVEL (0, 1 or 2)") }
            let metrics = try await client.trust.setLevel(level)
            return "Server trust level set to **\(metrics.currentTrustLevel)** (\(TrustAdvisor.levelName(metrics.currentTrustLevel))). Use `/trust \(level)` for this session's requests."
        }
        let m = try await client.trust.metrics()
        var text = """
        | metric | value |
        |---|---|
        | trust level | \(m.currentTrustLevel) (\(TrustAdvisor.levelName(m.currentTrustLevel))) |
        | tasks | \(m.totalTasks) (\(m.successfulTasks) succeeded, \(m.failedTasks) did not) |
        | success rate | \(percent(m.successRate)) |
        | streak | \(m.consecutiveSuccesses) in a row |
        | last task | \(m.lastTaskAt ?? "never") |
        """
        if let suggestion = try await client.trust.suggestion() {
            text += "\n\nThe server suggests level **\(suggestion.suggestedLevel)**: \(suggestion.reason). `/trust-metrics set \(suggestion.suggestedLevel)` to accept."
        }
        return text
    }

    // MARK: Knowledge

    func knowledge(_ args: [String]) async throws -> String {
        let sub = args.first ?? "capabilities"
        if let category = KnowledgeCategory(userInput: sub), category != .user {
            let file = try await client.knowledge.file(category)
            return file.entries.isEmpty ? "# \(file.title)\n\n_No entries yet._" : file.markdown
        }
        switch sub {
        case "entries":
            let list = try await client.knowledge.entries(category: args.dropFirst().first)
            return list.isEmpty ? "No entries." : list.map { "- **\($0.title)** (\($0.category), \($0.source ?? "?")) — \($0.content)" }.joined(separator: "\n")
        case "user":
            // The server keys this by its internal user id (the `user_id` of /trust/metrics),
            // not by the X-User-Id this client sends: with no argument, ask it for ours.
            let id: String
            if args.count > 1 {
                id = args[1]
            } else {
                guard let own = try await client.trust.metrics().userID else {
                    throw UsageError(description: "The server has no user for this session: set user_id in the profile (sent as X-User-Id), or give an id.")
                }
                id = own
            }
            let user = try await client.knowledge.user(id)
            let head = "User `\(user.userID)`: trust level \(user.trustLevel ?? 0), \(Counted.phrase(user.totalTasks ?? 0, "task"))"
                + (user.successRate.map { ", \(percent($0)) succeeded" } ?? "") + "."
            let body = user.entries.isEmpty ? "_No knowledge entries for this user._" : user.entries.map { "- **\($0.title)** — \($0.content)" }.joined(separator: "\n")
            return head + "\n\n" + body
        case "add":
            let (head, content) = split(Array(args.dropFirst()))
            guard head.count >= 2, !content.isEmpty else { throw usage("/knowledge add CATEGORY TITLE -- CONTENT") }
            let entry = try await client.knowledge.createEntry(KnowledgeEntryCreate(category: head[0], title: head.dropFirst().joined(separator: " "), content: content))
            return "Added **\(entry.title)** to \(entry.category) (`\(entry.id)`)."
        case "learn":
            let (head, content) = split(Array(args.dropFirst()))
            guard !head.isEmpty, !content.isEmpty else { throw usage("/knowledge learn TITLE -- CONTENT") }
            let roomID = presence.registration.roomID
            let title = head.joined(separator: " ")
            let observed = Wire.timestamp()
            do {
                // Learnings kept while the server could not be reached go first, in order.
                let earlier = try await cache?.reportPendingLearnings(with: client, roomID: roomID) ?? 0
                let accepted = try await client.knowledge.reportLearnings(LearningsReport(roomID: roomID, learnings: [
                    RoomLearning(category: "patterns", title: title, content: content, roomID: roomID, observedAt: observed),
                ]))
                return "The server accepted \(Counted.phrase(accepted.accepted, "learning")) from \(accepted.roomID)."
                    + (earlier > 0 ? " It also accepted \(earlier) kept while it could not be reached." : "")
            } catch BackendError.unreachable(let url, let reason) {
                guard let cache else { throw BackendError.unreachable(url: url, reason: reason) }
                let waiting = try cache.keepLearning(category: "patterns", title: title, content: content, observedAt: observed)
                return "Loop Symphony cannot be reached (\(reason)). The learning is kept here (\(waiting) waiting) and reported when the server answers: at the next heartbeat or `/knowledge learn`."
            }
        case "refresh":
            let r = try await client.knowledge.refresh()
            return "Refreshed from \(r.sourcesRefreshed.joined(separator: ", ")): \(r.entriesCreated) created, \(r.entriesUpdated) updated, \(r.entriesRemoved) removed."
        case "aggregate":
            let r = try await client.knowledge.aggregate()
            return "Aggregated \(Counted.phrase(r.learningsProcessed, "learning")): \(r.entriesCreated) created, \(r.entriesUpdated) updated."
        case "sync":
            // Syncs now (a heartbeat), then says where the server and the cache stand.
            let synced = await syncNow()
            let status = try await client.knowledge.syncStatus()
            var head = "Server knowledge version **\(status.serverVersion)**"
            if let cache {
                let entries = try cache.count()
                let count = Counted.phrase(entries, "entry", plural: "entries")
                head += synced == nil
                    ? "; the local cache was synced just now and holds \(count)."
                    : "; the local cache could not be synced now (\(synced!)) and holds \(count) from its last sync."
            } else {
                head += "; \(cacheProblem ?? "there is no local knowledge cache in this session")."
            }
            // No rooms: the header alone, not followed by an empty list (two blank lines).
            guard !status.rooms.isEmpty else { return head + " No room has synced yet." }
            return head + "\n\n" + status.rooms.map { "- \($0.roomID)\($0.roomID == presence.registration.roomID ? " (this session)" : ""): synced to \($0.lastSyncedVersion) at \($0.lastSyncAt ?? "?")" }.joined(separator: "\n")
        case "cached":
            guard let cache else { return cacheProblem ?? "There is no local knowledge cache in this session." }
            // The cache is brought up to date first when the server answers (a server restarted
            // with an empty store would otherwise still be listed as it was).
            let unsynced = await syncNow()
            let text = args.dropFirst().joined(separator: " ")
            let entries = text.isEmpty ? try cache.entries() : try cache.search(text)
            let caveat = unsynced.map { "\n\n_The server could not be reached (\($0)): this is the cache as it was last synced._" } ?? ""
            return (entries.isEmpty ? "Nothing cached\(text.isEmpty ? "" : " for “\(text)”")." :
                entries.map { "- **\($0.title)** (\($0.category), v\($0.version)) — \($0.content)" }.joined(separator: "\n")) + caveat
        default:
            throw usage("/knowledge [capabilities | boundaries | patterns | changelog | entries | user ID | add | learn | refresh | aggregate | sync | cached]")
        }
    }

    // MARK: Rooms

    func rooms(_ args: [String]) async throws -> String {
        switch args.first ?? "list" {
        case "list":
            let list = try await client.rooms.list()
            return "| room | type | status | capabilities |\n|---|---|---|---|\n" + list.rooms.map {
                "| \($0.roomID)\($0.roomID == presence.registration.roomID ? " (this session)" : "") | \($0.roomType) | \($0.status) | \($0.capabilities.joined(separator: ", ")) |"
            }.joined(separator: "\n")
        case "get":
            let room = try await client.rooms.get(try argument(args, 1, "a room id"))
            return "**\(room.roomName)** (`\(room.roomID)`, \(room.roomType)) is \(room.status); last heartbeat \(room.lastHeartbeat ?? "?")."
        case "status":
            do {
                return "```json\n\(Wire.jsonString(try await client.rooms.degradationStatus(), pretty: true))\n```"
            } catch BackendError.http(let status, _) where status == 404 {
                // At 1917bde the route /rooms/{room_id} is declared first and catches "status".
                return "This server cannot answer /rooms/status: its /rooms/{id} route catches the path (a known fault of Loop Symphony at 1917bde). `/rooms list` shows every room and its status."
            }
        case "beat":
            let response = try await presence.beat()
            if let updates = response.knowledgeUpdates {
                return "Heartbeat sent; knowledge now at version \(updates.serverVersion) (\(updates.entries.count) updated, \(updates.removedIDs.count) removed)."
            }
            return "Heartbeat sent; no knowledge changes."
        case "log":
            let log = self.log.recent
            return log.isEmpty ? "No room events yet." : log.map { "- \(Wire.timestamp($0.0)): \(describe($0.1))" }.joined(separator: "\n")
        default:
            throw usage("/rooms [list | get ID | status | beat | log]")
        }
    }

    func describe(_ event: RoomPresence.Event) -> String {
        switch event {
        case .registered(let id): "registered \(id)"
        case .reregistered(let id): "registered \(id) again (the server had forgotten it)"
        case .heartbeat(_, let version, let up, let removed): "heartbeat" + (version.map { ", knowledge v\($0): \(up) updated, \(removed) removed" } ?? "")
        case .failed(let why): "heartbeat failed: \(why)"
        case .registrationFailed(let why): "registering failed (tried again at the next beat): \(why)"
        case .learningsReported(let count): "reported \(Counted.phrase(count, "learning")) kept while the server could not be reached"
        case .deregistered(let id, let status): "deregistered \(id) (\(status))"
        }
    }

    // MARK: Heartbeats (scheduled tasks)

    func heartbeats(_ args: [String]) async throws -> String {
        switch args.first ?? "list" {
        case "list":
            let list = try await client.heartbeats.list()
            return list.isEmpty ? "No heartbeats. Create one: `/heartbeats create Morning | 0 7 * * * | News for {date}?`" :
                "| id | name | cron | active | query |\n|---|---|---|---|---|\n" + list.map {
                    "| `\($0.id)` | \($0.name) | `\($0.cronExpression)` \($0.timezone) | \($0.isActive ? "yes" : "no") | \($0.queryTemplate) |"
                }.joined(separator: "\n")
        case "get":
            let h = try await client.heartbeats.get(try heartbeatID(args))
            return "**\(h.name)** `\(h.cronExpression)` (\(h.timezone)), \(h.isActive ? "active" : "paused"): \(h.queryTemplate)"
        case "create":
            let parts = args.dropFirst().joined(separator: " ").split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { throw usage("/heartbeats create NAME | CRON | QUERY TEMPLATE") }
            // The server stores any text and then never runs it: refused here, before it is sent.
            if let problem = CronExpression.problem(parts[1]) { throw UsageError(description: problem + " Nothing was sent.") }
            let h = try await client.heartbeats.create(HeartbeatCreate(name: parts[0], queryTemplate: parts[2], cronExpression: parts[1]))
            return "Created heartbeat **\(h.name)** (`\(h.id)`), runs at `\(h.cronExpression)` \(h.timezone)."
        case "pause", "resume":
            let h = try await client.heartbeats.update(try heartbeatID(args), HeartbeatUpdate(isActive: args[0] == "resume"))
            return "**\(h.name)** is now \(h.isActive ? "active" : "paused")."
        case "cron":
            let id = try heartbeatID(args)
            let expression = args.dropFirst(2).joined(separator: " ")
            guard !expression.isEmpty else { throw usage("/heartbeats cron ID EXPRESSION") }
            if let problem = CronExpression.problem(expression) { throw UsageError(description: problem + " The heartbeat keeps its schedule.") }
            let h = try await client.heartbeats.update(id, HeartbeatUpdate(cronExpression: expression))
            return "**\(h.name)** now runs at `\(h.cronExpression)`."
        case "delete":
            try await client.heartbeats.delete(try heartbeatID(args))
            return "Deleted."
        case "tick":
            let r = try await client.heartbeats.tick()
            return Self.tickReport(r)
        case "status":
            let s = try await client.heartbeats.status()
            return s.heartbeats.isEmpty ? "No active heartbeats." : "| name | cron | last run | next | due |\n|---|---|---|---|---|\n" + s.heartbeats.map {
                "| \($0.name) | `\($0.cronExpression)` | \($0.lastRunAt ?? "never") | \($0.nextScheduled ?? "?") | \($0.isDue ? "yes" : "no") |"
            }.joined(separator: "\n")
        default:
            throw usage("/heartbeats [list | get ID | create NAME | CRON | QUERY | pause ID | resume ID | cron ID EXPR | delete ID | tick | status]")
        }
    }

    /// The heartbeat id in `args[1]`, checked for the form the server's ids have (it answered
    /// anything else with a 422 about a "path parameter").
    func heartbeatID(_ args: [String]) throws -> String {
        let id = try argument(args, 1, "a heartbeat id (/heartbeats list shows them)")
        guard LoopSymphonyWording.isUUID(id) else {
            throw UsageError(description: "“\(id)” is not a heartbeat id: they look like 3f2c1d9e-5b7a-4c1e-9d2f-0a1b2c3d4e5f. /heartbeats list shows them.")
        }
        return id
    }

    /// What one tick ran and how each ended, then what it skipped and why.
    static func tickReport(_ r: HeartbeatTickResult) -> String {
        guard r.totalActive > 0 else { return "No active heartbeats: nothing to run." }
        var lines = ["Ran \(r.processed.count) of \(Counted.phrase(r.totalActive, "active heartbeat"))" + (r.processed.isEmpty ? "." : ":")]
        for run in r.processed {
            let name = run["heartbeat_name"]?.stringValue ?? run["heartbeat_id"]?.stringValue ?? "a heartbeat"
            let task = run["task_id"]?.stringValue.map { " (task `\($0.prefix(8))`)" } ?? ""
            switch run["status"]?.stringValue {
            case "completed"?:
                let outcome = run["outcome"]?.stringValue.map { "ended \($0)" } ?? "completed"
                let summary = run["summary"]?.stringValue.map { ": \(TerminalText.line($0, limit: 160))" } ?? ""
                lines.append("- **\(name)**\(task) \(outcome)\(summary)")
            case "failed"?:
                let error = run["error"]?.stringValue.map { ": \(TerminalText.line($0, limit: 160))" } ?? ""
                lines.append("- **\(name)**\(task) failed\(error)")
            case let status?:
                lines.append("- **\(name)**\(task): \(status)\(status == "started" ? "; /tasks get shows how it ends" : "")")
            case nil:
                lines.append("- **\(name)**\(task) ran")
            }
        }
        lines += r.skipped.map { "- skipped **\($0.heartbeatName)**: \($0.reason.lowercased())" }
        return lines.joined(separator: "\n")
    }

    /// One heartbeat now (it syncs the knowledge cache); nil when it went through, else why not.
    func syncNow() async -> String? {
        do {
            _ = try await presence.beat()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    // MARK: Arrangements, loops, novel tasks

    func arrangements(_ args: [String]) async throws -> String {
        switch args.first ?? "list" {
        case "plan":
            let query = try rest(args, "/arrangements plan QUERY")
            let p = try await client.arrangements.plan(TaskRequest(query: query))
            let validation = try await client.arrangements.validate(p)
            var text = "**\(p.type)** arrangement: \(p.rationale)\n\n"
            if let i = p.instrument { text += "- instrument: \(i)\n" }
            if let steps = p.steps { text += "- steps: " + steps.map(\.instrument).joined(separator: " → ") + "\n" }
            if let branches = p.branches { text += "- in parallel: " + branches.joined(separator: ", ") + ", merged by \(p.mergeInstrument ?? "synthesis")\n" }
            text += "- done when: \(p.terminationCriteria)\n- validation: \(validation.valid ? "valid" : "invalid")"
            text += (validation.errors + validation.warnings).map { "\n  - \($0)" }.joined()
            return text
        case "list":
            let list = try await client.arrangements.list()
            return list.isEmpty ? "No saved arrangements." : list.map { "- **\($0.name)** (`\($0.id)`, \($0.arrangementType)) — \($0.description)" }.joined(separator: "\n")
        case "get":
            let a = try await client.arrangements.get(try argument(args, 1, "an arrangement id"))
            return "**\(a.name)** (\(a.arrangementType)) — \(a.description)\n\n```json\n\(Wire.jsonString(a, pretty: true))\n```"
        case "delete":
            let d = try await client.arrangements.delete(try argument(args, 1, "an arrangement id"))
            return "Arrangement `\(d.id)` \(d.status)."
        case "suggestion":
            guard let s = try await client.arrangements.suggestion() else { return "The server has no arrangement to suggest saving." }
            return "Suggested: **\(s.suggestedName)** — \(s.reason) (\(percent(s.successRate)) success over \(s.executionCount) runs)."
        case "save-from-task":
            let id = try argument(args, 1, "a task id")
            let (head, description) = split(Array(args.dropFirst(2)))
            guard !head.isEmpty, !description.isEmpty else { throw usage("/arrangements save-from-task ID NAME -- DESCRIPTION") }
            let saved = try await client.arrangements.saveFromTask(id, name: head.joined(separator: " "), description: description)
            return "Saved **\(saved.name)** (`\(saved.id)`)."
        default:
            throw usage("/arrangements [plan QUERY | list | get ID | delete ID | suggestion | save-from-task ID NAME -- DESCRIPTION]")
        }
    }

    func loops(_ args: [String]) async throws -> String {
        guard let sub = args.first, sub == "propose" || sub == "plan" else { throw usage("/loops propose QUERY | /loops plan QUERY") }
        let query = try rest(args, "/loops \(sub) QUERY")
        let proposal = try await client.arrangements.proposeLoop(TaskRequest(query: query))
        var text = "**\(proposal.name)** — \(proposal.description)\n\n" + proposal.phases.enumerated().map {
            "\($0.offset + 1). **\($0.element.name)** (\($0.element.action ?? "prompt")\($0.element.instrument.map { ": \($0)" } ?? "")) — \($0.element.description)"
        }.joined(separator: "\n") + "\n\nDone when: \(proposal.terminationCriteria)"
        if sub == "plan" {
            let plan = try await client.arrangements.loopPlan(proposal)
            text += "\n\nPlan: about \(Counted.phrase(plan.estimatedIterations, "iteration")), ~\(plan.estimatedDurationSeconds) s; "
                + (plan.validation.valid ? "valid" : "invalid: " + plan.validation.errors.joined(separator: "; "))
        }
        return text
    }

    func submitSpecial(_ args: [String], loop: Bool) async throws -> String {
        let query = args.joined(separator: " ")
        guard !query.isEmpty else { throw usage(loop ? "/loop-task QUERY" : "/novel QUERY") }
        let request = TaskRequest(query: query, preferences: TaskPreferences(trustLevel: 1))
        let answer = loop ? try await client.tasks.submitLoop(request) : try await client.tasks.submitNovel(request)
        return "\(answer.message): task `\(answer.taskID)` (\(answer.status)). Follow it with `/tasks get \(answer.taskID)`."
    }

    // MARK: Interventions, health

    func interventions(_ args: [String]) async throws -> String {
        if args.first == "evaluate" {
            let query = try rest(args, "/interventions evaluate QUERY")
            let result = try await client.interventions.evaluate(InterventionEvaluateRequest(query: query))
            return result.interventions.isEmpty ? "No interventions for that query." :
                result.interventions.map { "- **\($0.type)**: \($0.message)" }.joined(separator: "\n")
        }
        let s = try await client.interventions.status()
        return "Up to \(s.maxInterventions) interventions per task; \(s.recentQueriesCount) recent queries remembered; instruments: \(s.availableInstruments.joined(separator: ", "))."
    }

    func health() async throws -> String {
        let quick = try await client.health.check()
        let system = try await client.health.system()
        let database = try await client.health.database()
        return """
        | check | result |
        |---|---|
        | /health | \(quick.status), version \(quick.version ?? "?")\(quick.tools.map { ", tools: \($0.joined(separator: ", "))" } ?? "") |
        | /health/system | \(system.status), up \(system.uptimeSeconds.map { String(format: "%.0f s", $0) } ?? "?") |
        | /health/database | \(database.healthy ? "healthy" : "unhealthy")\(database.latencyMS.map { String(format: ", %.2f ms", $0) } ?? "")\(database.error.map { ": \($0)" } ?? "") |
        """
    }

    // MARK: Helpers

    struct UsageError: Error, CustomStringConvertible { let description: String }
    func usage(_ text: String) -> UsageError { UsageError(description: "Usage: \(text)") }

    func argument(_ args: [String], _ index: Int, _ what: String) throws -> String {
        guard args.count > index else { throw UsageError(description: "Give \(what).") }
        return args[index]
    }

    func rest(_ args: [String], _ usageText: String) throws -> String {
        let text = args.dropFirst().joined(separator: " ")
        guard !text.isEmpty else { throw usage(usageText) }
        return text
    }

    /// Splits `words -- text` into the words before `--` and the text after it.
    func split(_ args: [String]) -> ([String], String) {
        guard let marker = args.firstIndex(of: "--") else { return (args, "") }
        return (Array(args[..<marker]), args[(marker + 1)...].joined(separator: " "))
    }

    func percent(_ value: Double) -> String { "\(Int(saturating: (value * 100).rounded()))%" }

    func compact(_ value: JSONValue?) -> String {
        guard let value else { return "" }
        let text = Wire.jsonString(value)
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }
}
