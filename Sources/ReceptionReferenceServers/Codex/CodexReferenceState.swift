import Foundation
import ReceptionCore

/// The reference runtime's workers and their event ledgers (bounded by `retention`), the
/// fault plan, and what tests read back (how many streams were cut or replayed).
actor CodexReferenceState {
    struct Worker {
        var id: String
        var status: String
        var adapter: String
        var workspace: String?
        var owner: String
        /// Whether a desktop app runs it (and so answers handshakes).
        var desktop: Bool
        var startedAt: String
        var stoppedAt: String?
        var updatedAt: String
        var lastHeartbeat: Date
        var events: [Event] = []
        var nextSeq = 1
    }

    struct Event {
        var seq: Int
        var type: String
        var payload: JSONValue
        var occurredAt: String
    }

    private var workers: [String: Worker]
    private var order: [String]
    private let retention: Int
    private var random: SeededRandom
    private var dropsLeft: Int
    private var replaysLeft: Int
    private var gatewayErrorsLeft: Int
    private var garbageLeft: [CodexStreamGarbage]
    private(set) var garbageSent = 0
    private(set) var gatewayErrorsSent = 0
    private(set) var streamsOpened = 0
    private(set) var streamsCut = 0
    private(set) var streamsReplayed = 0
    /// Stream responses that reached their end (the long poll's `tail_ms`), cut ones not counted.
    private(set) var streamsEnded = 0
    /// Event frames written (or being written) on streams, whole (replays and cuts not counted).
    private(set) var framesWritten = 0
    private(set) var requestIDs: [String] = []
    private(set) var postedEvents: [JSONValue] = []
    private var ticks = 0

    init(options: CodexReferenceOptions) {
        retention = max(1, options.retention)
        random = SeededRandom(seed: options.seed)
        dropsLeft = options.drops
        replaysLeft = options.duplicateReplays
        gatewayErrorsLeft = options.gatewayErrors
        garbageLeft = options.garbageStreams
        (workers, order) = Self.seeded(retention: retention)
    }

    /// The four workers every run starts with, each with its first events.
    static func seeded(retention: Int) -> ([String: Worker], [String]) {
        let now = Wire.timestamp()
        var workers: [String: Worker] = [:]
        var order: [String] = []
        for (id, status, adapter, workspace, owner, desktop) in [
            ("wrk-desktop", "running", "desktop", "ws/reception", "dev", true),
            ("wrk-hosted", "running", "in_memory", nil, "dev", false),
            ("wrk-stopped", "stopped", "desktop", "ws/old", "dev", true),
            ("wrk-other", "running", "desktop", "ws/secret", "someone-else", true),
        ] as [(String, String, String, String?, String, Bool)] {
            var worker = Worker(id: id, status: status, adapter: adapter, workspace: workspace, owner: owner, desktop: desktop,
                                startedAt: now, stoppedAt: status == "stopped" ? now : nil, updatedAt: now, lastHeartbeat: Date())
            Self.record(&worker, "worker.started", .object(["status": .string("running")]), retention: retention)
            if id == "wrk-desktop" {
                Self.record(&worker, "worker.event", .object(["source": .string("autopilot-desktop"), "method": .string("thread/started"),
                                                              "params": .object(["thread_id": .string("thr_1")])]), retention: retention)
                Self.record(&worker, "worker.event", .object(["source": .string("autopilot-desktop"), "method": .string("turn/completed"),
                                                              "params": .object(["thread_id": .string("thr_1"), "turn_id": .string("turn_1")])]),
                            retention: retention)
            }
            if id == "wrk-stopped" { Self.record(&worker, "worker.stopped", .object(["reason": .string("idle")]), retention: retention) }
            workers[id] = worker
            order.append(id)
        }
        return (workers, order)
    }

    /// Appends to a worker's ledger, keeping at most `retention` events.
    @discardableResult
    static func record(_ worker: inout Worker, _ type: String, _ payload: JSONValue, retention: Int) -> Event {
        let event = Event(seq: worker.nextSeq, type: type, payload: payload, occurredAt: Wire.timestamp())
        worker.nextSeq += 1
        worker.events.append(event)
        if worker.events.count > retention { worker.events.removeFirst(worker.events.count - retention) }
        worker.updatedAt = event.occurredAt
        worker.lastHeartbeat = Date()
        return event
    }

    // MARK: reading

    func worker(_ id: String) -> Worker? { workers[id] }

    func list(owner: String, status: String?, limit: Int) -> [Worker] {
        order.compactMap { workers[$0] }.filter { $0.owner == owner && (status == nil || $0.status == status) }.prefix(limit).map { $0 }
    }

    /// The worker's events after `cursor`, or nil when the cursor is older than what is kept.
    func events(_ id: String, after cursor: Int, limit: Int = 200) -> [Event]? {
        guard let worker = workers[id] else { return [] }
        let oldest = worker.events.first?.seq ?? worker.nextSeq
        if cursor < oldest - 1 { return nil }
        return Array(worker.events.filter { $0.seq > cursor }.prefix(limit))
    }

    func latestSeq(_ id: String) -> Int { (workers[id]?.nextSeq ?? 1) - 1 }

    // MARK: changing

    @discardableResult
    func append(_ id: String, _ type: String, _ payload: JSONValue) -> Event? {
        guard var worker = workers[id] else { return nil }
        let event = Self.record(&worker, type, payload, retention: retention)
        workers[id] = worker
        return event
    }

    func setStatus(_ id: String, _ status: String) {
        guard var worker = workers[id] else { return }
        worker.status = status
        if status == "stopped" { worker.stoppedAt = Wire.timestamp() }
        workers[id] = worker
    }

    /// One event for each running desktop worker, as a busy desktop would mirror them.
    func tick() {
        ticks += 1
        for id in order where workers[id]?.status == "running" && workers[id]?.desktop == true && workers[id]?.owner == "dev" {
            append(id, "worker.event", .object(["source": .string("autopilot-desktop"), "method": .string("codex/event"),
                                                "params": .object(["msg": .string("tick \(ticks)")])]))
        }
    }

    func recordRequestID(_ id: String) {
        requestIDs.append(id)
        if requestIDs.count > 500 { requestIDs.removeFirst(requestIDs.count - 500) }
    }

    func recordPosted(_ event: JSONValue) {
        postedEvents.append(event)
        if postedEvents.count > 200 { postedEvents.removeFirst(postedEvents.count - 200) }
    }

    // MARK: the fault plan

    /// For a new stream response: where to cut it (after `frames` whole frames and `bytes`
    /// bytes of the next), and whether to replay its events.
    func planStream() -> (cut: (frames: Int, bytes: Int)?, replay: Bool) {
        streamsOpened += 1
        var cut: (Int, Int)?
        if dropsLeft > 0 { cut = (Int(random.next() % 4), Int(random.next() % 120)) }
        let replay = replaysLeft > 0
        return (cut, replay)
    }

    /// The planned cut happened (a stream with too few events ends cleanly instead, and the
    /// cut is kept for a later one).
    func didCut() { dropsLeft -= 1; streamsCut += 1 }

    /// The status this stream request is refused with while the planned burst lasts, else nil.
    func takeGarbage() -> CodexStreamGarbage? {
        guard !garbageLeft.isEmpty else { return nil }
        garbageSent += 1
        return garbageLeft.removeFirst()
    }

    func takeGatewayError() -> Int? {
        guard gatewayErrorsLeft > 0 else { return nil }
        gatewayErrorsLeft -= 1
        gatewayErrorsSent += 1
        return gatewayErrorsSent % 2 == 1 ? 502 : 503
    }
    func didReplay() { replaysLeft -= 1; streamsReplayed += 1 }
    func didWriteFrame() { framesWritten += 1 }
    func didEndStream() { streamsEnded += 1 }
}

