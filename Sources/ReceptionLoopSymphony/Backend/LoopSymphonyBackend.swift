import Foundation
import ReceptionCore

/// A Loop Symphony server over HTTP and SSE.
///
/// - `submit`: `POST /task`. At trust level 0 the stream ends with `.planAwaitingApproval`;
///   otherwise it follows the task (see `follow`) to `.result` or `.failure`.
/// - `approve`: `POST /task/{id}/approve`, then follows the task.
/// - `reject`: Loop Symphony has **no reject endpoint**. Rejecting discards the plan on the
///   client: the id is remembered and a later `approve` of it is refused locally. The server
///   keeps the row in `awaiting_approval`, where it never runs and costs nothing.
/// - `cancel`: `POST /task/{id}/cancel` (only while the task runs on the server).
///
/// Following a task: open `GET /task/{id}/stream`; `started` → `.status(running)`, `iteration`
/// → `.progress`, `complete` → one `GET /task/{id}` for the full `TaskResponse` → `.result`,
/// `error` → `.failure`. A keepalive comment triggers one `GET /task/{id}` (the real server's
/// event history is per process, so after a restart a stream may only ever carry keepalives).
/// When the stream cannot be opened or breaks before a terminal event, it falls back to
/// polling `GET /task/{id}` every `pollInterval`.
public final class LoopSymphonyBackend: Backend, Sendable {
    public let client: LoopSymphonyClient
    private let rejected = LockedSet()
    /// Tasks this session asked the server to cancel (Ctrl-C, `/cancel`).
    private let cancelledHere = LockedSet()
    /// Plans this session was given and has neither approved nor rejected: the server's task
    /// lists (its in-memory task manager) leave them out, so `/tasks` says them from here.
    private let proposed = LockedPlans()
    private let name: String

    public init(client: LoopSymphonyClient, name: String = "loop-symphony") {
        self.client = client
        self.name = name
    }

    public convenience init(configuration: LoopSymphonyConfiguration, name: String = "loop-symphony") {
        self.init(client: LoopSymphonyClient(configuration: configuration), name: name)
    }

    public var descriptor: BackendDescriptor {
        BackendDescriptor(name: name, summary: "Loop Symphony at \(RedactedURL.display(client.configuration.baseURL)) (HTTP + SSE)",
                          capabilities: [.planApproval, .cancellation, .progress, .intentAware, .interventions, .taskLookup],
                          endpoint: client.configuration.baseURL)
    }

    /// A request that `mayAlreadyExist` (the offline queue sends it again) is looked up first
    /// with `GET /task/{id}` (the request's id is the task's): a task the server has is
    /// followed, never submitted a second time; only a 404 submits it.
    public func submit(_ request: ReceptionRequest) -> BackendEventStream {
        guard request.mayAlreadyExist else { return submit(TaskRequest(request)) }
        let outgoing = TaskRequest(request)
        return stream { backend, continuation in
            let existing: TaskState
            do {
                existing = try await backend.client.tasks.get(request.id)
            } catch BackendError.http(let status, _) where status == 404 {
                try await backend.post(outgoing, continuation: continuation)
                return
            } catch BackendError.http(let status, let detail) where status == 500 && detail.hasPrefix("Task failed") {
                continuation.yield(.accepted(taskID: request.id, status: .failed))
                continuation.yield(.failure(Self.failure(taskID: request.id, message: detail)))
                return
            }
            switch existing {
            case .finished(let response):
                continuation.yield(.accepted(taskID: request.id, status: .complete))
                continuation.yield(.result(BackendResult(response)))
            case .inProgress(let pending) where pending.status == .awaitingApproval:
                // GET /task/{id} does not repeat the plan: say what there is to approve.
                continuation.yield(.accepted(taskID: request.id, status: pending.status))
                continuation.yield(.planAwaitingApproval(Plan(taskID: request.id,
                    summary: "The server already has this message (sent before Reception stopped) with a plan awaiting approval.")))
            case .inProgress(let pending):
                continuation.yield(.accepted(taskID: request.id, status: pending.status))
                try await backend.follow(request.id, continuation: continuation)
            }
        }
    }

