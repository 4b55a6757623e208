import Foundation
import HTTPTypes
import Hummingbird
import ReceptionCore
import ReceptionLoopSymphony

extension LoopSymphonyReferenceServer {
    // MARK: Heartbeats (scheduled tasks)

    static func heartbeatJSON(_ h: ReferenceState.HeartbeatRecord) -> PyJSON {
        .object([
            ("id", .string(h.id)), ("app_id", .string(h.appID)), ("user_id", .str(h.userID)), ("name", .string(h.name)),
            ("query_template", .string(h.queryTemplate)), ("cron_expression", .string(h.cron)), ("timezone", .string(h.timezone)),
            ("is_active", .bool(h.isActive)), ("context_template", h.contextTemplate), ("webhook_url", .str(h.webhookURL)),
            ("created_at", .string(PyTime.pydantic(h.createdAt))), ("updated_at", .string(PyTime.pydantic(h.updatedAt))),
        ])
    }

    func heartbeatID(_ c: Call) throws -> String {
        let raw = c.params["heartbeat_id"]!
        guard let uuid = UUID(uuidString: raw) else {
            throw Failure.validation([.object([("type", .string("uuid_parsing")), ("loc", .strings(["path", "heartbeat_id"])),
                                               ("msg", .string("Input should be a valid UUID, invalid length: expected length 32 for simple format, found \(raw.count)")),
                                               ("input", .string(raw)),
                                               ("ctx", .object([("error", .string("invalid length: expected length 32 for simple format, found \(raw.count)"))]))])])
        }
        return uuid.uuidString.lowercased()
    }

    func createHeartbeat(_ c: Call) async throws -> Response {
        let caller = try await requireAuth(c)
        let body = try jsonBody(c)
        try validate(body, required: [("name", "str"), ("query_template", "str"), ("cron_expression", "str")],
                     optional: [("timezone", "str"), ("context_template", "dict"), ("webhook_url", "str")])
        let now = Date()
        let record = ReferenceState.HeartbeatRecord(
            id: UUID().uuidString.lowercased(), appID: caller.app.id, userID: caller.userID, name: body["name"]!.stringValue!,
            queryTemplate: body["query_template"]!.stringValue!, cron: body["cron_expression"]!.stringValue!,
            timezone: body["timezone"]?.stringValue ?? "UTC", isActive: true,
            contextTemplate: body["context_template"].map(PyJSON.init) ?? .object([]), webhookURL: body["webhook_url"]?.stringValue,
            createdAt: now, updatedAt: now, lastRunAt: nil)
        await state.putHeartbeat(record)
        return S.json(Self.heartbeatJSON(record), status: 201)
    }

    func listHeartbeats(_ c: Call) async throws -> Response {
        let caller = try await requireAuth(c)
        let list = await state.orderedHeartbeats().filter { $0.appID == caller.app.id && (caller.userID == nil || $0.userID == caller.userID) }
        return S.json(.array(list.map(Self.heartbeatJSON)))
    }

    func ownedHeartbeat(_ c: Call) async throws -> ReferenceState.HeartbeatRecord {
        let caller = try await requireAuth(c)
        let id = try heartbeatID(c)
        guard let record = await state.heartbeats[id], record.appID == caller.app.id else { throw Failure.detail(404, "Heartbeat not found") }
        return record
    }

    func getHeartbeat(_ c: Call) async throws -> Response { S.json(Self.heartbeatJSON(try await ownedHeartbeat(c))) }

