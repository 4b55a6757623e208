import Foundation
import HTTPTypes
import Hummingbird
import ReceptionCore
import ReceptionLoopSymphony

/// The reference Loop Symphony server's routes: heartbeats (scheduled tasks).
extension LoopSymphonyReferenceServer {
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
}
