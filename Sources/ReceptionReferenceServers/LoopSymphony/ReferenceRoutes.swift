import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceptionCore
import ReceptionLoopSymphony

extension LoopSymphonyReferenceServer {
    typealias S = LoopSymphonyReferenceServer

    /// Declaration order matters as in FastAPI: `/rooms/{room_id}` shadows `/rooms/status` and
    /// `/arrangements/{id}` shadows `/arrangements/suggestion`, as on the real server at 1917bde.
    static let routes: [Route] = [
        Route(method: .get, pattern: ["health"], handler: { s, c in try await s.health(c) }),
        Route(method: .get, pattern: ["health", "system"], handler: { s, c in try await s.healthSystem(c) }),
        Route(method: .get, pattern: ["health", "database"], handler: { s, c in try await s.healthDatabase(c) }),
        Route(method: .post, pattern: ["task"], handler: { s, c in try await s.submit(c, kind: "task") }),
        Route(method: .post, pattern: ["task", ":task_id", "approve"], handler: { s, c in try await s.approve(c) }),
        Route(method: .post, pattern: ["task", "plan"], handler: { s, c in try await s.planArrangement(c) }),
        Route(method: .post, pattern: ["task", "plan", "validate"], handler: { s, c in try await s.validateArrangement(c) }),
        Route(method: .post, pattern: ["task", "novel"], handler: { s, c in try await s.submit(c, kind: "novel") }),
        Route(method: .post, pattern: ["task", "loop", "propose"], handler: { s, c in try await s.proposeLoop(c) }),
        Route(method: .post, pattern: ["task", "loop", "validate"], handler: { s, c in try await s.validateLoop(c) }),
        Route(method: .post, pattern: ["task", "loop", "plan"], handler: { s, c in try await s.loopPlan(c) }),
        Route(method: .post, pattern: ["task", "loop"], handler: { s, c in try await s.submit(c, kind: "loop") }),
        Route(method: .get, pattern: ["arrangements"], handler: { s, c in try await s.listArrangements(c) }),
        Route(method: .post, pattern: ["arrangements"], handler: { s, c in try await s.saveArrangement(c) }),
        Route(method: .get, pattern: ["arrangements", ":arrangement_id"], handler: { s, c in try await s.getArrangement(c) }),
        Route(method: .delete, pattern: ["arrangements", ":arrangement_id"], handler: { s, c in try await s.deleteArrangement(c) }),
        Route(method: .post, pattern: ["arrangements", "from-task", ":task_id"], handler: { s, c in try await s.arrangementFromTask(c) }),
        Route(method: .get, pattern: ["task", ":task_id"], handler: { s, c in try await s.getTask(c) }),
        Route(method: .get, pattern: ["task", ":task_id", "checkpoints"], handler: { s, c in try await s.checkpoints(c) }),
        Route(method: .get, pattern: ["task", ":task_id", "stream"], handler: { s, c in try await s.stream(c) }),
        Route(method: .post, pattern: ["heartbeats"], handler: { s, c in try await s.createHeartbeat(c) }),
        Route(method: .get, pattern: ["heartbeats"], handler: { s, c in try await s.listHeartbeats(c) }),
        Route(method: .post, pattern: ["heartbeats", "tick"], handler: { s, c in try await s.tickHeartbeats(c) }),
        Route(method: .get, pattern: ["heartbeats", "status"], handler: { s, c in try await s.heartbeatStatus(c) }),
        Route(method: .get, pattern: ["heartbeats", ":heartbeat_id"], handler: { s, c in try await s.getHeartbeat(c) }),
        Route(method: .patch, pattern: ["heartbeats", ":heartbeat_id"], handler: { s, c in try await s.updateHeartbeat(c) }),
        Route(method: .delete, pattern: ["heartbeats", ":heartbeat_id"], handler: { s, c in try await s.deleteHeartbeat(c) }),
        Route(method: .get, pattern: ["trust", "metrics"], handler: { s, c in try await s.trustMetrics(c) }),
        Route(method: .get, pattern: ["trust", "suggestion"], handler: { s, c in try await s.trustSuggestion(c) }),
        Route(method: .put, pattern: ["trust", "level"], handler: { s, c in try await s.trustLevel(c) }),
        Route(method: .get, pattern: ["tasks", "active"], handler: { s, c in try await s.managed(c, activeOnly: true) }),
        Route(method: .get, pattern: ["tasks", "recent"], handler: { s, c in try await s.managed(c, activeOnly: false) }),
        Route(method: .post, pattern: ["task", ":task_id", "cancel"], handler: { s, c in try await s.cancel(c) }),
        Route(method: .get, pattern: ["tasks", "stats"], handler: { s, c in try await s.stats(c) }),
        Route(method: .post, pattern: ["rooms", "register"], handler: { s, c in try await s.registerRoom(c) }),
        Route(method: .post, pattern: ["rooms", "deregister"], handler: { s, c in try await s.deregisterRoom(c) }),
        Route(method: .post, pattern: ["rooms", "heartbeat"], handler: { s, c in try await s.roomHeartbeat(c) }),
        Route(method: .get, pattern: ["rooms"], handler: { s, c in try await s.listRooms(c) }),
        Route(method: .get, pattern: ["rooms", ":room_id"], handler: { s, c in try await s.getRoom(c) }),
        Route(method: .get, pattern: ["knowledge", "user", ":user_id"], handler: { s, c in try await s.userKnowledge(c) }),
        Route(method: .post, pattern: ["knowledge", "entries"], handler: { s, c in try await s.createEntry(c) }),
        Route(method: .get, pattern: ["knowledge", "entries"], handler: { s, c in try await s.listEntries(c) }),
        Route(method: .post, pattern: ["knowledge", "refresh"], handler: { s, c in try await s.refreshKnowledge(c) }),
        Route(method: .post, pattern: ["knowledge", "learnings"], handler: { s, c in try await s.learnings(c) }),
        Route(method: .post, pattern: ["knowledge", "aggregate"], handler: { s, c in try await s.aggregate(c) }),
        Route(method: .get, pattern: ["knowledge", "sync", "status"], handler: { s, c in try await s.syncStatus(c) }),
        Route(method: .get, pattern: ["knowledge", ":category"], handler: { s, c in try await s.knowledgeFile(c) }),
        Route(method: .get, pattern: ["interventions", "status"], handler: { s, c in try await s.interventionStatus(c) }),
        Route(method: .post, pattern: ["interventions", "evaluate"], handler: { s, c in try await s.evaluateInterventions(c) }),
    ]

