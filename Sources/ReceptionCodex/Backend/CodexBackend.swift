import Foundation
import ReceptionCore
import Synchronization

/// OpenAgents Codex workers as a Reception backend. Workers are watched and administered
/// (the `/workers`, `/worker` and `/handshake` commands), not chatted with; a message typed
/// while a worker is selected goes to it as a request (`turn/start` with the text), after the
/// intent and personality middleware, and the runtime's verdict comes back as the result.
public final class CodexBackend: Backend {
    public let descriptor: BackendDescriptor
    public let client: CodexClient
    private let selection = Mutex<String?>(nil)
    private let seen = Mutex<[String]>([])

    public init(client: CodexClient, name: String = "codex") {
        self.client = client
        descriptor = BackendDescriptor(name: name, summary: "OpenAgents Codex workers at \(RedactedURL.display(client.configuration.baseURL))",
                                       capabilities: [],
                                       endpoint: client.configuration.baseURL)
    }

    /// The worker typed messages go to (set by `/worker ID`).
    public var selectedWorker: String? { selection.withLock { $0 } }

    public func select(_ workerID: String?) {
        selection.withLock { $0 = workerID }
        if let workerID { remember([workerID]) }
    }

    /// Worker ids seen in this session (listed or watched), for tab completion: completion
    /// answers from memory, never the network. At most 200 are kept.
    public var knownWorkers: [String] { seen.withLock { $0 } }

    func remember(_ ids: [String]) {
        seen.withLock { known in
            for id in ids where !known.contains(id) { known.append(id) }
            if known.count > 200 { known.removeFirst(known.count - 200) }
        }
    }

    public func submit(_ request: ReceptionRequest) -> BackendEventStream {
        let client = client
        let worker = selectedWorker
        return BackendEventStream { continuation in
            let task = Task {
                guard let worker else {
                    continuation.yield(.failure(TaskFailure(taskID: request.id,
                        message: "No worker is selected, so there is nobody to send this to. /workers lists the workers; /worker ID selects one and shows its timeline.")))
                    return continuation.finish()
                }
                let outgoing = CodexMapping.workerRequest(for: request, method: client.configuration.messageMethod,
                                                          source: client.configuration.deviceID)
                do {
                    let answer = try await client.request(worker, outgoing)
                    let requestID = answer.requestID.isEmpty ? outgoing.requestID : answer.requestID
                    continuation.yield(.accepted(taskID: requestID, status: .running))
                    let summary = CodexMapping.summary(of: answer.response)
                    if answer.ok {
                        continuation.yield(.result(BackendResult(
                            taskID: requestID, outcome: .complete,
                            text: "Worker \(worker) took the request (\(outgoing.method), request \(requestID)): \(summary)",
                            raw: answer.response)))
                    } else {
                        continuation.yield(.failure(TaskFailure(taskID: requestID,
                            message: "Worker \(worker) refused the request (\(outgoing.method), request \(requestID)): \(summary)")))
                    }
                    continuation.finish()
                } catch let error as CodexError {
                    continuation.finish(throwing: CodexMapping.backendError(error, baseURL: client.configuration.baseURL))
                } catch is CancellationError {
                    continuation.yield(.failure(TaskFailure(taskID: request.id, message: "Cancelled; the worker may have received the request.", cancelled: true)))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func wirePayload(for request: ReceptionRequest) -> JSONValue? {
        let outgoing = CodexMapping.workerRequest(for: request, method: client.configuration.messageMethod, source: client.configuration.deviceID)
        return (try? Wire.encode(["request": outgoing])).flatMap { try? Wire.decode(JSONValue.self, from: $0) }
    }
}
