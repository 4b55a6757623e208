import Foundation
import ReceptionCore

/// The real server's terse or internal wording, said in words a person understands.
///
/// Loop Symphony passes FastAPI's and Python's texts straight through: `Task … failed: None`
/// (an exception without a message), `path heartbeat_id: Input should be a valid UUID`,
/// `header x-api-key: Field required`, `Task … is not running (state: cancelled)`. Each is
/// recognised here and turned into what happened and what to do; anything else is kept as
/// the server said it.
enum LoopSymphonyWording {
    /// What a failed task's `Task failed: REASON` (HTTP 500 from `GET /task/{id}`) or a stream's
    /// error text means, when the server's own words do not say it: no reason at all (`None`,
    /// Python's empty exception), or a cancellation reported as a failure. Other reasons are
    /// the server's own words and are kept as they are.
    static func taskFailure(_ detail: String) -> String {
        plainTaskFailure(detail) ?? detail
    }

    /// The words for `detail` when the server's do not do, else nil.
    static func plainTaskFailure(_ detail: String) -> String? {
        let reason = detail.hasPrefix("Task failed") ? String(detail.dropFirst("Task failed".count).drop { $0 == ":" || $0 == " " }) : detail
        switch reason.trimmingCharacters(in: .whitespaces) {
        case "", "None", "null":
            return "The task failed on the server, which gave no reason (it said “\(detail)”). Loop Symphony at 1917bde fails /novel and /loop-task tasks this way; an ordinary message may work."
        case let text where detail.hasPrefix("Task failed") && text.range(of: "cancel", options: .caseInsensitive) != nil:
            return "The task was cancelled (\(text))."
        default:
            return nil
        }
    }

    /// A refusal of `POST /task/{id}/cancel` (HTTP 400 `Task … is not running (state: S)` or
    /// `… is not currently running (status: S)`) as the task's state, in words; nil for another answer.
    static func notRunning(_ detail: String, cancelledHere: Bool) -> String? {
        guard detail.contains("not running") || detail.contains("not currently running"),
              let open = detail.range(of: "(state: ") ?? detail.range(of: "(status: "),
              let close = detail[open.upperBound...].firstIndex(of: ")") else { return nil }
        let state = detail[open.upperBound..<close]
        switch state {
        case "cancelled":
            return cancelledHere ? "was cancelled already: this session asked for it, and the server has stopped it"
                : "was cancelled already"
        case "cancelling":
            return cancelledHere ? "is being cancelled already: this session asked for it, and the server is stopping it"
                : "is being cancelled already"
        case "completed", "complete": return "has finished already, so there is nothing to cancel (/tasks get shows its result)"
        case "failed": return "has failed already, so there is nothing to cancel"
        case "awaiting_approval": return "is a plan awaiting approval, not a running task: /reject drops it"
        case "pending", "queued": return "has not started running yet; try again in a moment"
        default: return "is not running (the server says its state is \(state))"
        }
    }

    /// FastAPI's 422 for a missing `X-Api-Key` on an endpoint that requires one.
    static func isMissingAPIKey(_ error: any Error) -> Bool {
        guard case BackendError.http(422, let detail)? = error as? BackendError else { return false }
        return detail.lowercased().contains("x-api-key") && detail.contains("Field required")
    }

    static func missingAPIKey(baseURL: String) -> String {
        "This needs an API key, and this session has none: the server at \(RedactedURL.display(baseURL)) requires X-Api-Key for it. Set LOOP_SYMPHONY_API_KEY, or api_key_env / api_key_file in a profile, and start again."
    }

    /// FastAPI's 422 for a path parameter that must be a UUID (`path heartbeat_id: Input should be a valid UUID …`).
    static func isInvalidUUIDPath(_ error: any Error) -> Bool {
        guard case BackendError.http(422, let detail)? = error as? BackendError else { return false }
        return detail.hasPrefix("path ") && detail.contains("valid UUID")
    }

    /// True for the form the server's ids have (`3f2c1d9e-…`).
    static func isUUID(_ text: String) -> Bool { UUID(uuidString: text) != nil }
}