    // MARK: Health

    func health(_ c: Call) async throws -> Response {
        var pairs: [(String, PyJSON)] = [("status", .string("ok")), ("version", .string(options.version))]
        if await state.conductorUsed { pairs.append(("tools", .strings(["claude", "tavily"]))) }
        return S.json(.object(pairs))
    }

    func healthSystem(_ c: Call) async throws -> Response {
        let uptime = Date().timeIntervalSince(state.startedAt)
        return S.json(.object([
            ("status", .string("healthy")), ("components", .object([])), ("last_check", .null),
            ("uptime_seconds", .double((uptime * 1000).rounded() / 1000)), ("health_checks_run", .int(0)),
            ("heartbeats_processed", .int(0)), ("consecutive_failures", .int(0)), ("last_error", .null), ("last_error_at", .null),
        ]))
    }

    func healthDatabase(_ c: Call) async throws -> Response {
        let clock = ContinuousClock()
        let start = clock.now
        _ = await state.taskStats()
        let elapsed = start.duration(to: clock.now)
        let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        return S.json(.object([("healthy", .bool(true)), ("latency_ms", .double((ms * 100).rounded() / 100)), ("error", .null)]))
    }

    // MARK: Tasks

    func submit(_ c: Call, kind: String) async throws -> Response {
        var request = try taskRequest(c)
        if ReferenceEngine.has(request.query, ["crash"]) { throw Failure.internalError }
        // The real server inserts the client's id as the row's primary key: a second task with
        // the same id is an unhandled database error, a plain-text 500.
        if await state.task(request.id) != nil { throw Failure.internalError }
        let caller = await optionalAuth(c)
        if let caller {
            var context = request.context ?? TaskContext()
            context.appID = caller.app.id
            context.userID = caller.userID
            request.context = context
        }
        await state.markConductorUsed()
        await state.remember(query: request.query)
        let trustLevel = request.preferences?.trustLevel ?? 0
        let instrument = ReferenceEngine.route(request)
        var record = ReferenceState.TaskRecord(request: request, status: .pending, createdAt: Date(), appID: caller?.app.id,
                                               userID: caller?.userID, instrument: instrument, trustLevel: trustLevel, kind: kind)
        if kind == "novel" { record.spec = ReferenceEngine.arrangementProposal(for: request.query) }
        if kind == "loop" { record.spec = ReferenceEngine.loopProposal(for: request.query) }
        if kind == "task" && trustLevel == 0 {
            record.status = .awaitingApproval
            await state.createTask(record)
            return S.json(.object([
                ("task_id", .string(request.id)), ("status", .string("awaiting_approval")),
                ("message", .string("Task plan ready for approval. Call POST /task/{id}/approve to execute.")),
                ("plan", ReferenceEngine.plan(for: request, instrument: instrument)),
            ]))
        }
        await state.createTask(record)
        await start(request.id)
        let message = switch kind {
        case "novel": "Novel arrangement task submitted"
        case "loop": "Loop proposal task submitted"
        default: "Task submitted successfully"
        }
        return S.json(.object([("task_id", .string(request.id)), ("status", .string("pending")), ("message", .string(message)), ("plan", .null)]))
    }

