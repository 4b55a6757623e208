import Foundation
import ReceptionCore

/// The handshake the seed's MVP defines: this client posts `ios/handshake` into the worker's
/// ledger, the desktop that runs the worker answers `desktop/handshake_ack` with the same
/// `handshake_id`, and seeing that ack on the stream within the timeout means connected.
public struct CodexHandshake: Sendable, Hashable {
    public var workerID: String
    public var handshakeID: String
    /// The `seq` of the handshake event this client posted.
    public var sentSeq: Int
    /// The ack's `seq`, and the desktop session that sent it.
    public var ackSeq: Int
    public var desktopSessionID: String?
    public var elapsed: Duration
}

/// No ack arrived in time: says what was sent, how long it waited, and what to check.
public struct CodexHandshakeTimeout: Error, Sendable, Hashable, CustomStringConvertible {
    public var workerID: String
    public var handshakeID: String
    public var sentSeq: Int
    public var timeout: Duration
    public var source: String
    public var requestID: String

    public var description: String {
        "Handshake with worker \(workerID) timed out: no desktop/handshake_ack for handshake \(handshakeID) arrived within \(CodexText.duration(timeout)) "
            + "(the ios/handshake event went out as seq \(sentSeq), x-request-id \(requestID), with source \"\(source)\"). Is the desktop app that runs this worker open, with runtime sync "
            + "configured (OPENAGENTS_RUNTIME_SYNC_*)? The desktop answers only the source autopilot-ios."
    }
}

extension CodexClient {
    /// The ack's matcher: `desktop/handshake_ack` with this `handshake_id` (either spelling of
    /// the key, as the desktop's own matchers accept).
    public static func isAck(_ event: CodexEvent, handshakeID: String) -> Bool {
        guard event.method == "desktop/handshake_ack" else { return false }
        let id = event.payload["handshake_id"]?.stringValue ?? event.payload["handshakeId"]?.stringValue
        return id == handshakeID
    }

    /// Sends `ios/handshake` to the worker and waits for the matching ack on its stream.
    /// Throws `CodexHandshakeTimeout` when none comes within `configuration.handshakeTimeout`.
    public func handshake(_ workerID: String, handshakeID: String = "hs_" + UUID().uuidString.lowercased().prefix(12)) async throws -> CodexHandshake {
        let started = ContinuousClock.now
        let timeout = configuration.handshakeTimeout
        let snapshot = try await snapshot(workerID)
        let payload = JSONValue.object([
            "source": .string(configuration.handshakeSource), "method": .string("ios/handshake"),
            "handshake_id": .string(handshakeID), "device_id": .string(configuration.deviceID),
            "occurred_at": .string(Wire.timestamp()),
        ])
        let (sent, requestID) = try await postEventNamingCall(workerID, eventType: "worker.event", payload: payload)
        let timeoutError = CodexHandshakeTimeout(workerID: workerID, handshakeID: handshakeID, sentSeq: sent.seq, timeout: timeout,
                                                 source: configuration.handshakeSource, requestID: requestID)
        // Read from before our own event, so an ack that is quicker than our first poll is seen.
        let from = min(snapshot.latestSeq, max(sent.seq - 1, 0))
        return try await withThrowingTaskGroup(of: CodexHandshake?.self) { group in
            group.addTask {
                var cursor = from
                while true {
                    try Task.checkCancellation()
                    do {
                        // Short polls, so the deadline is never far behind a page.
                        for try await item in self.stream(workerID, cursor: cursor, tailMS: min(self.configuration.tailMS, 5_000)) {
                            guard case .event(let event) = item else {
                                if case .unreadable(let id?, _) = item { cursor = max(cursor, id) }
                                continue
                            }
                            cursor = max(cursor, event.seq)
                            if Self.isAck(event, handshakeID: handshakeID) {
                                return CodexHandshake(workerID: workerID, handshakeID: handshakeID, sentSeq: sent.seq, ackSeq: event.seq,
                                                      desktopSessionID: event.payload["desktop_session_id"]?.stringValue
                                                          ?? event.payload["desktopSessionId"]?.stringValue,
                                                      elapsed: started.duration(to: .now))
                            }
                        }
                    } catch let error as CodexError where error.isTransient {
                        try await Task.sleep(for: .milliseconds(300))
                    }
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout - started.duration(to: .now))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let done = first else { throw timeoutError }
            return done
        }
    }
}

/// Small text helpers shared by messages.
enum CodexText {
    static func duration(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds >= 10 || seconds.rounded() == seconds ? "\(Int(seconds.rounded())) s" : String(format: "%.1f s", seconds)
    }
}
