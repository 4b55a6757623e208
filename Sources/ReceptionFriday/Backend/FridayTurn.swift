import Foundation
import ReceptionCore

/// Turns the frames of one Friday query into Reception's events. A value with no I/O, so the
/// mapping is tested frame by frame; `FridayBackend` feeds it what the socket delivers.
///
/// - Text: a `chunk` is a whole text block of one model turn, and the runtime joins the
///   blocks of successive turns with nothing between them ("…first.Now I'll…"). A turn ends
///   where the agent used a tool, so a chunk after a tool use (or a permission question, or a
///   blocked command) starts a new paragraph. Chunks of the same turn are joined as sent: a
///   word may be split across two of them ("work" + "space").
/// - The result's text is everything streamed, separators included, not `complete.result`
///   (that is only the last turn's text).
/// - At most `maxTextBytes` of answer are kept: beyond that the query fails instead of
///   growing memory without bound.
package struct FridayTurn: Sendable {
    let taskID: String
    let maxTextBytes: Int
    private(set) var text = ""
    private var textBytes = 0
    /// A tool or a question came since the last chunk: the next chunk starts a new turn.
    private var turnEnded = false
    /// A first chunk that reads "API Error: …": held, since `complete` then says the same and
    /// it is the failure, not the answer (shown as both, raw JSON twice).
    private var heldError: String?

    package init(taskID: String, maxTextBytes: Int) {
        self.taskID = taskID
        self.maxTextBytes = maxTextBytes
    }

    /// The events one frame stands for (often none). A terminal event is always last.
    package mutating func take(_ frame: FridayFrame) -> [BackendEvent] {
        switch frame {
        case .chunk(let chunk):
            guard !chunk.isEmpty else { return [] }
            if text.isEmpty, heldError == nil, chunk.hasPrefix("API Error:") {
                heldError = chunk
                return []
            }
            // More text after all: what was held was part of the answer.
            let held = heldError ?? ""
            heldError = nil
            var delta = held + chunk
            if turnEnded, !text.isEmpty {
                let trailing = text.reversed().prefix { $0 == "\n" }.count
                let leading = chunk.prefix { $0 == "\n" }.count
                delta = String(repeating: "\n", count: max(0, 2 - trailing - leading)) + chunk
            }
            turnEnded = false
            textBytes += delta.utf8.count
            guard textBytes <= maxTextBytes else {
                return [.failure(TaskFailure(taskID: taskID, message: "Friday's answer passed \(maxTextBytes / 1024) KB; Reception stopped reading it. What arrived is shown above."))]
            }
            text += delta
            return [.textDelta(delta)]
        case .thinking(let label):
            return label.isEmpty ? [] : [.thinking(Self.line(label))]
        case .info(let message):
            // "Friday is processing your request...", "Resuming session: …": spinner material.
            return message.isEmpty ? [] : [.thinking(Self.line(message))]
        case .toolUse(let name, let input):
            turnEnded = true
            return [.toolUse(ToolUse(name: Self.line(name.isEmpty ? "a tool" : name), input: input))]
        case .toolResult(let name, let isError):
            turnEnded = true
            return [.progress(TaskProgress(taskID: taskID, message: "\(Self.line(name.isEmpty ? "The tool" : name)) \(isError ? "failed" : "finished")"))]
        case .permissionRequest(let id, let tool, let description, let input):
            turnEnded = true
            return [.permissionRequest(PermissionRequest(id: String(id), tool: tool.isEmpty ? nil : Self.line(tool),
                                                         description: Self.line(description.isEmpty ? "use \(tool)" : description, limit: 500),
                                                         input: input))]
        case .commandBlocked(let tool, let command, let reason):
            turnEnded = true
            let what = command.isEmpty ? tool : "\(tool) `\(Self.line(command, limit: 120))`"
            return [.progress(TaskProgress(taskID: taskID, message: "Friday blocked \(Self.line(what)): \(Self.line(reason))"))]
        case .permissionWarning(let message):
            return message.isEmpty ? [] : [.progress(TaskProgress(taskID: taskID, message: Self.line(message)))]
        case .rulePrompt(let title, let message):
            // It waits for a `rule_action` that this client does not send: shown, not answered.
            let offer = [title, message].filter { !$0.isEmpty }.map { Self.line($0) }.joined(separator: " — ")
            return [.progress(TaskProgress(taskID: taskID, message: "Friday offers: \(offer) (Reception does not answer rule prompts)"))]
        case .complete(let result, _, let aborted):
            if aborted {
                return [.failure(TaskFailure(taskID: taskID, message: "Friday stopped the query before it finished.", cancelled: true))]
            }
            // A model API failure arrives as an ordinary answer whose text starts "API Error:".
            if result.hasPrefix("API Error:") {
                return [.failure(TaskFailure(taskID: taskID, message: Self.modelFailure(result)))]
            }
            if let held = heldError {
                // The held chunk was no failure: it is the answer.
                heldError = nil
                text += held
                return [.textDelta(held), .result(BackendResult(taskID: taskID, outcome: .complete, text: text, textWasStreamed: true))]
            }
            if text.isEmpty {
                return [.result(BackendResult(taskID: taskID, outcome: .complete, text: result, textWasStreamed: false))]
            }
            return [.result(BackendResult(taskID: taskID, outcome: .complete, text: text, textWasStreamed: true))]
        case .error(let message):
            return [.failure(TaskFailure(taskID: taskID, message: "Friday reported an error: \(Self.line(message.isEmpty ? "no reason given" : message, limit: 500))"))]
        case .ready, .session, .other:
            return []
        }
    }

    /// "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"
    /// in words: the model API's own message and status, not its JSON body.
    static func modelFailure(_ result: String) -> String {
        let rest = result.dropFirst("API Error:".count).drop { $0 == " " }
        let status = rest.prefix { $0.isNumber }
        var message: String?
        var kind: String?
        if let brace = rest.firstIndex(of: "{"),
           let object = try? JSONSerialization.jsonObject(with: Data(rest[brace...].utf8)) as? [String: Any] {
            let error = object["error"] as? [String: Any]
            message = (error?["message"] ?? object["message"]) as? String
            kind = error?["type"] as? String
        }
        guard let message, !message.isEmpty else { return "Friday's model could not answer: \(line(result, limit: 500))" }
        let busy = status == "529" || status == "429" || kind == "overloaded_error" || kind == "rate_limit_error"
        let code = status.isEmpty ? "" : " (HTTP \(status))"
        return "Friday's model could not answer: \(line(message, limit: 300))\(code).\(busy ? " Try again in a moment." : "")"
    }

    /// One line of at most `limit` characters: status lines must not grow with the server's whims.
    /// Cleaned before it is cut: an escape sequence's body (a long link) counted against the
    /// limit and pushed the words out, and a cut inside one left it open, so the REPL's
    /// cleaning took the rest of the line (a blocked command's reason) for part of it.
    static func line(_ text: String, limit: Int = 200) -> String {
        let flat = TerminalText.clean(text).split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > limit ? String(flat.prefix(limit)) + "…" : flat
    }
}
