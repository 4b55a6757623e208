import Foundation
import ReceptionCore

/// Checks a live backend against the event contract of `Backend` (its doc comment): every
/// adapter's tests run it against the adapter's reference server, so all engines behave
/// the same way towards the front end.
///
/// Each scenario names a request the engine is expected to treat in a certain way (answer,
/// run slowly, fail, send fields this client does not know, drop the connection). A
/// scenario left nil is reported as not applicable, with the reason, never as passed.
///
/// ```swift
/// let report = await BackendConformance(backend: backend, scenarios: .init(
///     answered: ReceptionRequest(text: "hello", trustLevel: 1),
///     slow: ReceptionRequest(text: "slow research", trustLevel: 1))).run()
/// #expect(report.failures.isEmpty, "\(report)")
/// ```
public struct BackendConformance: Sendable {
    public struct Scenarios: Sendable {
        /// Answered with a `.result` (at a trust level that runs at once).
        public var answered: ReceptionRequest
        /// Runs long enough (a few seconds) to be cancelled mid-task.
        public var slow: ReceptionRequest
        /// One the engine fails: must end in `.failure` or a thrown `BackendError`, not a hang.
        public var failing: ReceptionRequest?
        /// One for which the server sends fields and enum values this client does not know.
        public var unusual: ReceptionRequest?
        /// One for which the connection drops mid-answer and the answer cannot be had another
        /// way: the stream must end by throwing a `BackendError`, in a `.failure`, or (an engine
        /// whose answer arrived before the drop) in a result whose outcome says it is partial
        /// (not `complete`). An ordinary result fails the check. (An engine that recovers from
        /// a dropped stream, e.g. by polling its task, is given a drop it cannot recover from.)
        public var dropped: ReceptionRequest?
        /// A trust-level-0 request answered with a plan (for backends with plan approval).
        public var planned: ReceptionRequest?
        /// Why a scenario left nil does not apply to this backend, keyed by the scenario's
        /// name: one of `Scenarios.optionalNames` (another key is reported as a failure, so a
        /// misspelt one is not silently ignored).
        public var notApplicable: [String: String]

        /// The scenarios that may be left nil, as `notApplicable` names them.
        public static let optionalNames = ["failing", "unusual", "dropped", "planned"]

        public init(answered: ReceptionRequest, slow: ReceptionRequest, failing: ReceptionRequest? = nil,
                    unusual: ReceptionRequest? = nil, dropped: ReceptionRequest? = nil, planned: ReceptionRequest? = nil,
                    notApplicable: [String: String] = [:]) {
            self.answered = answered
            self.slow = slow
            self.failing = failing
            self.unusual = unusual
            self.dropped = dropped
            self.planned = planned
            self.notApplicable = notApplicable
        }
    }

    public let backend: any Backend
    public let scenarios: Scenarios
    /// The longest any one stream may take before it counts as a hang: by default far above
    /// any scenario's time, so a loaded machine is not taken for a hanging backend.
    public let deadline: Duration

    public init(backend: any Backend, scenarios: Scenarios, deadline: Duration = .seconds(120)) {
        self.backend = backend
        self.scenarios = scenarios
        self.deadline = deadline
    }