    func updateHeartbeat(_ c: Call) async throws -> Response {
        let caller = try await requireAuth(c)
        let id = try heartbeatID(c)
        let body = try jsonBody(c)
        try validate(body, required: [], optional: [("name", "str"), ("query_template", "str"), ("cron_expression", "str"),
                                                    ("timezone", "str"), ("is_active", "bool"), ("context_template", "dict"), ("webhook_url", "str")])
        guard var record = await state.heartbeats[id], record.appID == caller.app.id else { throw Failure.detail(404, "Heartbeat not found") }
        if let v = body["name"]?.stringValue { record.name = v }
        if let v = body["query_template"]?.stringValue { record.queryTemplate = v }
        if let v = body["cron_expression"]?.stringValue { record.cron = v }
        if let v = body["timezone"]?.stringValue { record.timezone = v }
        if let v = body["is_active"]?.boolValue { record.isActive = v }
        if let v = body["context_template"], v != .null { record.contextTemplate = PyJSON(v) }
        if let v = body["webhook_url"] { record.webhookURL = v.stringValue }
        record.updatedAt = Date()
        await state.putHeartbeat(record)
        return S.json(Self.heartbeatJSON(record))
    }

    func deleteHeartbeat(_ c: Call) async throws -> Response {
        let record = try await ownedHeartbeat(c)
        await state.deleteHeartbeat(record.id)
        return Response(status: .noContent)
    }

    /// Runs every active heartbeat that is due (never run, or its cron matched a minute since the
    /// last run) as a trust-level-1 task and, as the real tick does, waits for it: each run is
    /// reported `completed` with its outcome and summary, or `failed` with the error. The
    /// others are skipped with a reason.
    func tickHeartbeats(_ c: Call) async throws -> Response {
        var processed: [PyJSON] = []
        var skipped: [PyJSON] = []
        let active = await state.orderedHeartbeats().filter(\.isActive)
        let now = Date()
        for heartbeat in active {
            guard Cron.isDue(heartbeat.cron, lastRun: heartbeat.lastRunAt, now: now) else {
                skipped.append(.object([("heartbeat_id", .string(heartbeat.id)), ("heartbeat_name", .string(heartbeat.name)),
                                        ("reason", .string("Not due yet"))]))
                continue
            }
            let day = PyTime.iso(now).prefix(10)
            let query = heartbeat.queryTemplate.replacingOccurrences(of: "{date}", with: String(day))
            // The real tick waits on each heartbeat's work: a slow one holds the call for about
            // 30 s, long enough for a person to want Ctrl-C.
            if ReferenceEngine.has(query, ["slow"]) { try await Task.sleep(for: .seconds(30)) }
            let request = TaskRequest(query: query, context: TaskContext(appID: heartbeat.appID, userID: heartbeat.userID),
                                      preferences: TaskPreferences(trustLevel: 1))
            await state.createTask(ReferenceState.TaskRecord(request: request, status: .pending, createdAt: now, appID: heartbeat.appID,
                                                             userID: heartbeat.userID, instrument: ReferenceEngine.route(request),
                                                             trustLevel: 1, kind: "task"))
            await state.updateTask(request.id) { $0.managerState = .queued }
            await ReferenceEngine.run(request.id, state: state, options: options)
            var updated = heartbeat
            updated.lastRunAt = now
            await state.putHeartbeat(updated)
            let ran = await state.task(request.id)
            var run: [(String, PyJSON)] = [("heartbeat_id", .string(heartbeat.id)), ("heartbeat_name", .string(heartbeat.name)),
                                            ("run_id", .string(UUID().uuidString.lowercased()))]
            if let response = ran?.response, ran?.status == .complete {
                run += [("task_id", .string(request.id)), ("status", .string("completed")), ("outcome", .string(response.outcome.rawValue)),
                        ("summary", .string(response.summary)), ("webhook_called", .bool(false)), ("webhook_success", .bool(false))]
            } else {
                run += [("status", .string("failed")), ("error", .string(ran?.error ?? "Unknown error"))]
            }
            processed.append(.object(run))
        }
        return S.json(.object([("processed", .array(processed)), ("skipped", .array(skipped)), ("total_active", .int(active.count))]))
    }

