import Foundation
import ReceptionCore

/// What this client sends a Friday server. Only the fields its runtime reads.
public enum FridayMessage: Sendable, Hashable {
    /// A question. `sessionID` must be one the server issued (nil starts a conversation);
    /// `metadata` is stored by the server with the query (Friday has no field for intent).
    case query(message: String, sessionID: String?, metadata: JSONValue)
    /// Forget the conversation on the server side.
    case newSession
    /// The answer to `permission_request` `id`. A denial carries `interrupt: false`: without
    /// it the runtime stops the whole run and sends nothing more (no `complete`, no `error`).
    case permissionResponse(id: Int, approved: Bool, level: PermissionAnswer.Scope)

    public var json: JSONValue {
        switch self {
        case .query(let message, let sessionID, let metadata):
            return .object(["type": .string("query"), "message": .string(message),
                            "session_id": sessionID.map(JSONValue.string) ?? .null, "metadata": metadata])
        case .newSession:
            return .object(["type": .string("new_session")])
        case .permissionResponse(let id, let approved, let level):
            var object: [String: JSONValue] = ["type": .string("permission_response"), "permission_id": .number(Double(id)),
                                               "approved": .bool(approved), "permission_level": .string(level.rawValue)]
            if !approved { object["interrupt"] = .bool(false) }
            return .object(object)
        }
    }

    /// The message as one text frame.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(json)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The `metadata` of a query: intent and urgency as Reception's other engines receive them.
    public static func metadata(for request: ReceptionRequest) -> JSONValue {
        var object: [String: JSONValue] = ["client": .string("reception"), "reception_request_id": .string(request.id)]
        if let intent = request.intent {
            object["intent"] = .string(intent.type.rawValue)
            object["urgency"] = .string(intent.urgency.rawValue)
            object["intent_confidence"] = .number(intent.confidence)
        }
        if let goal = request.goal { object["goal"] = .string(goal) }
        return .object(object)
    }
}