    /// Runs every scenario in turn and reports each.
    public func run() async -> ConformanceReport {
        var outcomes: [ConformanceReport.Outcome] = []
        func record(_ name: String, _ body: () async throws -> Void) async {
            do {
                try await body()
                outcomes.append(.init(name: name, verdict: .passed))
            } catch let failure as ConformanceFailure {
                outcomes.append(.init(name: name, verdict: .failed(failure.message)))
            } catch {
                outcomes.append(.init(name: name, verdict: .failed("unexpected error: \(error)")))
            }
        }
        func skip(_ name: String, _ key: String) {
            outcomes.append(.init(name: name, verdict: .notApplicable(scenarios.notApplicable[key] ?? "no scenario given")))
        }
        let capabilities = backend.descriptor.capabilities
        for key in scenarios.notApplicable.keys.sorted() where !Scenarios.optionalNames.contains(key) {
            outcomes.append(.init(name: "notApplicable names scenarios that exist",
                                  verdict: .failed("\"\(key)\" is no scenario (they are \(Scenarios.optionalNames.joined(separator: ", ")))")))
        }

        await record("submit ends with exactly one terminal event, a result") {
            let run = try await collect(backend.submit(fresh(scenarios.answered)))
            try expectOneTerminal(run, "answered")
            guard case .result(let result)? = run.events.last else { throw ConformanceFailure("the answered request ended with \(describe(run.events.last))") }
            guard !result.text.isEmpty || !result.findings.isEmpty else { throw ConformanceFailure("the result has neither text nor findings") }
        }
        await record("streamed text and the result agree") {
            let run = try await collect(backend.submit(fresh(scenarios.answered)))
            let streamed = run.events.compactMap { if case .textDelta(let text) = $0 { text } else { nil } }.joined()
            guard case .result(let result)? = run.events.last else { throw ConformanceFailure("no result") }
            if capabilities.contains(.textStreaming) {
                guard result.textWasStreamed else { throw ConformanceFailure("text was streamed but the result does not say so (textWasStreamed)") }
                guard streamed == result.text else { throw ConformanceFailure("the chunks (\(streamed.count) characters) differ from the result's text (\(result.text.count))") }
            } else {
                guard streamed.isEmpty, !result.textWasStreamed else { throw ConformanceFailure("textDelta events from a backend that does not declare textStreaming") }
            }
        }
        // Not checked here: whether the backend's own work stops when its consumer goes away.
        // A BackendEventStream (AsyncThrowingStream) ends for its consumer at once whatever the
        // producer does, so no check on the stream could fail; an adapter's tests see it at
        // their server (the request closed, the task cancelled there).
        if capabilities.contains(.cancellation) {
            await record("cancel(taskID:) ends the task with a cancelled failure") {
                let backend = backend
                let slow = fresh(scenarios.slow)
                let events = try await withDeadline(deadline) { () -> [BackendEvent] in
                    var taskID: String?
                    var events: [BackendEvent] = []
                    for try await event in backend.submit(slow) {
                        events.append(event)
                        if taskID == nil {
                            switch event {
                            case .accepted(let id, _), .status(let id, _): taskID = id
                            case .progress(let progress): taskID = progress.taskID
                            default: break
                            }
                            if let taskID { try await backend.cancel(taskID: taskID) }
                        }
                    }
                    return events
                }
                try expectOneTerminal(Run(events: events), "cancelled")
                guard case .failure(let failure)? = events.last, failure.cancelled else {
                    throw ConformanceFailure("a cancelled task ended with \(describe(events.last)), not a cancelled failure")
                }
            }
        } else {
            outcomes.append(.init(name: "cancel(taskID:) ends the task with a cancelled failure", verdict: .notApplicable("the backend does not declare cancellation")))
        }
        if let failing = scenarios.failing {
            await record("a failing task ends in a failure that says why") {
                let run = try await collectUntilThrown(backend.submit(fresh(failing)))
                if let error = run.error {
                    // Thrown: nothing terminal may have come first (an answer, then an error).
                    try expectNoTerminal(before: error, run, "failing")
                    guard !error.description.isEmpty else { throw ConformanceFailure("an error without a message") }
                } else {
                    try expectOneTerminal(run, "failing")
                    guard case .failure(let failure)? = run.events.last else { throw ConformanceFailure("ended with \(describe(run.events.last))") }
                    guard !failure.message.isEmpty, !failure.cancelled else { throw ConformanceFailure("the failure has no message, or says cancelled") }
                }
            }
        } else { skip("a failing task ends in a failure that says why", "failing") }
        if let unusual = scenarios.unusual {
            await record("fields and enum values this client does not know are tolerated") {
                let run = try await collect(backend.submit(fresh(unusual)))
                try expectOneTerminal(run, "unusual")
                guard case .result? = run.events.last else { throw ConformanceFailure("ended with \(describe(run.events.last))") }
            }
        } else { skip("fields and enum values this client does not know are tolerated", "unusual") }
        if let dropped = scenarios.dropped {
            await record("a dropped connection ends the stream with a clear error, not a hang") {
                let run = try await collectUntilThrown(backend.submit(fresh(dropped)))
                if let error = run.error {
                    try expectNoTerminal(before: error, run, "dropped")
                    guard !error.description.isEmpty else { throw ConformanceFailure("an error without a message") }
                } else {
                    // Not thrown: a failure that says so, or a result that says it is partial.
                    // An ordinary result would pass off what arrived before the drop as the
                    // whole answer.
                    try expectOneTerminal(run, "dropped")
                    switch run.events.last {
                    case .failure(let failure)?:
                        guard !failure.message.isEmpty, !failure.cancelled else { throw ConformanceFailure("the failure has no message, or says cancelled") }
                    case .result(let result)? where result.outcome != nil && result.outcome != .complete:
                        guard !result.text.isEmpty else { throw ConformanceFailure("a partial result that says nothing") }
                    case .result(let result)?:
                        throw ConformanceFailure("the dropped stream ended with an ordinary result (outcome \(result.outcome?.rawValue ?? "none")), not an error")
                    default:
                        throw ConformanceFailure("the dropped stream ended with \(describe(run.events.last)), not an error")
                    }
                }
            }
        } else { skip("a dropped connection ends the stream with a clear error, not a hang", "dropped") }
        if capabilities.contains(.planApproval), let planned = scenarios.planned {
            await record("trust level 0: a plan first, approve runs it to one result") {
                let first = try await collect(backend.submit(fresh(planned)))
                try expectOneTerminal(first, "planned")
                guard case .planAwaitingApproval(let plan)? = first.events.last else { throw ConformanceFailure("ended with \(describe(first.events.last)), not a plan") }
                let second = try await collect(backend.approve(taskID: plan.taskID))
                try expectOneTerminal(second, "approved")
                guard case .result? = second.events.last else { throw ConformanceFailure("the approved plan ended with \(describe(second.events.last))") }
                if case .planAwaitingApproval = second.events.last { throw ConformanceFailure("approve returned another plan") }
            }
        } else {
            outcomes.append(.init(name: "trust level 0: a plan first, approve runs it to one result",
                                  verdict: .notApplicable(capabilities.contains(.planApproval)
                                      ? scenarios.notApplicable["planned"] ?? "no planned scenario given" : "the backend does not declare plan approval")))
        }
        return ConformanceReport(backend: backend.descriptor.name, outcomes: outcomes)
    }

