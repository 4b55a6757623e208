import Foundation
import ReceptionCodex
import ReceptionCore
import ReceptionReferenceServers
import Testing

/// Garbage where the worker's event stream was expected (a frame that is not JSON, bytes
/// that are not UTF-8, a captive portal's HTML page with status 200): each is said in plain
/// words, never a Swift decoding dump, and watching goes on to deliver every event once.
@Suite("Codex garbage bytes")
struct GarbageBytesTests {
    /// What the watcher said about each bad answer (a reconnect's reason or an unreadable frame's).
    static func reasons(_ updates: [CodexWatchUpdate]) -> [String] {
        updates.compactMap {
            switch $0 {
            case .reconnecting(_, _, let reason), .unreadable(_, let reason): reason
            default: nil
            }
        }
    }

    @Test func garbageOnTheStreamIsSaidInWordsAndEveryEventStillArrivesOnce() async throws {
        var options = CodexReferenceOptions(port: 0)
        options.garbageStreams = [.notJSON, .notUTF8, .htmlPage]
        try await withCodexServer(options) { server, client in
            let before = await appendEvents(server, worker: "wrk-hosted", count: 10, label: "before")
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: quickWatch(seed: 3))
            let updates = try await collectUpdates(watcher, from: 0) { seqs($0).last == before }
            #expect(seqs(updates) == Array(1...before), "every seq once, in order")
            #expect(await server.server.garbageSent() == 3)
            let reasons = Self.reasons(updates)
            #expect(reasons.contains { $0.contains("<html><body>502 Bad Gateway") }, "the frame that is not JSON: \(reasons)")
            #expect(reasons.contains { $0.contains("UTF-8") }, "the bytes that are not UTF-8: \(reasons)")
            #expect(reasons.contains { $0.contains("text/html") }, "the HTML page: \(reasons)")
            for reason in reasons {
                for dump in ["DecodingError", "dataCorrupted", "codingPath", "Swift.", "Error Domain"] {
                    #expect(!reason.contains(dump), "no Swift error dump: \(reason)")
                }
            }
        }
    }
}
