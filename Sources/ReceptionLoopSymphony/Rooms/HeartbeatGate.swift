/// One heartbeat of a room in flight at a time, and whether the room's first knowledge sync
/// was already tried.
///
/// The server computes each room's delta from what it last sent that room id, so its answer to
/// the first beat of a new id is everything it has, and the cache can be made to match it.
/// That only holds if no other beat overtakes the first one: the REPL's `/rooms beat` can run
/// while the background loop beats, and a small delta taken for the whole would empty the cache.
actor HeartbeatGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var firstSyncTried = false

    /// Waits for the beat in flight, if any. Returns true for the room's first sync.
    func enter() async -> Bool {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        return !firstSyncTried
    }

    /// Ends a beat. `syncTried` is whether it asked for knowledge; once asked, even a failed
    /// beat ends the first sync, because the server may have recorded its push as delivered.
    func leave(syncTried: Bool) {
        if syncTried { firstSyncTried = true }
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
