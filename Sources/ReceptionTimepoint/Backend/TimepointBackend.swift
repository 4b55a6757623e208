import Foundation
import ReceptionCore
import Synchronization

/// TIMEPOINT Flash as a Reception backend. The conversation has a scene as its context:
/// the first message generates one (its cost said first, each step shown as it completes);
/// after that, a message that names someone in the scene goes to that character's chat
/// (`MessageRoute`). Answers are neutral Markdown; the soul wraps them like any other.
public final class TimepointBackend: Backend {
    public let descriptor: BackendDescriptor
    public let client: TimepointClient
    private let state = Mutex(State())
    /// The task behind each open answer stream.
    private let running = RunningTasks()

    struct State {
        var scene: Timepoint?
        /// The server's chat session per character, so a conversation with someone continues.
        var chatSessions: [String: String] = [:]
        var costs: CreditCosts?
    }

    public init(client: TimepointClient, name: String = "timepoint") {
        self.client = client
        descriptor = BackendDescriptor(
            name: name, summary: "TIMEPOINT Flash at \(RedactedURL.display(client.configuration.baseURL)): historical scenes, character chat, time travel",
            // No `.cancellation`: the server has no call to stop a generation, so Ctrl-C only
            // stops Reception waiting, and the scene is still made and charged. Declaring it
            // made the REPL say "Cancelled (asked the backend to cancel …)" over a scene that
            // went on; without it the REPL says the task may still run on the backend.
            capabilities: [.progress],
            endpoint: client.configuration.baseURL)
    }

    /// The scene the conversation is about.
    public var scene: Timepoint? { state.withLock { $0.scene } }

    /// Makes a scene the conversation's context (after `/scene ID`, a jump, a generation).
    public func setScene(_ scene: Timepoint?) {
        state.withLock {
            if $0.scene?.id != scene?.id { $0.chatSessions = [:] }
            $0.scene = scene
        }
    }

    /// The server's chat session with each character of the scene, by name.
    public var chatSessions: [String: String] { state.withLock { $0.chatSessions } }

    /// Takes back chat sessions an earlier session of the same scene had.
    public func restoreChatSessions(_ sessions: [String: String]) {
        state.withLock { $0.chatSessions.merge(sessions) { current, _ in current } }
    }

    /// The cost table, asked once per connection.
    public func costs() async -> CreditCosts {
        if let known = state.withLock({ $0.costs }) { return known }
        let costs = await client.costsOrGuide()
        state.withLock { $0.costs = costs }
        return costs
    }

    public func wirePayload(for request: ReceptionRequest) -> JSONValue? {
        let route = MessageRoute(request.text, cast: scene?.cast)
        let configuration = client.configuration
        switch route {
        case .generate(let query):
            let body = GenerateRequest(query: query, generateImage: configuration.generateImage, preset: configuration.preset, visibility: configuration.visibility)
            return (try? Wire.encode(body)).flatMap { try? Wire.decode(JSONValue.self, from: $0) }
        case .chat(let character, let message):
            return .object(["character": .string(character), "message": .string(message)])
        case .survey(let question):
            return .object(["questions": .array([.string(question)])])
        case .unaddressed:
            return nil
        }
    }