    /// Sends a Loop Symphony request as it is (for callers that build the wire body themselves);
    /// one without preferences runs at the configuration's default trust level.
    public func submit(_ request: TaskRequest) -> BackendEventStream {
        var outgoing = request
        if outgoing.preferences == nil {
            outgoing.preferences = TaskPreferences(trustLevel: client.configuration.defaultTrustLevel)
        }
        return stream { [outgoing] backend, continuation in
            try await backend.post(outgoing, continuation: continuation)
        }
    }

    /// `POST /task`, then the plan or the task's progress.
    private func post(_ outgoing: TaskRequest, continuation: BackendEventStream.Continuation) async throws {
        let answer = try await client.tasks.submit(outgoing)
        continuation.yield(.accepted(taskID: answer.taskID, status: answer.status))
        if answer.status == .awaitingApproval {
            guard let plan = answer.plan else {
                throw BackendError.protocolViolation("POST /task answered awaiting_approval without a plan")
            }
            proposed.add(answer.taskID, query: outgoing.query)
            continuation.yield(.planAwaitingApproval(Plan(plan)))
            return
        }
        try await follow(answer.taskID, continuation: continuation)
    }

    public func approve(taskID: String) -> BackendEventStream {
        stream { backend, continuation in
            if backend.rejected.contains(taskID) {
                throw BackendError.invalidTaskState(taskID: taskID, reason: "the plan was rejected; submit the request again to get a new plan")
            }
            let answer = try await backend.client.tasks.approve(taskID)
            backend.proposed.remove(taskID)
            continuation.yield(.accepted(taskID: answer.taskID, status: answer.status))
            try await backend.follow(answer.taskID, continuation: continuation)
        }
    }

    /// Client-side discard (the server has no call for it): see the type's documentation.
    public func reject(taskID: String) async throws {
        switch try await client.tasks.get(taskID) {
        case .inProgress(let pending) where pending.status == .awaitingApproval:
            rejected.insert(taskID)
            proposed.remove(taskID)
        case .inProgress(let pending):
            throw BackendError.invalidTaskState(taskID: taskID, reason: "is not awaiting approval (status: \(pending.status))")
        case .finished:
            throw BackendError.invalidTaskState(taskID: taskID, reason: "is not awaiting approval (status: complete)")
        }
    }

    /// Plans given to this session and still awaiting approval, oldest first: (task id, query).
    public var plansAwaitingApproval: [(taskID: String, query: String)] { proposed.all }

    /// True when `reject(taskID:)` discarded this plan.
    public func isRejected(_ taskID: String) -> Bool { rejected.contains(taskID) }

    /// `taskID` may be the short id the task tables show (see `TaskService.fullID`).
    public func cancel(taskID: String) async throws {
        let id = try await client.tasks.fullID(taskID)
        do {
            _ = try await client.tasks.cancel(id)
            cancelledHere.insert(id)
        } catch BackendError.http(400, let detail) {
            // The server's "Task … is not running (state: cancelled)" for a task this session
            // itself cancelled a moment ago read as if something were wrong: say the state.
            guard let state = LoopSymphonyWording.notRunning(detail, cancelledHere: cancelledHere.contains(id)) else {
                throw BackendError.http(status: 400, detail: detail)
            }
            throw BackendError.invalidTaskState(taskID: id, reason: state)
        }
    }

    public func wirePayload(for request: ReceptionRequest) -> JSONValue? {
        try? Wire.decode(JSONValue.self, from: Wire.encode(TaskRequest(request)))
    }

    // MARK: - Following a task

    func follow(_ taskID: String, continuation: BackendEventStream.Continuation) async throws {
        var sawTerminal = false
        var saidUnavailable = false
        if client.configuration.prefersStreaming {
            do {
                sawTerminal = try await followStream(taskID, continuation: continuation)
            } catch let error as BackendError {
                // The stream is unavailable or broke: polling still gets the answer. Say so.
                if case .http(let status, _) = error, status == 404 { throw error }
                continuation.yield(.progress(TaskProgress(taskID: taskID, phase: "polling",
                    message: "live updates unavailable (\(error.description)); polling for the result")))
                saidUnavailable = true
                sawTerminal = false
            }
        }
        if !sawTerminal {
            if client.configuration.prefersStreaming && !saidUnavailable {
                // The stream ended cleanly before the task did (a proxy, a server restart): the
                // rest of the iterations will not show, and the person should know why.
                continuation.yield(.progress(TaskProgress(taskID: taskID, phase: "polling",
                    message: "live updates stopped before the task finished; waiting for the result")))
            }
            try await pollToTheEnd(taskID, continuation: continuation)
        }
    }

