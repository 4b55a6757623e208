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
        case deregistered(roomID: String, status: String)
    }

    public var client: LoopSymphonyClient
    public var registration: RoomRegistration
    public var cache: KnowledgeCache?
    public var interval: Duration
    public var onEvent: @Sendable (Event) -> Void

    public init(client: LoopSymphonyClient, registration: RoomRegistration, cache: KnowledgeCache?,
                interval: Duration = .seconds(60), onEvent: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.client = client
        self.registration = registration
        self.cache = cache
        self.interval = interval
        self.onEvent = onEvent
    }

    /// Registration for this process: `reception-<host>-<pid>`, type `cli`. It does not declare
    /// `reasoning`, so the server never delegates tasks to it (upstream-contracts §1.6).
    public static func defaultRegistration(name: String? = nil) -> RoomRegistration {
        let host = ProcessInfo.processInfo.hostName
        let id = "reception-\(host)-\(ProcessInfo.processInfo.processIdentifier)"
        return RoomRegistration(roomID: id, roomName: name ?? "Reception on \(host)", roomType: "cli",
                                url: "http://127.0.0.1/", capabilities: ["personality", "notifications"], instruments: [])
    }

    /// One heartbeat with delta sync; returns what it applied.
    @discardableResult
    public func beat() async throws -> RoomHeartbeatResponse {
        // Any non-nil version switches sync on; 0 asks for everything on a fresh cache.
        let version = try cache.map { try $0.serverVersion() ?? 0 }
        let request = RoomHeartbeat(roomID: registration.roomID, status: "online",
                                    capabilities: registration.capabilities, lastKnowledgeVersion: version)
        let response: RoomHeartbeatResponse
        do {
            response = try await client.rooms.heartbeat(request)
        } catch BackendError.http(404, _) {
            _ = try await client.rooms.register(registration)
            onEvent(.reregistered(roomID: registration.roomID))
            response = try await client.rooms.heartbeat(request)
        }
        var applied = (upserted: 0, removed: 0)
        if let updates = response.knowledgeUpdates, let cache {
            applied = try cache.apply(updates)
        }
        onEvent(.heartbeat(roomID: registration.roomID, serverVersion: response.knowledgeUpdates?.serverVersion,
                           upserted: applied.upserted, removed: applied.removed))
        return response
    }

    /// Registers, beats until cancelled, then deregisters.
    public func run() async throws {
        _ = try await client.rooms.register(registration)
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
        // Deregister even though this task is cancelled: run it in a fresh, unstructured task
        // we await, so the request is not cancelled with us.
        let client = client
        let roomID = registration.roomID
        let status = await Task { try? await client.rooms.deregister(roomID) }.value
        onEvent(.deregistered(roomID: roomID, status: status?.status ?? "unreachable"))
    }
}
