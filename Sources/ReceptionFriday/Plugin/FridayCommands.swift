import ReceptionCore

/// Slash commands a Friday backend adds to the REPL.
struct FridayCommands: Sendable {
    let backend: FridayBackend

    var all: [BackendCommand] {
        [
            BackendCommand(name: "/new", summary: "start a new conversation with Friday (it forgets this one)",
                           usage: "/new    sends new_session and forgets the server's session id") { _ in
                let had = backend.sessionID != nil
                try await backend.startNewConversation()
                return had ? "Started a new conversation: Friday will not see what was said before."
                    : "Started a new conversation (there was none on the server yet)."
            },
        ]
    }
}
