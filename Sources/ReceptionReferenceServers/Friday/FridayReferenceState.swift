import Foundation
import ReceptionCore

/// What the reference Friday server remembers across connections: the conversations it
/// issued ids for (like the real server's sessions on disk), and every message it received.
actor FridayReferenceState {
    /// Session id → the questions asked in it, oldest first.
    private var sessions: [String: [String]] = [:]
    private(set) var received: [JSONValue] = []

    func record(_ message: JSONValue) {
        received.append(message)
        if received.count > 1000 { received.removeFirst() }
    }

    /// A new conversation, with the server's own id.
    func newSession(first question: String) -> String {
        let id = UUID().uuidString.lowercased()
        sessions[id] = [question]
        return id
    }

    /// Adds `question` to session `id`; returns the earlier questions, or nil when the server
    /// never issued that id.
    func resume(_ id: String, with question: String) -> [String]? {
        guard let earlier = sessions[id] else { return nil }
        sessions[id] = earlier + [question]
        return earlier
    }
}
