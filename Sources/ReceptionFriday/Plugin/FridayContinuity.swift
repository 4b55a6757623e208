import ReceptionCore

/// How a Friday conversation is carried across sessions and started afresh: the server's
/// session id is what it needs (the REPL's `/new` and `reception -c` use this; Friday has no
/// slash command of its own).
struct FridayContinuity: Sendable {
    let backend: FridayBackend

    static let sessionKey = "friday.session_id"

    var continuity: ConversationContinuity {
        let backend = backend
        return ConversationContinuity(
            state: { backend.sessionID.map { [Self.sessionKey: $0] } ?? [:] },
            resume: { state in
                guard let id = state[Self.sessionKey] else { return nil }
                backend.resume(sessionID: id)
                return "Friday resumes its session \(id)."
            },
            startOver: {
                let had = backend.sessionID != nil
                try await backend.startNewConversation()
                return had ? "Friday starts a new session: it will not see what was said before." : nil
            })
    }
}