    func start(_ taskID: String) async {
        let state = state
        let options = options
        await state.updateTask(taskID) { $0.managerState = .queued }
        let runner = Task { await ReferenceEngine.run(taskID, state: state, options: options) }
        await state.setRunner(taskID, runner)
    }

    func approve(_ c: Call) async throws -> Response {
        let id = c.params["task_id"]!
        guard let record = await state.task(id) else { throw Failure.detail(404, "Task \(id) not found") }
        guard record.status == .awaitingApproval else {
            throw Failure.detail(400, "Task \(id) is not awaiting approval (status: \(record.status.rawValue))")
        }
        await state.updateTask(id) { $0.status = .pending }
        await start(id)
        return S.json(.object([("task_id", .string(id)), ("status", .string("pending")),
                               ("message", .string("Task approved and executing")), ("plan", .null)]))
    }

    func getTask(_ c: Call) async throws -> Response {
        let id = c.params["task_id"]!
        guard let record = await state.task(id) else { throw Failure.detail(404, "Task \(id) not found") }
        // `vanish` tasks: the server is going down as the task completes (a graceful stop);
        // the stream said `complete`, but the row can no longer be read.
        if record.status == .complete, ReferenceEngine.has(record.request.query, ["vanish"]) {
            throw Failure(status: 503, body: nil, text: "Service Unavailable")
        }
        // `stuckresult` tasks: the row never catches up with the stream that said `complete`.
        let stuck = ReferenceEngine.has(record.request.query, ["stuckresult"])
        if record.status == .complete, let response = record.response, !stuck {
            return S.json(Self.taskResponseJSON(response))
        }
        if record.status == .failed { throw Failure.detail(500, "Task failed: \(record.error ?? "Unknown error")") }
        let status = stuck ? TaskStatus.running.rawValue : record.status.rawValue
        return S.json(.object([("task_id", .string(id)), ("status", .string(status)),
                               ("progress", .string("Task is \(status)")),
                               ("started_at", .string(PyTime.pydantic(record.createdAt)))]))
    }

    static func taskResponseJSON(_ r: TaskResponse) -> PyJSON {
        .object([
            ("request_id", .string(r.requestID)), ("outcome", .string(r.outcome.rawValue)),
            ("findings", .array(r.findings.map { f in
                .object([("content", .string(f.content)), ("source", .str(f.source)), ("confidence", .double(f.confidence)),
                         ("timestamp", .string(f.timestamp))])
            })),
            ("summary", .string(r.summary)), ("confidence", .double(r.confidence)),
            ("metadata", .object([
                ("instrument_used", .string(r.metadata.instrumentUsed)), ("iterations", .int(r.metadata.iterations)),
                ("duration_ms", .int(r.metadata.durationMS)), ("sources_consulted", .strings(r.metadata.sourcesConsulted)),
                ("process_type", .string(r.metadata.processType.rawValue)), ("room_id", .str(r.metadata.roomID)),
                ("failover_events", .array(r.metadata.failoverEvents.map(PyJSON.init))),
            ])),
            ("discrepancy", .str(r.discrepancy)), ("suggested_followups", .strings(r.suggestedFollowups)),
        ] + (r.outcome.isKnown ? [] : [
            // `novelfields` tasks: a newer server's fields, which clients must tolerate.
            ("engine_notes", .object([("mood", .string("curious")), ("version", .int(2))])),
        ]))
    }

