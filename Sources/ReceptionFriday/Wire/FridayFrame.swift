import Foundation
import ReceptionCore

/// One message from a Friday server (`friday serve`, `tryfridayai/friday_cli` at adc5427), as
/// its runtime really sends it, which is not always what its guide says (see
/// `docs/friday.md`): `tool_name` not `tool`, a numeric `permission_id`, a server-issued
/// `session_id`, and many message types the guide does not list.
///
/// Everything here came from the network: strings are kept as sent (the REPL cleans what it
/// shows), and a frame of a type this client does not know is `.other`, never an error.
public enum FridayFrame: Sendable, Hashable {
    /// Sent once on connect.
    case ready
    /// A notice ("Friday is processing your request...", "Resuming session: …", "Started new conversation").
    case info(String)
    /// The id the server gave this conversation; a later query resumes it by sending it back.
    case session(id: String)
    /// A text block of the answer (a whole block of one model turn, not a token).
    case chunk(String)
    /// What the agent is doing: `{"content"}` or `{"thinking":{"steps":[{"label"}]}}`.
    case thinking(String)
    /// The agent decided to use a tool.
    case toolUse(name: String, input: JSONValue?)
    /// A tool finished (the runtime declares it; with the real SDK it never arrives).
    case toolResult(name: String, isError: Bool)
    /// The agent waits for the person before using a tool. The id counts from 0 per connection.
    case permissionRequest(id: Int, tool: String, description: String, input: JSONValue?)
    /// The server refused a tool use itself (e.g. `sudo`).
    case commandBlocked(tool: String, command: String, reason: String)
    /// A notice about a permission answer (e.g. "always" downgraded to "session").
    case permissionWarning(String)
    /// An automation rule offers something (it expects a `rule_action` this client does not send).
    case rulePrompt(title: String, message: String)
    /// The run succeeded. `result` is the last model turn only, not the whole answer.
    case complete(result: String, sessionID: String?, aborted: Bool)
    /// The run failed; no `complete` follows.
    case error(String)
    /// Anything else (`thinking_complete`, `usage`, `permission_cancelled`, `skills_activated`, …).
    case other(type: String)

    /// Decodes one text message; nil when it is not a JSON object with a string `type`.
    public init?(text: String) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)),
              let type = value["type"]?.stringValue else { return nil }
        func string(_ key: String) -> String { value[key]?.stringValue ?? "" }
        switch type {
        case "ready": self = .ready
        case "info": self = .info(string("message"))
        case "session":
            guard let id = value["session_id"]?.stringValue, !id.isEmpty else { self = .other(type: type); return }
            self = .session(id: id)
        case "chunk": self = .chunk(string("text"))
        case "thinking":
            // Two shapes: {"content": "..."} and {"thinking": {"steps": [{"label": "..."}], ...}}.
            if let content = value["content"]?.stringValue {
                self = .thinking(content)
            } else if case .array(let steps)? = value["thinking"]?["steps"] {
                self = .thinking(steps.compactMap { $0["label"]?.stringValue }.joined(separator: "; "))
            } else {
                self = .thinking("")
            }
        case "tool_use": self = .toolUse(name: string("tool_name"), input: value["input"])
        case "tool_result": self = .toolResult(name: string("tool_name"), isError: value["is_error"]?.boolValue ?? false)
        case "permission_request":
            // Without a numeric id no answer can match the request; treat it as unknown.
            guard let id = value["permission_id"]?.intValue else { self = .other(type: type); return }
            self = .permissionRequest(id: id, tool: string("tool_name"), description: string("description"), input: value["tool_input"])
        case "command_blocked": self = .commandBlocked(tool: string("tool_name"), command: string("command"), reason: string("reason"))
        case "permission_warning": self = .permissionWarning(string("message"))
        case "rule_prompt": self = .rulePrompt(title: string("title"), message: string("message"))
        case "complete":
            self = .complete(result: string("result"), sessionID: value["session_id"]?.stringValue,
                             aborted: value["aborted"]?.boolValue ?? false)
        case "error": self = .error(string("message"))
        default: self = .other(type: type)
        }
    }
}
