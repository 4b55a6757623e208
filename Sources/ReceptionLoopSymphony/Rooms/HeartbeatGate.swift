/// One heartbeat of a room in flight at a time, and whether the room's first knowledge sync
/// was already made.
///
/// The first sync makes the cache match the server's list; later beats apply deltas. One beat
/// at a time: the REPL's `/rooms beat` can run while the background loop beats, and a delta
/// applied before the first sync would be undone by it.
actor HeartbeatGate {
    private var busy = false
    private var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextWaiter = 0
    private var firstSyncMade = false

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
        return !firstSyncMade
    }

    /// A cancelled wait leaves the queue; one already let in goes on (its beat is cancelled
    /// by its own task).
    private func giveUp(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Ends a beat. `synced`: it brought the cache up to date; a beat that failed leaves the
    /// first sync to the next one.
    func leave(synced: Bool) {
        if synced { firstSyncMade = true }
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().continuation.resume()
        }
    }
}