    func checkpoints(_ c: Call) async throws -> Response {
        let id = c.params["task_id"]!
        guard let record = await state.task(id) else { throw Failure.detail(404, "Task \(id) not found") }
        return S.json(.array(record.iterations))
    }

    func cancel(_ c: Call) async throws -> Response {
        let id = c.params["task_id"]!
        if let failure = await state.cancel(id) { throw Failure.detail(failure.status, failure.detail) }
        return S.json(.object([("task_id", .string(id)), ("status", .string("cancelling")),
                               ("message", .string("Cancellation requested. Task will be cancelled shortly."))]))
    }

    func managed(_ c: Call, activeOnly: Bool) async throws -> Response {
        let caller = await optionalAuth(c)
        var limit = 1000
        if !activeOnly {
            if let raw = c.query["limit"] {
                guard let value = Int(raw) else {
                    throw Failure.validation([.object([("type", .string("int_parsing")), ("loc", .strings(["query", "limit"])),
                                                       ("msg", .string("Input should be a valid integer, unable to parse string as an integer")),
                                                       ("input", .string(raw))])])
                }
                limit = value
            } else {
                limit = 20
            }
        }
        let items = await state.managedTasks(activeOnly: activeOnly, appID: caller?.app.id,
                                             userID: activeOnly ? caller?.userID : nil, limit: limit)
        return S.json(.array(items))
    }

    func stats(_ c: Call) async throws -> Response {
        let (active, total) = await state.taskStats()
        return S.json(.object([("active_count", .int(active)), ("total_count", .int(total))]))
    }

    // MARK: SSE

