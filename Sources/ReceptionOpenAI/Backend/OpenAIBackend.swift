import Foundation
import ReceptionCore
import ReceptionTransport
import Synchronization

/// A language model behind an OpenAI-compatible API (llama.cpp's server, Ollama, vLLM, LM
/// Studio, hosted services): the soul as the system prompt, the conversation as messages,
/// the answer streamed chunk by chunk as `.textDelta`.
public final class OpenAIBackend: Backend {
    public let descriptor: BackendDescriptor
    public let client: OpenAIClient
    private let state: Mutex<State>
    /// The task behind each open answer stream.
    private let running = RunningTasks()

    struct State {
        var model: String
    }

    /// The largest answer kept; a server that never stops is cut here, not by the memory.
    public static let maxAnswerCharacters = 1 << 20

    public init(client: OpenAIClient, model: String, name: String = "openai") {
        self.client = client
        state = Mutex(State(model: model))
        descriptor = BackendDescriptor(
            name: name, summary: "\(model) at \(RedactedURL.display(client.configuration.baseURL)) (OpenAI-compatible, streamed)",
            capabilities: [.textStreaming, .systemPrompt, .conversationMessages, .cancellation, .intentAware],
            endpoint: client.configuration.baseURL)
    }

    /// The model the next message goes to (`/model NAME` changes it).
    public var model: String {
        get { state.withLock { $0.model } }
    }

    public func setModel(_ model: String) { state.withLock { $0.model = model } }

    public func wirePayload(for request: ReceptionRequest) -> JSONValue? {
        let body = OpenAIMapping.body(for: request, model: model, configuration: client.configuration)
        return (try? Wire.encode(body)).flatMap { try? Wire.decode(JSONValue.self, from: $0) }
    }

    public func submit(_ request: ReceptionRequest) -> BackendEventStream {
        let body = OpenAIMapping.body(for: request, model: model, configuration: client.configuration)
        let client = client
        let id = request.id
        return running.stream(id: id) { continuation in
            // Accepted once the server answers: a server that cannot be reached throws
            // before any event, so the offline queue knows nothing reached it.
            var accepted = false
            do {
                let frames = try client.streamChat(body) { notice in
                    continuation.yield(.progress(TaskProgress(taskID: id, phase: "retry", message: notice.message)))
                }
                var reader = AnswerReader(taskID: id)
                for try await frame in frames {
                    // A frame that was already on its way when the answer was cancelled is
                    // not shown: the byte stream can hand it over before it notices.
                    try Task.checkCancellation()
                    if !accepted {
                        accepted = true
                        continuation.yield(.accepted(taskID: id, status: .running))
                    }
                    guard case .event(let data, _, _) = frame else { continue }  // ": ping" comments
                    for event in try reader.read(data) { continuation.yield(event) }
                    if reader.isDone { break }
                }
                try Task.checkCancellation()
                continuation.yield(reader.ending())
                continuation.finish()
            } catch is CancellationError {
                continuation.yield(.failure(TaskFailure(taskID: id, message: "Stopped; what was shown is kept.", cancelled: true)))
                continuation.finish()
            } catch BackendError.timedOut where accepted {
                // The answer began, then the server went silent (a stuck model): said like the
                // other ways an answer ends early, with the limit that ended it.
                let limit = client.configuration.idleTimeout
                continuation.yield(.failure(TaskFailure(taskID: id, message: "The model server sent nothing for \(DurationText.seconds(limit)) mid-answer, so Reception stopped waiting (the profile's timeout_s sets how long). What was shown is kept.")))
                continuation.finish()
            } catch {
                continuation.finish(throwing: client.explain(error))
            }
        }
    }

    /// Stops a streaming answer: the request is closed, so the server stops generating.
    public func cancel(taskID: String) async throws {
        try running.cancel(taskID, reason: "no answer of that id is streaming.")
    }
}