    struct Run {
        var events: [BackendEvent]
        /// What ended the stream by throwing, if it did (a `BackendError`; anything else fails the check).
        var error: BackendError?
    }

    /// The scenario's request with an id of its own: engines key tasks by the client's id, and
    /// a real server refuses a second task with the same one.
    private func fresh(_ request: ReceptionRequest) -> ReceptionRequest {
        var copy = request
        copy.id = UUID().uuidString.lowercased()
        return copy
    }

    private func collect(_ stream: BackendEventStream) async throws -> Run {
        try await withDeadline(deadline) {
            var events: [BackendEvent] = []
            for try await event in stream { events.append(event) }
            return Run(events: events)
        }
    }

    /// Like `collect`, but a `BackendError` that ends the stream is kept with the events that
    /// came before it, so what came first can be checked too.
    private func collectUntilThrown(_ stream: BackendEventStream) async throws -> Run {
        try await withDeadline(deadline) {
            var events: [BackendEvent] = []
            do {
                for try await event in stream { events.append(event) }
            } catch let error as BackendError {
                return Run(events: events, error: error)
            }
            return Run(events: events)
        }
    }

    private func expectNoTerminal(before error: BackendError, _ run: Run, _ what: String) throws {
        if let terminal = run.events.first(where: \.isTerminal) {
            throw ConformanceFailure("the \(what) stream ended with \(describe(terminal)), then threw \"\(error)\"")
        }
    }

    private func expectOneTerminal(_ run: Run, _ what: String) throws {
        let terminals = run.events.enumerated().filter { $0.element.isTerminal }
        guard terminals.count == 1 else {
            throw ConformanceFailure("the \(what) stream had \(terminals.count) terminal events: \(run.events.map(describe))")
        }
        guard terminals[0].offset == run.events.count - 1 else {
            throw ConformanceFailure("events followed the terminal event in the \(what) stream: \(run.events.map(describe))")
        }
    }
}

/// What `BackendConformance.run()` found, scenario by scenario.
public struct ConformanceReport: Sendable, CustomStringConvertible {
    public enum Verdict: Sendable, Hashable {
        case passed
        case failed(String)
        case notApplicable(String)
    }

    public struct Outcome: Sendable {
        public var name: String
        public var verdict: Verdict
    }

    public var backend: String
    public var outcomes: [Outcome]

    public var failures: [Outcome] { outcomes.filter { if case .failed = $0.verdict { true } else { false } } }
    public var passed: [Outcome] { outcomes.filter { $0.verdict == .passed } }

    public var description: String {
        (["Conformance of \(backend):"] + outcomes.map { outcome in
            switch outcome.verdict {
            case .passed: "  ✓ \(outcome.name)"
            case .failed(let why): "  ✗ \(outcome.name): \(why)"
            case .notApplicable(let why): "  – \(outcome.name): not applicable (\(why))"
            }
        }).joined(separator: "\n")
    }
}

struct ConformanceFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

func describe(_ event: BackendEvent?) -> String {
    guard let event else { return "nothing" }
    switch event {
    case .accepted: return "accepted"
    case .planAwaitingApproval: return "plan"
    case .status(_, let status): return "status(\(status))"
    case .progress: return "progress"
    case .textDelta: return "text"
    case .thinking: return "thinking"
    case .toolUse: return "tool use"
    case .permissionRequest: return "permission request"
    case .result: return "result"
    case .queued: return "queued"
    case .failure(let failure): return failure.cancelled ? "failure(cancelled)" : "failure(\(failure.message))"
    }
}

/// Runs `body`, failing when it takes longer than `limit` (a hang is a failure, never a stuck test run).
func withDeadline<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        guard let first = try await group.next() else { throw ConformanceFailure("no result") }
        group.cancelAll()
        guard let value = first else { throw ConformanceFailure("did not finish within \(limit)") }
        return value
    }
}
