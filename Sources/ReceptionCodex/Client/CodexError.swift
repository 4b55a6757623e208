import Foundation
import ReceptionCore

/// A failed call to the Codex workers API, in plain states a person can act on, always with
/// the `x-request-id` the call carried (the runtime logs it, so support can find the call).
public struct CodexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as the person needs to know it.
    public enum State: String, Sendable, Hashable {
        /// 401: the token is missing, expired or revoked.
        case unauthorized
        /// 403: the token may not see or act on this worker.
        case forbidden
        /// 404: no such worker (or route).
        case notFound
        /// 409: the worker is not in a state that allows this (stopped, not running).
        case conflict
        /// 400 or 422: the request itself is wrong (a field, a filter, a method).
        case invalid
        /// 410 `stale_cursor`: the events after the cursor are older than the server keeps.
        case staleCursor
        /// Nothing answered, or the connection broke.
        case unreachable
        /// The server answered too slowly.
        case timedOut
        /// 3xx: the server points elsewhere (Laravel sends a login redirect for a refused token
        /// on a request that does not ask for JSON); redirects are never followed.
        case redirected
        /// 5xx, or a stream that reported a failure of its own.
        case serverError
        /// An answer that does not follow the contract.
        case protocolViolation
    }

    public var state: State
    /// The HTTP status, when there was one.
    public var status: Int?
    /// The server's error code (`conflict`, `stale_cursor`, ...), when it sent one.
    public var code: String?
    /// The server's own words, or what the transport saw.
    public var message: String
    /// What was attempted, e.g. `POST /workers/w1/requests`.
    public var operation: String
    public var requestID: String

    public init(state: State, status: Int? = nil, code: String? = nil, message: String, operation: String, requestID: String) {
        self.state = state
        self.status = status
        self.code = code
        self.message = message
        self.operation = operation
        self.requestID = requestID
    }

    /// The state for an HTTP status (and the server's code, which wins for `stale_cursor`).
    static func state(status: Int, code: String?) -> State {
        if code == "stale_cursor" { return .staleCursor }
        switch status {
        case 401: return .unauthorized
        case 403: return .forbidden
        case 404: return .notFound
        case 409: return .conflict
        case 400, 422: return .invalid
        case 410: return .staleCursor
        case 408, 504: return .timedOut
        case 300..<400: return .redirected
        default: return .serverError
        }
    }

    /// What to do about it, in one sentence.
    var advice: String {
        switch state {
        case .unauthorized: "The token was refused: check the Sanctum token (codex token_env or token_file) and that it has not been revoked."
        case .forbidden: "This token's user may not act on this worker."
        case .notFound: "/workers lists the workers this token can see."
        case .conflict: "The worker is not in a state that allows this; /workers shows its status."
        case .invalid: "The server refused the request as written."
        case .staleCursor: "The server no longer keeps the events after that cursor."
        case .unreachable: "Is the server running, and is the codex url right?"
        case .timedOut: "The server did not answer in time; it may be overloaded."
        case .redirected: "Reception does not follow redirects (a redirect to a login page means the token was refused); check the url and the token."
        case .serverError: "The server failed; trying again later may work."
        case .protocolViolation: "The server's answer does not follow the Codex workers contract."
        }
    }

    /// Whether waiting and trying again can help (a watcher reconnects after these).
    public var isTransient: Bool {
        switch state {
        case .unreachable, .timedOut, .serverError, .protocolViolation: true
        default: false
        }
    }

    public var description: String {
        let words = message.last.map { ".!?".contains($0) } == true ? message : message + "."
        return "\(label)\(http): \(operation): \(words) \(advice) [x-request-id \(requestID)]"
    }

    /// One line without the advice, for a timeline: "Unreachable: the server closed the connection [x-request-id …]".
    public var brief: String { "\(label)\(http): \(message) [x-request-id \(requestID)]" }

    private var http: String { status.map { " (HTTP \($0)\(code.map { ", \($0)" } ?? ""))" } ?? "" }

    private var label: String {
        switch state {
        case .unauthorized: "Not signed in"
        case .forbidden: "Forbidden"
        case .notFound: "Not found"
        case .conflict: "Conflict"
        case .invalid: "Invalid request"
        case .staleCursor: "Stale cursor"
        case .unreachable: "Unreachable"
        case .timedOut: "Timed out"
        case .redirected: "Redirected"
        case .serverError: "Server error"
        case .protocolViolation: "Unexpected answer"
        }
    }
}
