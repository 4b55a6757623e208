import Foundation
import ReceptionCore

/// Reception's request as a worker request, and a worker's answer as Reception's result.
enum CodexMapping {
    /// A typed message: `turn/start` (by default) with the text as Codex input, and the
    /// classification beside it in `metadata`, since the worker has no field for intent.
    static func workerRequest(for request: ReceptionRequest, method: String, source: String) -> CodexWorkerRequest {
        var metadata: [String: JSONValue] = ["session_id": .string(request.sessionID)]
        if let classification = request.classification {
            metadata["intent"] = .string(classification.intent.rawValue)
            metadata["urgency"] = .string(classification.urgency.rawValue)
            metadata["intent_confidence"] = .number(min(classification.intentConfidence, classification.urgencyConfidence))
        }
        if let goal = request.goal { metadata["goal"] = .string(goal) }
        let params = JSONValue.object([
            "input": .array([.object(["type": .string("text"), "text": .string(request.text)])]),
            "metadata": .object(metadata),
        ])
        return CodexWorkerRequest(requestID: "reception_" + request.id, method: method, params: params, source: source)
    }

    /// The answer in words: the response's text when it has one, else its JSON, bounded.
    static func summary(of response: JSONValue?) -> String {
        guard let response else { return "no response body" }
        for key in ["text", "message", "output", "summary", "status"] {
            if let text = response[key]?.stringValue, !text.isEmpty { return bounded(text) }
        }
        if let text = response.stringValue { return bounded(text) }
        // Strings cleaned before they are written as JSON, or each escape sequence's body
        // ("\u001b]52;c;…") would be shown as text.
        return bounded(Wire.jsonString(TerminalText.cleanStrings(response)))
    }

    static func bounded(_ text: String, limit: Int = 2_000) -> String {
        text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }

    /// A `CodexError` in the terms every backend's errors use, its words and request id kept.
    static func backendError(_ error: CodexError, baseURL: String) -> BackendError {
        switch error.state {
        case .unreachable: .unreachable(url: RedactedURL.display(baseURL), reason: "\(error.message) [x-request-id \(error.requestID)]")
        case .timedOut: .timedOut(url: RedactedURL.display(baseURL), reason: "\(error.message) [x-request-id \(error.requestID)]")
        case .protocolViolation: .protocolViolation(error.description)
        default: .http(status: error.status ?? 0, detail: error.description)
        }
    }
}
