import Foundation
import ReceptionCodex
import ReceptionCore
import ReceptionReferenceServers
import Testing

@Suite("Codex handshake")
struct HandshakeTests {
    @Test func theDesktopsAckWithTheSameHandshakeIDCompletesIt() async throws {
        try await withCodexServer { server, client in
            let done = try await client.handshake("wrk-desktop", handshakeID: "hs_test_1")
            #expect(done.handshakeID == "hs_test_1")
            #expect(done.ackSeq > done.sentSeq)
            #expect(done.desktopSessionID == "desk_ref_1")
            // How long it took is reported (the desktop answers at once; how long that is on a
            // loaded machine is not this test's business: a handshake past its timeout throws).
            #expect(done.elapsed > .zero)
            // What went out is the seed's event: worker.event from autopilot-ios with a device id.
            let posted = try #require(await server.server.postedEvents().last)
            #expect(posted["event"]?["event_type"]?.stringValue == "worker.event")
            let payload = try #require(posted["event"]?["payload"])
            #expect(payload["method"]?.stringValue == "ios/handshake")
            #expect(payload["source"]?.stringValue == "autopilot-ios")
            #expect(payload["handshake_id"]?.stringValue == "hs_test_1")
            #expect(payload["device_id"]?.stringValue?.hasPrefix("reception-") == true)
            #expect(payload["occurred_at"]?.stringValue != nil)
        }
    }

    @Test func anAckForAnotherHandshakeDoesNotCount() {
        let other = CodexEvent(workerID: "w", seq: 4, eventType: "worker.event",
                               payload: .object(["method": .string("desktop/handshake_ack"), "handshake_id": .string("hs_other")]))
        let camel = CodexEvent(workerID: "w", seq: 5, eventType: "worker.event",
                               payload: .object(["method": .string("desktop/handshake_ack"), "handshakeId": .string("hs_mine")]))
        #expect(!CodexClient.isAck(other, handshakeID: "hs_mine"))
        #expect(CodexClient.isAck(camel, handshakeID: "hs_mine"))
    }

    @Test func noAckWithinTheTimeoutIsAClearMessage() async throws {
        try await withCodexServer(configure: { $0.handshakeTimeout = .seconds(1) }) { server, client in
            let started = ContinuousClock.now
            do {
                _ = try await client.handshake("wrk-hosted", handshakeID: "hs_lonely")
                Issue.record("a worker without a desktop cannot acknowledge")
            } catch let timeout as CodexHandshakeTimeout {
                let elapsed = started.duration(to: .now)
                // It waits the configured second, not the 30 s default (the message names the limit
                // it used; how long past the limit it returns depends on the machine's load).
                #expect(elapsed >= .seconds(1) && elapsed < .seconds(30), "it waits the configured timeout")
                let text = timeout.description
                #expect(text.contains("timed out"))
                #expect(text.contains("no desktop/handshake_ack for handshake hs_lonely arrived within 1 s"))
                #expect(text.contains("wrk-hosted"))
                #expect(await server.server.requestIDs().contains(timeout.requestID), "it names the x-request-id of the post")
                #expect(text.contains(timeout.requestID))
            }
        }
    }

    @Test func theDesktopIgnoresAnotherSourceSoTheDefaultIsTheOneItAccepts() async throws {
        _ = try await withCodexServer(configure: { $0.handshakeTimeout = .seconds(1); $0.handshakeSource = "reception" }) { _, client in
            await #expect(throws: CodexHandshakeTimeout.self) { _ = try await client.handshake("wrk-desktop") }
        }
        #expect(CodexConfiguration(baseURL: "http://x").handshakeSource == "autopilot-ios")
    }
}
