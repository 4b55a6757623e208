import Foundation
import ReceptionCore
import ReceptionLoopSymphony

/// Everything the reference server remembers, in one actor. All of it is in memory, like the
/// real server's event bus, task manager, trust tracker and room registry.
actor ReferenceState {
    let options: LoopSymphonyReferenceOptions
    let startedAt = Date()

    init(options: LoopSymphonyReferenceOptions) {
        self.options = options
        rooms["server"] = Room(id: "server", name: "Loop Symphony server", type: "server", url: "http://127.0.0.1/",
                               capabilities: ["reasoning", "web_search", "vision", "synthesis", "research"],
                               instruments: ["note", "research", "synthesis", "vision"], lastHeartbeat: Date(), registeredAt: Date())
        if options.seedKnowledge {
            let seeds = Self.seedEntries()
            for seed in seeds { knowledge[seed.id] = seed }
            knowledgeVersion = seeds.count
        }
    }

    // MARK: Auth

    struct Caller: Sendable { var app: LoopSymphonyReferenceOptions.App; var userID: String? }
    private var users: [String: String] = [:]  // external id → internal UUID

    func internalUserID(external: String) -> String {
        if let id = users[external] { return id }
        let id = UUID().uuidString.lowercased()
        users[external] = id
        return id
    }

    // MARK: Request ids (echoed in responses, recorded for tests)

    private(set) var requestIDs: [String] = []
    func record(requestID: String?) { if let requestID { requestIDs.append(requestID) } }

    // MARK: Tasks

    enum ManagerState: String, Sendable { case queued, running, cancelling, cancelled, completed, failed }

    struct TaskRecord: Sendable {
        var request: TaskRequest
        var status: TaskStatus
        var createdAt: Date
        var response: TaskResponse?
        var error: String?
        var iterations: [PyJSON] = []
        var appID: String?
        var userID: String?
        var instrument: String
        var trustLevel: Int
        var kind: String  // task | novel | loop
        var spec: PyJSON?
        // TaskManager view (only once the task runs)
        var managerState: ManagerState?
        var startedAt: Date?
        var currentIteration = 0
        var maxIterations = 1
    }

    private(set) var tasks: [String: TaskRecord] = [:]
    private var taskOrder: [String] = []
    private var runners: [String: Task<Void, Never>] = [:]
    var conductorUsed = false
    func markConductorUsed() { conductorUsed = true }

    func createTask(_ record: TaskRecord) {
        if tasks[record.request.id] == nil { taskOrder.append(record.request.id) }
        tasks[record.request.id] = record
    }

    func task(_ id: String) -> TaskRecord? { tasks[id] }

    func updateTask(_ id: String, _ change: (inout TaskRecord) -> Void) {
        guard var record = tasks[id] else { return }
        change(&record)
        tasks[id] = record
    }

    func setRunner(_ id: String, _ runner: Task<Void, Never>) { runners[id] = runner }
    func removeRunner(_ id: String) { runners[id] = nil }

    /// Cancels a running task; returns the error detail (or nil on success) as the real server words it.
    func cancel(_ id: String) -> (status: Int, detail: String)? {
        guard let record = tasks[id] else { return (404, "Task \(id) not found") }
        guard let state = record.managerState else {
            return (400, "Task \(id) is not currently running (status: \(record.status.rawValue))")
        }
        guard state == .running else { return (400, "Task \(id) is not running (state: \(state.rawValue))") }
        updateTask(id) { $0.managerState = .cancelling }
        runners[id]?.cancel()
        return nil
    }

    func managedTasks(activeOnly: Bool, appID: String?, userID: String?, limit: Int) -> [PyJSON] {
        let now = Date()
        var list = taskOrder.compactMap { tasks[$0] }.filter { $0.managerState != nil }
        if let appID { list = list.filter { $0.appID == appID } }
        if let userID { list = list.filter { $0.userID == userID } }
        if activeOnly { list = list.filter { [.queued, .running, .cancelling].contains($0.managerState!) } }
        list = Array(list.reversed().prefix(limit))
        return list.map { record in
            let query = record.request.query.count > 100 ? String(record.request.query.prefix(100)) + "..." : record.request.query
            let started = record.startedAt
            let progress: String
            switch record.managerState! {
            case .queued: progress = "Queued"
            case .running, .cancelling: progress = "Iteration \(record.currentIteration)/\(record.maxIterations)"
            case .completed: progress = "Completed"
            case .failed: progress = "Failed"
            case .cancelled: progress = "Cancelled"
            }
            let wrap = ReferenceEngine.hostile(record.request.query)
            return .object([
                ("task_id", .string(record.request.id)), ("query", .string(wrap(query))), ("instrument", .string(record.instrument)),
                ("state", .string(record.managerState!.rawValue)), ("started_at", .str(started.map(PyTime.iso))),
                ("progress", .string(wrap(progress))), ("current_iteration", .int(record.currentIteration)),
                ("max_iterations", .int(record.maxIterations)), ("app_id", .str(record.appID)), ("user_id", .str(record.userID)),
                ("created_at", .string(PyTime.iso(record.createdAt))),
                ("running_seconds", .double(((started.map { now.timeIntervalSince($0) } ?? 0) * 1000).rounded() / 1000)),
            ])
        }
    }

    func taskStats() -> (active: Int, total: Int) {
        let managed = tasks.values.filter { $0.managerState != nil }
        return (managed.filter { [.queued, .running, .cancelling].contains($0.managerState!) }.count, managed.count)
    }

    // MARK: Event bus (history per task, subscribers get history first)

    enum StreamItem: Sendable { case event(PyJSON, terminal: Bool) }

    private var history: [String: [PyJSON]] = [:]
    private var terminal: Set<String> = []
    private var subscribers: [String: [UUID: AsyncStream<StreamItem>.Continuation]] = [:]

    func emit(_ taskID: String, _ pairs: [(String, PyJSON)]) {
        guard let name = pairs.first(where: { $0.0 == "event" })?.1, case .string(let event) = name else { return }
        let payload = PyJSON.object(pairs + [("task_id", .string(taskID)), ("timestamp", .double(PyTime.unix(Date())))])
        let isTerminal = event == "complete" || event == "error"
        history[taskID, default: []].append(payload)
        if isTerminal { terminal.insert(taskID) }
        for continuation in subscribers[taskID, default: [:]].values {
            continuation.yield(.event(payload, terminal: isTerminal))
        }
    }

    func hasTerminalEvent(_ taskID: String) -> Bool { terminal.contains(taskID) }

    /// A late joiner gets the full history, then live events.
    func subscribe(_ taskID: String) -> (UUID, AsyncStream<StreamItem>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream<StreamItem>.makeStream(bufferingPolicy: .bufferingNewest(100))
        for event in history[taskID, default: []] {
            let name = event["event"]
            let isTerminal = name == .string("complete") || name == .string("error")
            continuation.yield(.event(event, terminal: isTerminal))
        }
        subscribers[taskID, default: [:]][id] = continuation
        return (id, stream)
    }

    func unsubscribe(_ taskID: String, _ id: UUID) {
        subscribers[taskID]?[id]?.finish()
        subscribers[taskID]?[id] = nil
    }

    /// Event streams a client holds open, over all tasks.
    var openStreamCount: Int { subscribers.values.reduce(0) { $0 + $1.count } }

    // MARK: Trust (in memory, only for callers with a valid key)

    struct TrustRecord: Sendable {
        var appID: String
        var userID: String?
        var total = 0, successful = 0, failed = 0, consecutive = 0, level = 0
        var lastTaskAt: Date?
        var createdAt = Date(), updatedAt = Date()
    }

    private var trust: [String: TrustRecord] = [:]
    var trustValues: [TrustRecord] { Array(trust.values) }
    private func trustKey(_ appID: String, _ userID: String?) -> String { appID + "|" + (userID ?? "") }

    func trustRecord(appID: String, userID: String?) -> TrustRecord {
        trust[trustKey(appID, userID)] ?? TrustRecord(appID: appID, userID: userID)
    }

    func recordOutcome(appID: String, userID: String?, success: Bool) {
        var record = trustRecord(appID: appID, userID: userID)
        record.total += 1
        if success { record.successful += 1; record.consecutive += 1 } else { record.failed += 1; record.consecutive = 0 }
        record.lastTaskAt = Date()
        record.updatedAt = Date()
        trust[trustKey(appID, userID)] = record
    }

    func setTrustLevel(appID: String, userID: String?, level: Int) -> TrustRecord {
        var record = trustRecord(appID: appID, userID: userID)
        record.level = level
        record.updatedAt = Date()
        trust[trustKey(appID, userID)] = record
        return record
    }

    // MARK: Knowledge

    struct KnowledgeRecord: Sendable {
        var id: String, category: String, title: String, content: String, source: String
        var confidence: Double, version: Int, userID: String?, tags: [String], isActive: Bool
        var createdAt: Date, updatedAt: Date
    }

    private(set) var knowledge: [String: KnowledgeRecord] = [:]
    private var tombstones: [String: Int] = [:]
    private(set) var knowledgeVersion = 0
    private var roomSync: [String: (version: Int, at: Date)] = [:]
    private var learnings: [(roomID: String, learning: PyJSON)] = []

    private static func seedEntries() -> [KnowledgeRecord] {
        let seeds: [(String, String, String, [String])] = [
            ("capabilities", "Quick answers", "The note instrument answers simple questions in a single pass.", ["note"]),
            ("capabilities", "Research", "The research instrument iterates: search, gather findings, check confidence, stop when saturated.", ["research", "web"]),
            ("boundaries", "No live data in the reference server", "The reference server answers deterministically from the query text; it never searches the web.", ["reference"]),
        ]
        let now = Date()
        return seeds.enumerated().map { index, seed in
            KnowledgeRecord(id: UUID().uuidString.lowercased(), category: seed.0, title: seed.1, content: seed.2, source: "seed",
                            confidence: 1.0, version: index + 1, userID: nil, tags: seed.3, isActive: true,
                            createdAt: now.addingTimeInterval(Double(index) / 1000), updatedAt: now.addingTimeInterval(Double(index) / 1000))
        }
    }

    func addKnowledge(category: String, title: String, content: String, source: String, confidence: Double,
                      userID: String?, tags: [String]) -> KnowledgeRecord {
        knowledgeVersion += 1
        let now = Date()
        let record = KnowledgeRecord(id: UUID().uuidString.lowercased(), category: category, title: title, content: content,
                                     source: source, confidence: confidence, version: knowledgeVersion, userID: userID,
                                     tags: tags, isActive: true, createdAt: now, updatedAt: now)
        knowledge[record.id] = record
        return record
    }

    func removeKnowledge(where predicate: (KnowledgeRecord) -> Bool) -> Int {
        let doomed = knowledge.values.filter(predicate).map(\.id)
        guard !doomed.isEmpty else { return 0 }
        knowledgeVersion += 1
        for id in doomed {
            knowledge[id] = nil
            tombstones[id] = knowledgeVersion
        }
        return doomed.count
    }

    func knowledgeEntries(category: String? = nil, source: String? = nil, userID: String? = nil) -> [KnowledgeRecord] {
        knowledge.values
            .filter { category == nil || $0.category == category }
            .filter { source == nil || $0.source == source }
            .filter { userID == nil || $0.userID == userID }
            .sorted { ($0.createdAt, $0.version) > ($1.createdAt, $1.version) }
    }

    /// The delta for a room. Like the real server, it is computed from what this room was last
    /// sent (server side), not from the version the client reports; the push is recorded as synced.
    func knowledgeDelta(roomID: String) -> (version: Int, entries: [KnowledgeRecord], removed: [String])? {
        let since = roomSync[roomID]?.version ?? 0
        let entries = knowledge.values.filter { $0.version > since }.sorted { $0.version < $1.version }
        let removed = tombstones.filter { $0.value > since }.map(\.key).sorted()
        guard !entries.isEmpty || !removed.isEmpty else { return nil }
        roomSync[roomID] = (knowledgeVersion, Date())
        return (knowledgeVersion, entries, removed)
    }

    func syncStatus() -> [(String, Int, Date)] {
        roomSync.map { ($0.key, $0.value.version, $0.value.at) }.sorted { $0.0 < $1.0 }
    }

    func addLearnings(roomID: String, _ items: [PyJSON]) { learnings += items.map { (roomID, $0) } }

    func takeLearnings() -> [(roomID: String, learning: PyJSON)] {
        defer { learnings.removeAll() }
        return learnings
    }

    // MARK: Rooms

    struct Room: Sendable {
        var id: String, name: String, type: String, url: String
        var capabilities: [String], instruments: [String]
        var lastHeartbeat: Date, registeredAt: Date
    }

    private(set) var rooms: [String: Room] = [:]

    func register(_ room: Room) { rooms[room.id] = room }

    func heartbeat(roomID: String, capabilities: [String]?) -> Bool {
        guard var room = rooms[roomID] else { return false }
        room.lastHeartbeat = Date()
        if let capabilities { room.capabilities = capabilities }
        rooms[roomID] = room
        return true
    }

    func deregister(_ roomID: String) -> Bool { rooms.removeValue(forKey: roomID) != nil }

    func roomStatus(_ room: Room) -> String {
        if room.id == "server" { return "online" }
        let limit = Double(options.roomOfflineAfter.components.seconds) + Double(options.roomOfflineAfter.components.attoseconds) / 1e18
        return Date().timeIntervalSince(room.lastHeartbeat) > limit ? "offline" : "online"
    }

    // MARK: Heartbeats (scheduled tasks)

    struct HeartbeatRecord: Sendable {
        var id: String, appID: String, userID: String?, name: String, queryTemplate: String, cron: String
        var timezone: String, isActive: Bool, contextTemplate: PyJSON, webhookURL: String?
        var createdAt: Date, updatedAt: Date, lastRunAt: Date?
    }

    private(set) var heartbeats: [String: HeartbeatRecord] = [:]
    private var heartbeatOrder: [String] = []

    func putHeartbeat(_ record: HeartbeatRecord) {
        if heartbeats[record.id] == nil { heartbeatOrder.append(record.id) }
        heartbeats[record.id] = record
    }

    func deleteHeartbeat(_ id: String) { heartbeats[id] = nil; heartbeatOrder.removeAll { $0 == id } }

    func orderedHeartbeats() -> [HeartbeatRecord] { heartbeatOrder.compactMap { heartbeats[$0] } }

    // MARK: Arrangements

    private(set) var arrangements: [String: PyJSON] = [:]
    private var arrangementOrder: [String] = []

    func putArrangement(id: String, _ value: PyJSON) {
        if arrangements[id] == nil { arrangementOrder.append(id) }
        arrangements[id] = value
    }

    func deleteArrangement(_ id: String) -> Bool {
        arrangementOrder.removeAll { $0 == id }
        return arrangements.removeValue(forKey: id) != nil
    }

    func orderedArrangements() -> [PyJSON] { arrangementOrder.compactMap { arrangements[$0] } }

    // MARK: Interventions

    private(set) var recentQueries: [String] = []
    func remember(query: String) {
        recentQueries.append(query)
        if recentQueries.count > 50 { recentQueries.removeFirst() }
    }
}
