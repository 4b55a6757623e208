/// One heartbeat of a room in flight at a time, and whether the room's first knowledge sync
/// was already tried.
///
/// The server computes each room's delta from what it last sent that room id, so its answer to
/// the first beat of a new id is everything it has, and the cache can be made to match it.
/// That only holds if no other beat overtakes the first one: the REPL's `/rooms beat` can run
/// while the background loop beats, and a small delta taken for the whole would empty the cache.
actor HeartbeatGate {
    private var busy = false
    private var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextWaiter = 0
    private var firstSyncTried = false

    /// Waits for the beat in flight, if any. Returns true for the room's first sync. A wait
    /// that is cancelled ends at once with `CancellationError` (leaving the session does not
    /// wait for the beat ahead to answer).
    func enter() async throws -> Bool {
        if busy {
            nextWaiter += 1
            let id = nextWaiter
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { waiting.append((id, continuation)) }
                }
            } onCancel: {
                Task { await self.giveUp(id) }
            }
        } else {
            busy = true
        }
        return !firstSyncTried
    }

    /// A cancelled wait leaves the queue; one already let in goes on (its beat is cancelled
    /// by its own task).
    private func giveUp(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Ends a beat. `syncTried` is whether it asked for knowledge; once asked, even a failed
    /// beat ends the first sync, because the server may have recorded its push as delivered.
    func leave(syncTried: Bool) {
        if syncTried { firstSyncTried = true }
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().continuation.resume()
        }
    }
}