    func heartbeatStatus(_ c: Call) async throws -> Response {
        let now = Date()
        let items = await state.orderedHeartbeats().filter(\.isActive).map { h -> PyJSON in
            .object([
                ("id", .string(h.id)), ("name", .string(h.name)), ("cron_expression", .string(h.cron)), ("is_active", .bool(h.isActive)),
                ("last_run_at", .str(h.lastRunAt.map(PyTime.iso))), ("next_scheduled", .str(Cron.next(h.cron, after: now).map(PyTime.iso))),
                ("is_due", .bool(Cron.isDue(h.cron, lastRun: h.lastRunAt, now: now))),
            ])
        }
        return S.json(.object([("heartbeats", .array(items))]))
    }

    // MARK: Trust

    static func trustJSON(_ t: ReferenceState.TrustRecord) -> PyJSON {
        .object([
            ("app_id", .string(t.appID)), ("user_id", .str(t.userID)), ("total_tasks", .int(t.total)),
            ("successful_tasks", .int(t.successful)), ("failed_tasks", .int(t.failed)), ("consecutive_successes", .int(t.consecutive)),
            ("current_trust_level", .int(t.level)), ("last_task_at", .str(t.lastTaskAt.map(PyTime.pydantic))),
            ("created_at", .string(PyTime.pydantic(t.createdAt))), ("updated_at", .string(PyTime.pydantic(t.updatedAt))),
        ])
    }

    func trustMetrics(_ c: Call) async throws -> Response {
        let caller = try await requireAuth(c)
        return S.json(Self.trustJSON(await state.trustRecord(appID: caller.app.id, userID: caller.userID)))
    }

    func trustSuggestion(_ c: Call) async throws -> Response {
        let caller = try await requireAuth(c)
        let t = await state.trustRecord(appID: caller.app.id, userID: caller.userID)
        let rate = t.total == 0 ? 0 : Double(t.successful) / Double(t.total)
        var suggested = t.level
        if t.level == 0, t.consecutive >= 5, rate >= 0.8 { suggested = 1 }
        if t.level == 1, t.consecutive >= 10, rate >= 0.9 { suggested = 2 }
        guard suggested > t.level else { return S.json(.null) }
        return S.json(.object([
            ("current_level", .int(t.level)), ("suggested_level", .int(suggested)),
            ("reason", .string("\(t.consecutive) consecutive successes with \(Int((rate * 100).rounded()))% success rate")),
            ("metrics", Self.trustJSON(t)),
        ]))
    }

    func trustLevel(_ c: Call) async throws -> Response {
        let caller = try await requireAuth(c)
        let body = try jsonBody(c)
        try validate(body, required: [("trust_level", "int")])
        let level = body["trust_level"]!.intValue!
        guard (0...2).contains(level) else {
            let (code, message, bound): (String, String, (String, Int)) = level > 2
                ? ("less_than_equal", "Input should be less than or equal to 2", ("le", 2))
                : ("greater_than_equal", "Input should be greater than or equal to 0", ("ge", 0))
            throw Failure.validation([.object([("type", .string(code)), ("loc", .strings(["body", "trust_level"])), ("msg", .string(message)),
                                               ("input", .int(level)), ("ctx", .object([(bound.0, .int(bound.1))]))])])
        }
        return S.json(Self.trustJSON(await state.setTrustLevel(appID: caller.app.id, userID: caller.userID, level: level)))
    }

    // MARK: Rooms