    func stream(_ c: Call) async throws -> Response {
        let id = c.params["task_id"]!
        guard let record = await state.task(id) else { throw Failure.detail(404, "Task \(id) not found") }
        guard options.streamingEnabled else { throw Failure.internalError }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        headers[HTTPField.Name("x-accel-buffering")!] = "no"
        let state = state
        let keepalive = options.keepaliveInterval
        if ReferenceEngine.has(record.request.query, ["brokenstream"]) {
            let broken = "data: {\"event\": \"started\", \"task_id\": \"\(id)\"\n\n"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: broken)))
        }
        if ReferenceEngine.has(record.request.query, ["oversized"]) {
            return Response(status: .ok, headers: headers, body: ResponseBody { writer in
                try await OversizedEvent.write(to: &writer)
                try await writer.finish(nil)
            })
        }
        let body = ResponseBody { writer in
            let (subscription, events) = await state.subscribe(id)
            enum Item: Sendable { case event(PyJSON, Bool), tick, end }
            let (merged, input) = AsyncStream<Item>.makeStream()
            let silence = SilenceClock()
            let forward = Task {
                for await case .event(let event, let terminal) in events {
                    silence.touch()
                    input.yield(.event(event, terminal))
                }
                input.yield(.end)
            }
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: keepalive)
                    if Task.isCancelled { break }
                    if silence.elapsed() >= keepalive { input.yield(.tick); silence.touch() }
                }
            }
            func cleanUp() async {
                forward.cancel()
                ticker.cancel()
                input.finish()
                await state.unsubscribe(id, subscription)
            }
            // `cutstream` tasks: the stream ends cleanly after two events, as when a proxy or a
            // server restart closes it mid-task.
            let cutAfter = ReferenceEngine.has(record.request.query, ["cutstream"]) ? 2 : Int.max
            var written = 0
            do {
                loop: for await item in merged {
                    switch item {
                    case .event(let event, let terminal):
                        try await writer.write(ByteBuffer(string: "data: \(event.render(.spaced))\n\n"))
                        written += 1
                        if terminal || written >= cutAfter { break loop }
                    case .tick:
                        try await writer.write(ByteBuffer(string: ": keepalive\n\n"))
                        if await state.hasTerminalEvent(id) { break loop }
                    case .end:
                        break loop
                    }
                }
            } catch {
                await cleanUp()
                throw error
            }
            await cleanUp()
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    // MARK: Arrangements and loops

    func planArrangement(_ c: Call) async throws -> Response {
        let request = try taskRequest(c)
        return S.json(ReferenceEngine.arrangementProposal(for: request.query))
    }

    func validateArrangement(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("type", "str"), ("rationale", "str"), ("termination_criteria", "str")])
        var errors: [String] = []
        var warnings: [String] = []
        let type = body["type"]?.stringValue ?? ""
        guard ["single", "sequential", "parallel"].contains(type) else {
            throw Failure.validation([.object([("type", .string("literal_error")), ("loc", .strings(["body", "type"])),
                                               ("msg", .string("Input should be 'sequential', 'parallel' or 'single'")), ("input", .string(type)),
                                               ("ctx", .object([("expected", .string("'sequential', 'parallel' or 'single'"))]))])])
        }
        var used: [String] = []
        switch type {
        case "single":
            if let i = body["instrument"]?.stringValue { used = [i] } else { errors.append("Single arrangement requires an instrument") }
        case "sequential":
            if case .array(let steps)? = body["steps"], !steps.isEmpty { used = steps.compactMap { $0["instrument"]?.stringValue } } else {
                errors.append("Sequential arrangement requires at least one step")
            }
            if used.count == 1 { warnings.append("Sequential arrangement with one step could be a single instrument") }
        default:
            if case .array(let branches)? = body["branches"], branches.count >= 2 { used = branches.compactMap(\.stringValue) } else {
                errors.append("Parallel arrangement requires at least two branches")
            }
        }
        for instrument in used where !ReferenceEngine.instruments.contains(instrument) { errors.append("Unknown instrument: \(instrument)") }
        return S.json(.object([("valid", .bool(errors.isEmpty)), ("errors", .strings(errors)), ("warnings", .strings(warnings))]))
    }

    func proposeLoop(_ c: Call) async throws -> Response {
        let request = try taskRequest(c)
        return S.json(ReferenceEngine.loopProposal(for: request.query))
    }

    func loopProposalBody(_ c: Call) throws -> JSONValue {
        let body = try jsonBody(c)
        try validate(body, required: [("name", "str"), ("description", "str"), ("phases", "list"), ("termination_criteria", "str")],
                     optional: [("max_total_iterations", "int")])
        if case .array(let phases)? = body["phases"], phases.count < 2 {
            throw Failure.validation([.object([("type", .string("too_short")), ("loc", .strings(["body", "phases"])),
                                               ("msg", .string("List should have at least 2 items after validation, not \(phases.count)")),
                                               ("input", PyJSON(body["phases"]!)), ("ctx", .object([("field_type", .string("List")), ("min_length", .int(2)), ("actual_length", .int(phases.count))]))])])
        }
        return body
    }

    func validateLoop(_ c: Call) async throws -> Response {
        let result = ReferenceEngine.validateLoop(try loopProposalBody(c))
        return S.json(.object([("valid", .bool(result.valid)), ("errors", .strings(result.errors)), ("warnings", .strings(result.warnings)),
                               ("scientific_method_coverage", .object(result.coverage.map { ($0.0, .bool($0.1)) }))]))
    }

    func loopPlan(_ c: Call) async throws -> Response {
        let body = try loopProposalBody(c)
        let result = ReferenceEngine.validateLoop(body)
        let phases: [JSONValue] = { if case .array(let a)? = body["phases"] { return a } else { return [] } }()
        let cap = body["max_total_iterations"]?.intValue ?? 10
        let iterations = min(phases.reduce(0) { $0 + ($1["max_iterations"]?.intValue ?? 1) }, cap)
        return S.json(.object([
            ("proposal", PyJSON(body)),
            ("validation", .object([("valid", .bool(result.valid)), ("errors", .strings(result.errors)), ("warnings", .strings(result.warnings)),
                                    ("scientific_method_coverage", .object(result.coverage.map { ($0.0, .bool($0.1)) }))])),
            ("estimated_iterations", .int(iterations)), ("estimated_duration_seconds", .int(iterations * 5)), ("requires_approval", .bool(true)),
        ]))
    }

    static func savedArrangement(id: String, appID: String?, name: String, description: String, composition: PyJSON?, loop: PyJSON?,
                                 patterns: [String], tags: [String]) -> PyJSON {
        let now = PyTime.pydantic(Date())
        return .object([
            ("id", .string(id)), ("app_id", .str(appID)), ("name", .string(name)), ("description", .string(description)),
            ("arrangement_type", .string(loop != nil ? "loop" : "composition")), ("composition_spec", composition ?? .null),
            ("loop_spec", loop ?? .null), ("query_patterns", .strings(patterns)), ("tags", .strings(tags)),
            ("stats", .object([("total_executions", .int(0)), ("successful_executions", .int(0)), ("average_confidence", .double(0.0)),
                               ("average_duration_ms", .double(0.0)), ("last_executed_at", .null)])),
            ("created_at", .string(now)), ("updated_at", .string(now)), ("is_active", .bool(true)),
        ])
    }

    func listArrangements(_ c: Call) async throws -> Response {
        let caller = await optionalAuth(c)
        let all = await state.orderedArrangements()
        return S.json(.array(all.filter { item in
            guard let caller else { return true }
            return item["app_id"] == .null || item["app_id"] == .string(caller.app.id)
        }))
    }

    func saveArrangement(_ c: Call) async throws -> Response {
        let caller = await optionalAuth(c)
        let body = try jsonBody(c)
        try validate(body, required: [("name", "str"), ("description", "str")],
                     optional: [("query_patterns", "list"), ("tags", "list"), ("composition_spec", "dict"), ("loop_spec", "dict")])
        let name = body["name"]!.stringValue!
        let composition = body["composition_spec"].flatMap { $0 == .null ? nil : PyJSON($0) }
        let loop = body["loop_spec"].flatMap { $0 == .null ? nil : PyJSON($0) }
        guard composition != nil || loop != nil else {
            throw Failure.detail(400, "Either composition_spec or loop_spec must be provided")
        }
        if await state.orderedArrangements().contains(where: { $0["name"] == .string(name) }) {
            throw Failure.detail(400, "Arrangement with name '\(name)' already exists")
        }
        func strings(_ key: String) -> [String] { if case .array(let a)? = body[key] { return a.compactMap(\.stringValue) } else { return [] } }
        let id = UUID().uuidString.lowercased()
        let saved = Self.savedArrangement(id: id, appID: caller?.app.id, name: name, description: body["description"]!.stringValue!,
                                          composition: composition, loop: loop, patterns: strings("query_patterns"), tags: strings("tags"))
        await state.putArrangement(id: id, saved)
        return S.json(saved)
    }

    func getArrangement(_ c: Call) async throws -> Response {
        let id = c.params["arrangement_id"]!
        guard let saved = await state.arrangements[id] else { throw Failure.detail(404, "Arrangement \(id) not found") }
        return S.json(saved)
    }

    func deleteArrangement(_ c: Call) async throws -> Response {
        let id = c.params["arrangement_id"]!
        guard await state.deleteArrangement(id) else { throw Failure.detail(404, "Arrangement \(id) not found") }
        return S.json(.object([("status", .string("deleted")), ("id", .string(id))]))
    }

    func arrangementFromTask(_ c: Call) async throws -> Response {
        let id = c.params["task_id"]!
        var missing: [PyJSON] = []
        for key in ["name", "description"] where c.query[key] == nil {
            missing.append(.object([("type", .string("missing")), ("loc", .strings(["query", key])), ("msg", .string("Field required")), ("input", .null)]))
        }
        if !missing.isEmpty { throw Failure.validation(missing) }
        guard let record = await state.task(id) else { throw Failure.detail(404, "Task \(id) not found") }
        guard let spec = record.spec, record.kind == "novel" || record.kind == "loop" else {
            throw Failure.detail(400, "Task was not executed with a novel arrangement or loop")
        }
        let caller = await optionalAuth(c)
        let newID = UUID().uuidString.lowercased()
        let saved = Self.savedArrangement(id: newID, appID: caller?.app.id, name: c.query["name"]!, description: c.query["description"]!,
                                          composition: record.kind == "novel" ? spec : nil, loop: record.kind == "loop" ? spec : nil,
                                          patterns: [record.request.query], tags: [])
        await state.putArrangement(id: newID, saved)
        return S.json(saved)
    }
}

/// When the last event went out (for keepalives after silence).
final class SilenceClock: @unchecked Sendable {
    private let lock = NSLock()
    private var last = ContinuousClock.now
    func touch() { lock.lock(); last = .now; lock.unlock() }
    func elapsed() -> Duration { lock.lock(); defer { lock.unlock() }; return last.duration(to: .now) }
}