/// Reads the `data:` events of one streamed answer and decides how it ended.
/// `package` so the fuzz harness (reception-fuzz) can feed it server bytes directly.
package struct AnswerReader {
    let taskID: String
    private(set) var text = ""
    package private(set) var isDone = false
    private var finishReason: String?
    private var sawEvent = false
    private var usage: Usage?
    private var model: String?
    private var reasoning = ""
    /// The characters read so far, kept as a sum: `text.count` walks the whole answer, so
    /// checking it per chunk made a long answer in small chunks quadratic (a megabyte in
    /// one-character chunks took minutes). A character split across two chunks is counted in
    /// both, so the sum is never below `text.count` and the limit errs on the safe side.
    private var characters = 0

    package init(taskID: String) { self.taskID = taskID }

    package mutating func read(_ data: String) throws -> [BackendEvent] {
        sawEvent = true
        if data.trimmingCharacters(in: .whitespaces) == "[DONE]" {
            isDone = true
            return []
        }
        let chunk: ChatCompletionChunk
        do {
            chunk = try Wire.decode(ChatCompletionChunk.self, from: Data(data.utf8))
        } catch {
            throw BackendError.protocolViolation("a streamed chunk is not JSON: \(data.prefix(120))")
        }
        if let error = chunk.error {
            let message = error["message"]?.stringValue ?? error.stringValue ?? "unknown error"
            throw BackendError.http(status: 200, detail: "the server reported in the stream: \(message)")
        }
        if let used = chunk.usage {
            usage = Usage(inputTokens: used.promptTokens, outputTokens: used.completionTokens)
        }
        model = chunk.model ?? model
        var events: [BackendEvent] = []
        // Reception asks for one choice; a server that sends more is read for the first.
        for choice in chunk.choices ?? [] where (choice.index ?? 0) == 0 {
            if let thought = choice.delta?.reasoningContent, !thought.isEmpty {
                reasoning = String((reasoning + thought).suffix(400))
                let line = reasoning.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
                events.append(.thinking("thinking: " + String(line.suffix(100))))
            }
            if let content = choice.delta?.content, !content.isEmpty {
                characters += content.count
                guard characters <= OpenAIBackend.maxAnswerCharacters else {
                    throw BackendError.protocolViolation("the answer grew past \(OpenAIBackend.maxAnswerCharacters) characters; stopped reading it")
                }
                text += content
                events.append(.textDelta(content))
            }
            if let reason = choice.finishReason { finishReason = reason }
        }
        return events
    }

    /// The terminal event. The real llama.cpp server taught the cases: `[DONE]` with no
    /// finish reason is an answer another request cut short; a stream with no event at all
    /// is a prompt longer than the model's context; a finish reason without `[DONE]` is a
    /// server that simply omits it.
    package func ending() -> BackendEvent {
        var raw: [String: JSONValue] = [:]
        if let model { raw["model"] = .string(model) }
        if let finishReason { raw["finish_reason"] = .string(finishReason) }
        if let finishReason {
            let outcome: Outcome = finishReason == "length" ? .bounded : .complete
            return .result(BackendResult(taskID: taskID, outcome: outcome, text: text, textWasStreamed: true, usage: usage,
                                         raw: .object(raw)))
        }
        if !sawEvent {
            return .failure(TaskFailure(taskID: taskID, message: "The model server ended the stream without a word. On llama.cpp's server this means the conversation no longer fits the model's context: start a new conversation, or send less history (the profile's history_turns)."))
        }
        if isDone && text.isEmpty {
            return .failure(TaskFailure(taskID: taskID, message: "The model server ended the answer before it began (another request to the same server interrupts a running one)."))
        }
        if isDone {
            return .failure(TaskFailure(taskID: taskID, message: "The model server stopped this answer before it finished (another request to the same server interrupts a running one). What was shown is kept."))
        }
        return .failure(TaskFailure(taskID: taskID, message: "The connection closed before the model finished its answer. What was shown is kept."))
    }
}