    /// Returns true when the stream delivered the terminal event (and it was passed on).
    private func followStream(_ taskID: String, continuation: BackendEventStream.Continuation) async throws -> Bool {
        var running = false
        for try await event in client.tasks.events(taskID) {
            switch event {
            case .started:
                if !running { running = true; continuation.yield(.status(taskID: taskID, status: .running)) }
            case .iteration(_, let number, let phase, let data, let duration, _):
                if !running { running = true; continuation.yield(.status(taskID: taskID, status: .running)) }
                continuation.yield(.progress(TaskProgress(taskID: taskID, iteration: number, phase: phase,
                                                          message: Self.describeIteration(number: number, phase: phase, data: data),
                                                          durationMS: duration, data: data)))
            case .complete(_, let outcome, let summary, let confidence, _):
                // `checkOnce` or `poll` says `complete` once, with the result.
                let streamed = BackendResult(taskID: taskID, outcome: outcome, text: summary, confidence: confidence)
                do {
                    if try await finishWithResult(taskID, continuation: continuation) { return true }
                    // The row never caught up with the stream: stop asking, keep the summary.
                    continuation.yield(.progress(TaskProgress(taskID: taskID, phase: "result",
                        message: "the server still reports the task as running \(Self.seconds(client.configuration.resultGrace)) after its stream said complete; showing the summary it streamed")))
                } catch let error as BackendError where Self.serverWentAway(error) {
                    // The stream already gave the summary: a server that stops answering now
                    // (a graceful stop) must not lose it.
                    continuation.yield(.progress(TaskProgress(taskID: taskID, phase: "result",
                        message: "the server stopped answering before the full result could be fetched (\(error.description)); showing the summary it streamed")))
                }
                continuation.yield(.status(taskID: taskID, status: .complete))
                continuation.yield(.result(streamed))
                return true
            case .error(_, let message, _):
                continuation.yield(.status(taskID: taskID, status: .failed))
                continuation.yield(.failure(Self.failure(taskID: taskID, message: message)))
                return true
            case .keepalive:
                // Silence: ask the task itself, in case its events were lost (server restart).
                if try await checkOnce(taskID, continuation: continuation) { return true }
            case .other:
                continue
            }
        }
        return false
    }

    /// One `GET /task/{id}`; passes on and returns true when the task is finished.
    private func checkOnce(_ taskID: String, continuation: BackendEventStream.Continuation) async throws -> Bool {
        do {
            switch try await client.tasks.get(taskID) {
            case .finished(let response):
                continuation.yield(.status(taskID: taskID, status: .complete))
                continuation.yield(.result(BackendResult(response)))
                return true
            case .inProgress:
                return false
            }
        } catch BackendError.http(let status, let detail) where status == 500 && detail.hasPrefix("Task failed") {
            continuation.yield(.status(taskID: taskID, status: .failed))
            continuation.yield(.failure(Self.failure(taskID: taskID, message: detail)))
            return true
        }
    }

    /// Fetches the full result after the stream said `complete`; false when the server still
    /// has no result after `resultGrace`.
    private func finishWithResult(_ taskID: String, continuation: BackendEventStream.Continuation) async throws -> Bool {
        // The database row is written before the event is emitted, so one read is normally
        // enough; a short poll covers servers that order them the other way.
        if try await checkOnce(taskID, continuation: continuation) { return true }
        return try await poll(taskID, continuation: continuation, giveUpAfter: client.configuration.resultGrace)
    }

    /// Polls until the task finishes (true) or `giveUpAfter` passes (false).
    @discardableResult
    private func poll(_ taskID: String, continuation: BackendEventStream.Continuation, giveUpAfter: Duration) async throws -> Bool {
        var last: TaskStatus?
        let deadline = ContinuousClock.now + giveUpAfter
        while true {
            try Task.checkCancellation()
            guard ContinuousClock.now < deadline else { return false }
            do {
                switch try await client.tasks.get(taskID) {
                case .finished(let response):
                    continuation.yield(.status(taskID: taskID, status: .complete))
                    continuation.yield(.result(BackendResult(response)))
                    return true
                case .inProgress(let pending):
                    if pending.status != last {
                        last = pending.status
                        continuation.yield(.status(taskID: taskID, status: pending.status))
                    }
                }
            } catch BackendError.http(let status, let detail) where status == 500 && detail.hasPrefix("Task failed") {
                continuation.yield(.status(taskID: taskID, status: .failed))
                continuation.yield(.failure(Self.failure(taskID: taskID, message: detail)))
                return true
            }
            try await Task.sleep(for: client.configuration.pollInterval)
        }
    }

