/// Errors a backend throws (as opposed to a task that fails, reported as `.failure`).
public enum BackendError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The backend cannot do this at all (see `BackendCapabilities`).
    case unsupported(operation: String, backend: String)
    /// No task with this id, or not in a state that allows the operation.
    case invalidTaskState(taskID: String, reason: String)
    /// The server answered with an HTTP error; `detail` is the server's own explanation.
    case http(status: Int, detail: String)
    /// The server could not be reached.
    case unreachable(url: String, reason: String)
    /// The server was reached but did not answer in time.
    case timedOut(url: String, reason: String)
    /// The server sent something that does not follow the contract.
    case protocolViolation(String)
    /// The server was reached but could not be trusted (its TLS certificate did not verify):
    /// not a reason to wait and try again, as "unreachable" is.
    case untrusted(url: String, reason: String)

    /// The server was reached and had begun to answer when the connection closed. Not
    /// `unreachable`: the server has the request, so it is not queued to be sent again later
    /// (that could do the work twice); a caller whose call is idempotent may try again.
    case connectionLost(url: String)
    /// The request cannot be sent as configured (a header value with a control character, a
    /// URL the HTTP client cannot parse): nothing left, and nothing will change by waiting, so
    /// it is not queued either.
    case invalidRequest(url: String, reason: String)

    public var description: String {
        switch self {
        case .unsupported(let operation, let backend): "The \(backend) backend cannot \(operation)."
        case .invalidTaskState(let taskID, let reason): "Task \(taskID): \(reason)"
        case .http(let status, let detail): "HTTP \(status): \(detail)"
        case .unreachable(let url, let reason): "Cannot reach \(url): \(reason)"
        case .connectionLost(let url): "The connection to \(url) was lost mid-answer."
        case .invalidRequest(let url, let reason): "Cannot send to \(url): \(reason)"
        case .timedOut(let url, let reason): "No answer from \(url) in time: \(reason)"
        case .protocolViolation(let what): "The backend broke its contract: \(what)"
        case .untrusted(let url, let reason): "Cannot trust \(url): \(reason)"
        }
    }
}
