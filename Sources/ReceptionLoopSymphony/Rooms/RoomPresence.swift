import Foundation
import ReceptionCore

/// Reception as a Loop Symphony room: register, heartbeat every `interval` (60 s by default;
/// the server marks a room offline after 120 s of silence) with knowledge delta sync into a
/// `KnowledgeCache`, and deregister when the loop ends.
///
/// `run()` is structured: it returns (after deregistering) when its task is cancelled, and
/// nothing outlives it. A room the server forgot (404 "Please re-register") is registered
/// again; other failures are reported through `onEvent` and retried at the next beat.
public struct RoomPresence: Sendable {
    public enum Event: Sendable, Hashable {
        case registered(roomID: String)
        case heartbeat(roomID: String, serverVersion: Int?, upserted: Int, removed: Int)
        case reregistered(roomID: String)
        case failed(String)
        case registrationFailed(String)
        /// Learnings kept while the server could not be reached were reported.
        case learningsReported(Int)
        case deregistered(roomID: String, status: String)
    }

    public var client: LoopSymphonyClient
    public var registration: RoomRegistration
    public var cache: KnowledgeCache?
    public var interval: Duration
    public var onEvent: @Sendable (Event) -> Void
    /// Shared by copies, so the REPL's `/rooms beat` and the background loop take turns.
    private let gate = HeartbeatGate()

    public init(client: LoopSymphonyClient, registration: RoomRegistration, cache: KnowledgeCache?,
                interval: Duration = .seconds(60), onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.client = client
        self.registration = registration
        self.cache = cache
        self.interval = interval
        self.onEvent = onEvent
    }

    /// Registration for this process: `reception-<host>-<pid>-<random>`, type `cli`. It does not
    /// declare `reasoning`, so the server never delegates tasks to it (upstream-contracts §1.6).
    ///
    /// The random part keeps the id new for every session even when the system reuses a
    /// process id: the server keeps what each room id was last sent, and only a room id it
    /// has never seen gets a complete snapshot to refresh the cache from (see `beat()`).
    public static func defaultRegistration(name: String? = nil) -> RoomRegistration {
        let host = ProcessInfo.processInfo.hostName
        let nonce = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let id = "reception-\(host)-\(ProcessInfo.processInfo.processIdentifier)-\(nonce)"
        return RoomRegistration(roomID: id, roomName: name ?? "Reception on \(host)", roomType: "cli",
                                url: "http://127.0.0.1/", capabilities: ["personality", "notifications"], instruments: [])
    }

    /// One heartbeat with delta sync; returns the server's answer.
    ///
    /// At the room's first sync the cache is made to match the server's list of entries;
    /// later beats apply the server's deltas (see `HeartbeatGate`). A first sync that failed
    /// is made again at the next beat.
    @discardableResult
    public func beat() async throws -> RoomHeartbeatResponse {
        let firstSync = try await gate.enter()
        do {
            let response = try await beat(firstSync: firstSync)
            await gate.leave(synced: cache != nil)
            return response
        } catch {
            await gate.leave(synced: false)
            throw error
        }
    }

    private func beat(firstSync: Bool) async throws -> RoomHeartbeatResponse {
        // Any non-nil version switches sync on; the server ignores its value (contracts §1.7.10).
        let version = try cache.map { try $0.serverVersion() ?? 0 }
        let request = RoomHeartbeat(roomID: registration.roomID, status: "online",
                                    capabilities: registration.capabilities, lastKnowledgeVersion: version)
        let response: RoomHeartbeatResponse
        var reregistered = false
        do {
            response = try await client.rooms.heartbeat(request)
        } catch BackendError.http(404, _) {
            _ = try await client.rooms.register(registration)
            onEvent(.reregistered(roomID: registration.roomID))
            response = try await client.rooms.heartbeat(request)
            reregistered = true
        }
        var applied = (upserted: 0, removed: 0)
        if let cache {
            if reregistered || firstSync {
                applied = try await matchServerList(cache, answer: response.knowledgeUpdates)
            } else if let updates = response.knowledgeUpdates {
                applied = try cache.apply(updates)
            }
        }
        onEvent(.heartbeat(roomID: registration.roomID, serverVersion: response.knowledgeUpdates?.serverVersion,
                           upserted: applied.upserted, removed: applied.removed))
        // The server answers again: what was learnt while it could not be reached goes now.
        // A failure keeps them for the next beat; the heartbeat itself went through.
        if let cache, let reported = try? await cache.reportPendingLearnings(with: client, roomID: registration.roomID), reported > 0 {
            onEvent(.learningsReported(reported))
        }
        return response
    }

    /// The cache made to match the server's whole list of entries, where a heartbeat's answer
    /// says nothing certain. The server computes each answer from what it last sent that room
    /// id and records a push as delivered once sent (upstream-contracts §1.7 note 10):
    /// - at a room's first sync, the answer is everything only if no earlier answer was lost
    ///   (a beat whose answer never arrived, or a request the transport sent again);
    /// - after the server forgot the room (removed, or restarted), it keeps what it sent it
    ///   apart from its list of rooms, in its database, so it may send only what is new, or
    ///   nothing, while a server restarted with an empty store sends nothing either.
    /// Taken as everything the server has, such an answer emptied the cache.
    private func matchServerList(_ cache: KnowledgeCache, answer: KnowledgeUpdates?) async throws -> (upserted: Int, removed: Int) {
        let listed = try await client.knowledge.entries()
        // The list's versions are 0 on the real server (its files keep none; §1.7 note 11),
        // where a sync gives each entry the knowledge version it changed at: the answer's, or
        // else the one an earlier sync gave, is kept.
        var synced = Dictionary(try cache.entries().map { ($0.id, $0.version) }, uniquingKeysWith: { first, _ in first })
        for entry in answer?.entries ?? [] { synced[entry.id] = entry.version }
        let entries = listed.map { entry in
            let own = entry.version ?? 0
            return KnowledgeDeltaEntry(id: entry.id, category: entry.category, title: entry.title, content: entry.content,
                                       source: entry.source, confidence: entry.confidence, tags: entry.tags,
                                       version: own > 0 ? own : synced[entry.id] ?? 0, updatedAt: entry.updatedAt)
        }
        let version = try answer?.serverVersion ?? cache.serverVersion() ?? 0
        return try cache.apply(KnowledgeUpdates(serverVersion: version, entries: entries, removedIDs: []), asSnapshot: true)
    }

    /// Registers, beats until cancelled, then deregisters. A registration that fails (the
    /// session started while the server could not be reached) is tried again every
    /// `interval`, so the room joins once the server answers.
    public func run() async throws {
        while true {
            do {
                _ = try await client.rooms.register(registration)
                break
            } catch is CancellationError {
                // Cancelled while the registration was on its way: the server may have recorded
                // the room already (a test saw it listed, sent SIGTERM, and the room stayed).
                await deregister()
                return
            } catch {
                onEvent(.registrationFailed(String(describing: error)))
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
        onEvent(.registered(roomID: registration.roomID))
        while !Task.isCancelled {
            do {
                try await beat()
            } catch is CancellationError {
                break
            } catch {
                onEvent(.failed(String(describing: error)))
            }
            do { try await Task.sleep(for: interval) } catch { break }
        }
        await deregister()
    }

    /// Deregisters even though this task is cancelled: in a fresh, unstructured task we await,
    /// so the request is not cancelled with us.
    private func deregister() async {
        let client = client
        let roomID = registration.roomID
        let status = await Task { try? await client.rooms.deregister(roomID) }.value
        onEvent(.deregistered(roomID: roomID, status: status?.status ?? "unreachable"))
    }
}