    public func submit(_ request: ReceptionRequest) -> BackendEventStream {
        let id = request.id
        return running.stream(id: id) { continuation in
            await TimepointClient.$onWait.withValue(TimepointClient.WaitListener { line in
                continuation.yield(.progress(TaskProgress(taskID: id, phase: "retry", message: line)))
            }) {
                do {
                    // Accepted at once, before the server is reached: a message here is a
                    // metered action that depends on the scene in context, so an unreachable
                    // server is said now and the offline queue (which holds only what failed
                    // before any event) never replays it later, out of context, at a price.
                    continuation.yield(.accepted(taskID: id, status: .running))
                    let event = try await self.answer(request) { continuation.yield($0) }
                    try Task.checkCancellation()
                    continuation.yield(event)
                    continuation.finish()
                } catch is CancellationError {
                    continuation.yield(.failure(TaskFailure(taskID: id, message: "Stopped.", cancelled: true)))
                    continuation.finish()
                } catch let error as TimepointError {
                    continuation.yield(.failure(TaskFailure(taskID: id, message: error.description)))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }

    public func cancel(taskID: String) async throws {
        try running.cancel(taskID, reason: "nothing of that id is running.")
    }

    /// Runs one message to its terminal event, reporting progress on the way.
    func answer(_ request: ReceptionRequest, report: @escaping @Sendable (BackendEvent) -> Void) async throws -> BackendEvent {
        let id = request.id
        let note: @Sendable (String, String) -> Void = { phase, message in report(.progress(TaskProgress(taskID: id, phase: phase, message: message))) }
        let current = scene
        switch MessageRoute(request.text, cast: current.map(\.cast)) {
        case .generate(let query):
            let configuration = client.configuration
            let cost = await costs().generation(preset: configuration.preset)
            note("cost", try await client.costNotice("Generating a scene", cost: cost))
            let body = GenerateRequest(query: query, generateImage: configuration.generateImage, preset: configuration.preset, visibility: configuration.visibility)
            let scene: Timepoint
            do {
                scene = try await generate(body, cost: cost, note: note)
            } catch let error as TimepointError {
                throw error.charging(atLeast: cost)
            }
            guard scene.status != "failed" else {
                return .failure(TaskFailure(taskID: id, message: "The scene could not be generated: \(SceneText.clip(scene.error ?? "the server gave no reason", 300)) (scene \(scene.id))."))
            }
            setScene(scene)
            return .result(BackendResult(taskID: scene.id, outcome: .complete, text: SceneText.summary(scene),
                                         raw: .object(["timepoint_id": .string(scene.id), "status": .string(scene.status ?? "")])))
        case .chat(let character, let message):
            return try await chat(character: character, message: message, in: current, id: id, note: note)
        case .survey(let question):
            return try await survey(question, in: current, id: id, note: note)
        case .unaddressed:
            return unaddressed(request.text, in: current)
        }
    }

    /// Generates with the configured mode, each update told as a progress line.
    func generate(_ body: GenerateRequest, cost: Int, note: @escaping @Sendable (String, String) -> Void) async throws -> Timepoint {
        let configuration = client.configuration
        return try await client.generate(body, mode: configuration.generation) { update in
            switch update {
            case .started(let what): note("start", "Generating “\(SceneText.clip(what, 120))”…")
            case .accepted(let id):
                note("start", "The server is generating scene \(id); looking every \(TimepointClient.seconds(configuration.pollInterval))…")
            case .step(let name, let progress, let latency):
                let percent = progress.map { " (\(Int(saturating: $0))%)" } ?? ""
                let time = latency.map { ", \($0) ms" } ?? ""
                note(name, "✓ \(name.replacingOccurrences(of: "_", with: " "))\(percent)\(time)")
            case .stepFailed(let name, let error): note(name, "✗ \(name): \(error)")
            case .polled(let status): note("poll", "The scene is \(status)…")
            }
        }
    }

    func chat(character: String, message: String, in current: Timepoint?, id: String,
          note: @escaping @Sendable (String, String) -> Void) async throws -> BackendEvent {
        guard let current else { return .failure(TaskFailure(taskID: id, message: "No scene yet.")) }
        note("cost", try await client.costNotice("Asking \(character)", cost: await costs().chat))
        let sessionID = state.withLock { $0.chatSessions[character] }
        let reply = try await client.chat(scene: current.id, character: character, message: message, sessionID: sessionID)
        if let session = reply.sessionID { state.withLock { $0.chatSessions[character] = session } }
        return .result(BackendResult(taskID: current.id, outcome: .complete, text: SceneText.reply(reply),
                                     raw: .object(["character_name": .string(reply.characterName), "timepoint_id": .string(current.id)])))
    }

    func survey(_ question: String, in current: Timepoint?, id: String, note: @escaping @Sendable (String, String) -> Void) async throws -> BackendEvent {
        guard let current else { return .failure(TaskFailure(taskID: id, message: "No scene yet.")) }
        // No cost line: the cost table names no price for a survey, and the server does not
        // charge one (upstream-contracts §3.3), as `/survey` says nothing either.
        let survey = try await client.survey(scene: current.id, question: question)
        let text = survey.answers.isEmpty ? "Nobody answered." : SceneText.lines(survey.answers)
        return .result(BackendResult(taskID: current.id, outcome: .complete, text: text))
    }

    /// A message that names nobody in the scene: the cast, and how to reach them. Free.
    func unaddressed(_ text: String, in current: Timepoint?) -> BackendEvent {
        let cast = current?.cast ?? []
        let names = cast.isEmpty ? "nobody with a name" : SceneText.cast(cast)
        let example = cast.first.map { " (e.g. “ask \(SceneText.shortName($0.name)) what they are thinking”)" } ?? ""
        // "ask Oppenheimer …" where the scene has no Oppenheimer: say so by name.
        let words = MessageRoute.words(text)
        let asked = words.count > 1 && ["ask", "tell"].contains(words[0].lowercased()) && words[1].first?.isUppercase == true
            ? "Nobody called \(SceneText.clip(words[1], 60)) is in this scene." : "Nobody in this scene is named in your message."
        return .result(BackendResult(taskID: current?.id, outcome: .complete, text: """
        \(asked) In the scene: \(names). Ask one of them by name\(example), \
        ask everyone, or start another scene with /scene new QUERY.
        """))
    }
}