    func registerRoom(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("room_id", "str"), ("room_name", "str"), ("url", "str"), ("capabilities", "list"), ("instruments", "list")],
                     optional: [("room_type", "str")])
        func strings(_ key: String) -> [String] { if case .array(let a)? = body[key] { return a.compactMap(\.stringValue) } else { return [] } }
        let room = ReferenceState.Room(id: body["room_id"]!.stringValue!, name: body["room_name"]!.stringValue!,
                                       type: body["room_type"]?.stringValue ?? "local", url: body["url"]!.stringValue!,
                                       capabilities: strings("capabilities"), instruments: strings("instruments"),
                                       lastHeartbeat: Date(), registeredAt: Date())
        await state.register(room)
        return S.json(.object([("status", .string("registered")), ("room_id", .string(room.id)), ("room_type", .string(room.type))]))
    }

    func deregisterRoom(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        guard let id = body["room_id"]?.stringValue, !id.isEmpty else { throw Failure.detail(400, "room_id is required") }
        let found = await state.deregister(id)
        return S.json(.object([("status", .string(found ? "deregistered" : "not_found")), ("room_id", .string(id))]))
    }

    func roomHeartbeat(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("room_id", "str")], optional: [("status", "str"), ("capabilities", "list"), ("last_knowledge_version", "int")])
        let id = body["room_id"]!.stringValue!
        let capabilities: [String]? = { if case .array(let a)? = body["capabilities"] { return a.compactMap(\.stringValue) } else { return nil } }()
        guard await state.heartbeat(roomID: id, capabilities: capabilities) else {
            throw Failure.detail(404, "Room not found: \(id). Please re-register.")
        }
        var pairs: [(String, PyJSON)] = [("status", .string("ok")), ("room_id", .string(id))]
        if let version = body["last_knowledge_version"], version != .null {
            if let delta = await state.knowledgeDelta(roomID: id) {
                pairs.append(("knowledge_updates", .object([
                    ("server_version", .int(delta.version)),
                    ("entries", .array(delta.entries.map { e in
                        .object([("id", .string(e.id)), ("category", .string(e.category)), ("title", .string(e.title)),
                                 ("content", .string(e.content)), ("source", .string(e.source)), ("confidence", .double(e.confidence)),
                                 ("tags", .strings(e.tags)), ("version", .int(e.version)), ("updated_at", .string(PyTime.pydantic(e.updatedAt)))])
                    })),
                    ("removed_ids", .strings(delta.removed)),
                ])))
            } else {
                pairs.append(("knowledge_updates", .null))
            }
        }
        return S.json(.object(pairs))
    }

    func roomJSON(_ r: ReferenceState.Room, detailed: Bool) async -> PyJSON {
        var pairs: [(String, PyJSON)] = [
            ("room_id", .string(r.id)), ("room_name", .string(r.name)), ("room_type", .string(r.type)), ("url", .string(r.url)),
            ("status", .string(await state.roomStatus(r))), ("capabilities", .strings(r.capabilities)), ("instruments", .strings(r.instruments)),
            ("last_heartbeat", .string(PyTime.iso(r.lastHeartbeat))),
        ]
        if detailed { pairs.append(("registered_at", .string(PyTime.iso(r.registeredAt)))) }
        return .object(pairs)
    }

    func listRooms(_ c: Call) async throws -> Response {
        let rooms = await state.rooms.values.sorted { $0.registeredAt < $1.registeredAt }
        var items: [PyJSON] = []
        var online = 0
        var byType: [String: Int] = [:]
        for room in rooms {
            items.append(await roomJSON(room, detailed: false))
            if await state.roomStatus(room) == "online" { online += 1 }
            byType[room.type, default: 0] += 1
        }
        return S.json(.object([
            ("rooms", .array(items)),
            ("stats", .object([("total_rooms", .int(rooms.count)), ("online_rooms", .int(online)), ("offline_rooms", .int(rooms.count - online)),
                               ("rooms_by_type", .object(byType.keys.sorted().map { ($0, .int(byType[$0]!)) }))])),
        ]))
    }

    func getRoom(_ c: Call) async throws -> Response {
        let id = c.params["room_id"]!
        guard let room = await state.rooms[id] else { throw Failure.detail(404, "Room not found: \(id)") }
        return S.json(await roomJSON(room, detailed: true))
    }

    // MARK: Knowledge

    static func entryJSON(_ e: ReferenceState.KnowledgeRecord, fileView: Bool) -> PyJSON {
        .object([
            ("id", .string(e.id)), ("category", .string(e.category)), ("title", .string(e.title)), ("content", .string(e.content)),
            ("source", .string(e.source)), ("confidence", .double(e.confidence)), ("version", .int(fileView ? 0 : e.version)),
            ("user_id", .str(e.userID)), ("tags", .strings(e.tags)), ("is_active", .bool(e.isActive)),
            ("created_at", .string(PyTime.pydantic(e.createdAt))), ("updated_at", .string(PyTime.pydantic(e.updatedAt))),
        ])
    }

    static let categories = ["capabilities", "boundaries", "patterns", "changelog", "user"]

    func knowledgeFile(_ c: Call) async throws -> Response {
        let category = c.params["category"]!
        guard Self.categories.contains(category), category != "user" else {
            throw Failure.validation([.object([("type", .string("enum")), ("loc", .strings(["path", "category"])),
                                               ("msg", .string("Input should be 'capabilities', 'boundaries', 'patterns' or 'changelog'")),
                                               ("input", .string(category)),
                                               ("ctx", .object([("expected", .string("'capabilities', 'boundaries', 'patterns' or 'changelog'"))]))])])
        }
        let entries = await state.knowledgeEntries(category: category)
        let title = category.prefix(1).uppercased() + category.dropFirst()
        var markdown = "# \(title)\n"
        for entry in entries { markdown += "\n## \(entry.title)\n\n\(entry.content)\n" }
        return S.json(.object([
            ("category", .string(category)), ("title", .string(title)), ("markdown", .string(markdown)),
            ("entries", .array(entries.map { Self.entryJSON($0, fileView: true) })),
            ("last_updated", .str(entries.map(\.updatedAt).max().map(PyTime.pydantic))),
        ]))
    }

    func userKnowledge(_ c: Call) async throws -> Response {
        let userID = c.params["user_id"]!
        let entries = await state.knowledgeEntries(userID: userID)
        let trusts = await state.trustRecordsFor(userID: userID)
        let total = trusts.reduce(0) { $0 + $1.total }
        let successful = trusts.reduce(0) { $0 + $1.successful }
        var markdown = "# Knowledge for user \(userID)\n"
        for entry in entries { markdown += "\n## \(entry.title)\n\n\(entry.content)\n" }
        return S.json(.object([
            ("user_id", .string(userID)), ("trust_level", .int(trusts.map(\.level).max() ?? 0)), ("total_tasks", .int(total)),
            ("success_rate", .double(total == 0 ? 0.0 : Double(successful) / Double(total))),
            ("preferred_patterns", .strings(entries.filter { $0.category == "patterns" }.map(\.title))),
            ("entries", .array(entries.map { Self.entryJSON($0, fileView: false) })), ("markdown", .string(markdown)),
        ]))
    }

    func createEntry(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("category", "str"), ("title", "str"), ("content", "str")],
                     optional: [("confidence", "float"), ("user_id", "str"), ("tags", "list")])
        let category = body["category"]!.stringValue!
        guard Self.categories.contains(category) else {
            throw Failure.validation([.object([("type", .string("enum")), ("loc", .strings(["body", "category"])),
                                               ("msg", .string("Input should be 'capabilities', 'boundaries', 'patterns', 'changelog' or 'user'")),
                                               ("input", .string(category))])])
        }
        let tags: [String] = { if case .array(let a)? = body["tags"] { return a.compactMap(\.stringValue) } else { return [] } }()
        let entry = await state.addKnowledge(category: category, title: body["title"]!.stringValue!, content: body["content"]!.stringValue!,
                                             source: "manual", confidence: body["confidence"]?.doubleValue ?? 1.0,
                                             userID: body["user_id"]?.stringValue, tags: tags)
        return S.json(Self.entryJSON(entry, fileView: false))
    }

    func listEntries(_ c: Call) async throws -> Response {
        let entries = await state.knowledgeEntries(category: c.query["category"], source: c.query["source"])
        return S.json(.array(entries.map { Self.entryJSON($0, fileView: false) }))
    }

    /// Regenerates the tracker-derived entry: the previous one is removed (so room deltas carry
    /// `removed_ids`) and a fresh one describes the task outcomes seen so far.
    func refreshKnowledge(_ c: Call) async throws -> Response {
        let removed = await state.removeKnowledge { $0.source == "trust_tracker" }
        let (active, total) = await state.taskStats()
        _ = await state.addKnowledge(category: "patterns", title: "Task outcomes",
                                     content: "\(total) task(s) run by the reference server, \(active) active.", source: "trust_tracker",
                                     confidence: 0.8, userID: nil, tags: ["learned"])
        return S.json(.object([("entries_created", .int(1)), ("entries_updated", .int(0)), ("entries_removed", .int(removed)),
                               ("sources_refreshed", .strings(["error_tracker", "arrangement_tracker", "trust_tracker"]))]))
    }

    func learnings(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("room_id", "str"), ("learnings", "list")])
        guard case .array(let items)? = body["learnings"] else { throw Failure.internalError }
        for (index, item) in items.enumerated() {
            try validate(item, required: [("category", "str"), ("title", "str"), ("content", "str"), ("room_id", "str")],
                         optional: [("confidence", "float"), ("tags", "list"), ("observed_at", "str")], loc: ["body", "learnings", "\(index)"])
        }
        let room = body["room_id"]!.stringValue!
        await state.addLearnings(roomID: room, items.map(PyJSON.init))
        return S.json(.object([("accepted", .int(items.count)), ("room_id", .string(room))]))
    }

    /// Turns pending room learnings into `aggregated` entries (one per distinct title).
    func aggregate(_ c: Call) async throws -> Response {
        let pending = await state.takeLearnings()
        var seen: Set<String> = []
        var created = 0
        for (_, learning) in pending {
            guard case .string(let title)? = learning["title"], seen.insert(title).inserted else { continue }
            let category: String = { if case .string(let c)? = learning["category"] { return c } else { return "patterns" } }()
            let content: String = { if case .string(let c)? = learning["content"] { return c } else { return "" } }()
            _ = await state.addKnowledge(category: category, title: title, content: content, source: "aggregated",
                                         confidence: 0.6, userID: nil, tags: ["room_learning"])
            created += 1
        }
        return S.json(.object([("entries_created", .int(created)), ("entries_updated", .int(0)), ("learnings_processed", .int(pending.count))]))
    }

    func syncStatus(_ c: Call) async throws -> Response {
        let rooms = await state.syncStatus()
        return S.json(.object([
            ("server_version", .int(await state.knowledgeVersion)),
            ("rooms", .array(rooms.map { .object([("room_id", .string($0.0)), ("last_synced_version", .int($0.1)),
                                                  ("last_sync_at", .string(PyTime.iso($0.2)))]) })),
        ]))
    }

    // MARK: Interventions

    func interventionStatus(_ c: Call) async throws -> Response {
        S.json(.object([("recent_queries_count", .int(await state.recentQueries.count)),
                        ("available_instruments", .strings(ReferenceEngine.instruments)), ("max_interventions", .int(3))]))
    }

    func evaluateInterventions(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("query", "str")], optional: [("trust_level", "int")])
        let query = body["query"]!.stringValue!
        let items = ReferenceEngine.interventions(query: query, instrument: ReferenceEngine.route(TaskRequest(query: query)),
                                                  trustLevel: body["trust_level"]?.intValue ?? 0, recentQueries: await state.recentQueries)
        return S.json(.object([("interventions", ReferenceEngine.interventionJSON(items)), ("count", .int(items.count))]))
    }
}

extension ReferenceState {
    func trustRecordsFor(userID: String) -> [TrustRecord] {
        [TrustRecord](trustValues.filter { $0.userID == userID })
    }
}
