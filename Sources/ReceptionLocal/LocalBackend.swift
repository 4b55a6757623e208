import Foundation
import ReceptionCore

/// The embedded backend: Loop Symphony semantics, in process, no network.
///
/// Trust level 0 returns a plan that waits for `approve` (except for a greeting, thanks or
/// goodbye alone, which searches nothing); levels 1 and 2 run at once.
/// Answers come from BM25 retrieval over a folder of Markdown knowledge files.
public struct LocalBackend: Backend {
    public struct Settings: Sendable {
        /// Pause between steps, so progress is visible and a task can be cancelled mid-way.
        public var stepDelay: Duration
        public init(stepDelay: Duration = .milliseconds(120)) { self.stepDelay = stepDelay }
    }

    private let engine: LocalEngine
    private let settings: Settings
    private let knowledgeSummary: String
    private let name: String

    public init(knowledge: KnowledgeBase, usesBuiltInKnowledge: Bool = false, settings: Settings = Settings(), name: String = "local") {
        self.name = name
        engine = LocalEngine(knowledge: knowledge, usesBuiltInKnowledge: usesBuiltInKnowledge)
        self.settings = settings
        knowledgeSummary = usesBuiltInKnowledge ? "Reception's built-in knowledge" : knowledge.root.path
    }

    public var descriptor: BackendDescriptor {
        BackendDescriptor(name: name, summary: "embedded, no network; answers from \(knowledgeSummary)",
                          capabilities: [.planApproval, .cancellation, .progress, .intentAware, .interventions])
    }

    public func submit(_ request: ReceptionRequest) -> BackendEventStream {
        stream { engine, continuation in
            // A greeting alone runs nothing (no search), so there is no plan to approve: asking
            // "approve a plan to answer hello?" would only be in the way. Read once, here.
            let greeting = Answerer.greeting(request.text)
            if request.trustLevel <= 0, greeting == nil {
                let plan = await engine.plan(for: request)
                continuation.yield(.accepted(taskID: request.id, status: .awaitingApproval))
                continuation.yield(.planAwaitingApproval(plan))
                return
            }
            continuation.yield(.accepted(taskID: request.id, status: .pending))
            try await run(request, greeting: greeting, engine: engine, continuation: continuation)
        }
    }

    public func approve(taskID: String) -> BackendEventStream {
        stream { engine, continuation in
            let request = try await engine.takePlan(taskID)
            continuation.yield(.accepted(taskID: taskID, status: .pending))
            // A greeting is never planned (see `submit`).
            try await run(request, greeting: nil, engine: engine, continuation: continuation)
        }
    }

    public func reject(taskID: String) async throws {
        _ = try await engine.takePlan(taskID)
    }

    public func cancel(taskID: String) async throws {
        try await engine.requestCancel(taskID)
    }

    /// Forgets what this session was told (the REPL's `/new`).
    public func startNewConversation() async {
        await engine.startOver()
    }

    private func run(_ request: ReceptionRequest, greeting: Answerer.Greeting?, engine: LocalEngine,
                     continuation: BackendEventStream.Continuation) async throws {
        await engine.started(request.id)
        do {
            try await execute(request, greeting: greeting, engine: engine, continuation: continuation)
            await engine.finished(request.id)
        } catch {
            // Structured clean-up: once the stream ends, the task is no longer running.
            await engine.finished(request.id)
            throw error
        }
    }

    private func execute(_ request: ReceptionRequest, greeting: Answerer.Greeting?, engine: LocalEngine,
                         continuation: BackendEventStream.Continuation) async throws {
        let taskID = request.id
        continuation.yield(.status(taskID: taskID, status: .running))
        let start = ContinuousClock.now
        // A greeting alone is answered without a search ("searched 26 passages; 0 matched" above
        // a greeting would say the backend looked it up).
        await engine.carryOn(request.conversation)
        let matches = greeting != nil ? [] : await engine.search(request.text)
        if greeting == nil {
            try await pause(taskID, engine: engine)
            let files = Set(matches.map(\.passage.file)).count
            continuation.yield(.progress(TaskProgress(taskID: taskID, iteration: 1, phase: "retrieval",
                message: "searched \(Counted.phrase(await engine.passageCount, "passage")); \(matches.count) matched in \(Counted.phrase(files, "file"))")))
            try await pause(taskID, engine: engine)
            // The passage the answer will quote (the line named one section and the answer quoted another).
            let best = Answerer.quoted(in: matches).map { quoted in
                (quoted.strong ? "best match:" : "only weak matches, the closest:", "\(quoted.match.passage.file) § \(quoted.match.passage.heading)")
            }
            continuation.yield(.progress(TaskProgress(taskID: taskID, iteration: 2, phase: "ranking", message: best?.0 ?? "no relevant passage",
                                                      source: best?.1)))
        }
        try await pause(taskID, engine: engine)
        let elapsed = start.duration(to: .now)
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let response = await engine.answer(request, greeting: greeting, matches: matches, durationMS: milliseconds)
        continuation.yield(.status(taskID: taskID, status: .complete))
        continuation.yield(.result(response))
    }

    /// Waits one step, in slices, so `cancel(taskID:)` takes effect within 50 ms.
    private func pause(_ taskID: String, engine: LocalEngine) async throws {
        let deadline = ContinuousClock.now + settings.stepDelay
        repeat {
            try await Task.sleep(for: min(.milliseconds(50), deadline - .now))
            if await engine.isCancelled(taskID) { throw CancellationError() }
        } while ContinuousClock.now < deadline
    }

    /// Runs `body` as the producer of a stream; cancellation (by the consumer or by
    /// `cancel(taskID:)`) ends it with a `.failure(cancelled)` event rather than an error.
    private func stream(_ body: @escaping @Sendable (LocalEngine, BackendEventStream.Continuation) async throws -> Void) -> BackendEventStream {
        let engine = engine
        return BackendEventStream { continuation in
            let task = Task {
                do {
                    try await body(engine, continuation)
                    continuation.finish()
                } catch is CancellationError {
                    continuation.yield(.failure(TaskFailure(taskID: nil, message: "Task cancelled", cancelled: true)))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