    /// Polls for a task the stream cannot follow, up to `maxWait`; then says it stopped waiting.
    private func pollToTheEnd(_ taskID: String, continuation: BackendEventStream.Continuation) async throws {
        let limit = client.configuration.maxWait
        if try await poll(taskID, continuation: continuation, giveUpAfter: limit) { return }
        continuation.yield(.failure(TaskFailure(taskID: taskID, message: "Stopped waiting after \(Self.seconds(limit)): the server still reports task \(taskID) as unfinished. It may finish later; /tasks get \(taskID) shows it then.")))
    }

    /// "300 ms", "10 s", "30 min".
    static func seconds(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        if seconds == 0 { return "\(duration.components.attoseconds / 1_000_000_000_000_000) ms" }
        return seconds >= 120 && seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }

    /// Errors that mean the server is gone or going, not that the task failed.
    static func serverWentAway(_ error: BackendError) -> Bool {
        switch error {
        case .unreachable, .timedOut, .connectionLost: true
        case .http(let status, _): [502, 503, 504].contains(status)
        default: false
        }
    }

    static func failure(taskID: String, message: String) -> TaskFailure {
        let cancelled = message.range(of: "cancel", options: .caseInsensitive) != nil
        return TaskFailure(taskID: taskID, message: LoopSymphonyWording.taskFailure(message), cancelled: cancelled)
    }

    /// "iteration 2: 6 new findings (6 in total), confidence 0.95".
    static func describeIteration(number: Int, phase: String, data: JSONValue?) -> String {
        var parts: [String] = []
        if let new = data?["new_findings"]?.intValue {
            let total = data?["total_findings"]?.intValue
            parts.append("\(new) new finding\(new == 1 ? "" : "s")" + (total.map { " (\($0) in total)" } ?? ""))
        }
        if let confidence = data?["confidence"]?.doubleValue {
            parts.append("confidence \(String(format: "%.2f", confidence))")
        }
        if data?["should_terminate"]?.boolValue == true { parts.append("ready to stop") }
        let head = phase == "iteration" ? "iteration \(number)" : "\(phase.replacingOccurrences(of: "_", with: " ")) \(number)"
        return parts.isEmpty ? head : "\(head): " + parts.joined(separator: ", ")
    }

    /// Runs `body` as the producer of a stream. Cancelling the consumer cancels the HTTP work.
    private func stream(_ body: @escaping @Sendable (LoopSymphonyBackend, BackendEventStream.Continuation) async throws -> Void) -> BackendEventStream {
        BackendEventStream { continuation in
            let task = Task {
                do {
                    try await body(self, continuation)
                    continuation.finish()
                } catch is CancellationError {
                    // The contract: a cancelled task ends with a cancelled failure, as in every backend.
                    continuation.yield(.failure(TaskFailure(message: "Task cancelled", cancelled: true)))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// The plans awaiting approval, in the order they came (a handful per session at most).
final class LockedPlans: @unchecked Sendable {
    private let lock = NSLock()
    private var plans: [(taskID: String, query: String)] = []
    func add(_ taskID: String, query: String) { lock.lock(); plans.append((taskID, query)); lock.unlock() }
    func remove(_ taskID: String) { lock.lock(); plans.removeAll { $0.taskID == taskID }; lock.unlock() }
    var all: [(taskID: String, query: String)] { lock.lock(); defer { lock.unlock() }; return plans }
}

/// A small lock-protected set (the rejected plan ids).
final class LockedSet: @unchecked Sendable {
    private let lock = NSLock()
    private var values: Set<String> = []
    func insert(_ value: String) { lock.lock(); values.insert(value); lock.unlock() }
    func contains(_ value: String) -> Bool { lock.lock(); defer { lock.unlock() }; return values.contains(value) }
}
