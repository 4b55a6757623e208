import Synchronization

/// The server-issued id of the conversation this REPL session is having with Friday. Friday
/// resumes only ids it issued itself (sent in `session` and `complete`), so the client never
/// makes one up; the REPL's `/new` forgets it.
final class FridaySession: Sendable {
    private let id = Mutex<String?>(nil)

    var current: String? { id.withLock { $0 } }

    func remember(_ value: String) {
        // Ids are short UUIDs; anything long or multi-line is not one to send back.
        guard value.count <= 200, !value.contains(where: \.isNewline) else { return }
        id.withLock { $0 = value }
    }

    func forget() { id.withLock { $0 = nil } }
}
