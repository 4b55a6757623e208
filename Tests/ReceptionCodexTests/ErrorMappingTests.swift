import Foundation
import ReceptionCodex
import ReceptionCore
import ReceptionReferenceServers
import ReceptionTestSupport
import Testing

/// 401/403/404/409/410/422 become plain states, each with the x-request-id the call carried.
@Suite("Codex errors and admin calls")
struct ErrorMappingTests {
    @Test func aRequestToAStoppedWorkerIsAConflictNamingItsRequestID() async throws {
        try await withCodexServer { server, client in
            let error = try #require(await codexError { _ = try await client.request("wrk-stopped", CodexWorkerRequest(method: "turn/start")) })
            #expect(error.state == .conflict)
            #expect(error.status == 409)
            #expect(error.code == "conflict")
            #expect(error.message == "worker is stopped; create or reattach to resume")
            #expect(error.description.contains("[x-request-id \(error.requestID)]"))
            #expect(await server.server.requestIDs().contains(error.requestID), "the id shown is the one the server got")
        }
    }

    @Test func laravelsValidationIsInvalidInItsOwnWords() async throws {
        try await withCodexServer { _, client in
            let error = try #require(await codexError { _ = try await client.list(status: .unknown("sleeping")) })
            #expect(error.state == .invalid)
            #expect(error.status == 422)
            #expect(error.message == "The selected status is invalid.")
            #expect(error.description.contains("x-request-id"))
            let missingMethod = try #require(await codexError { _ = try await client.request("wrk-hosted", CodexWorkerRequest(method: "")) })
            #expect(missingMethod.state == .invalid && missingMethod.status == 400)
            #expect(missingMethod.message == "request.method is required")
        }
    }

    @Test func authForbiddenAndUnknownWorkers() async throws {
        try await withCodexServer(token: "wrong-token") { _, client in
            let error = try #require(await codexError { _ = try await client.list() })
            #expect(error.state == .unauthorized)
            #expect(error.message == "Unauthenticated.")
            #expect(!error.description.contains("wrong-token"), "the token is never shown")
        }
        try await withCodexServer { _, client in
            #expect(await codexError { _ = try await client.snapshot("wrk-other") }?.state == .forbidden)
            #expect(await codexError { _ = try await client.snapshot("wrk-nope") }?.state == .notFound)
        }
    }

    @Test func listSnapshotRequestAndStopFollowTheContract() async throws {
        try await withCodexServer { server, client in
            let all = try await client.list()
            #expect(all.map(\.workerID) == ["wrk-desktop", "wrk-hosted", "wrk-stopped"], "another user's worker is not listed")
            #expect(try await client.list(status: .stopped).map(\.workerID) == ["wrk-stopped"])
            let snapshot = try await client.snapshot("wrk-desktop")
            #expect(snapshot.status == .running && snapshot.latestSeq == 3 && snapshot.metadata.isEmpty, "metadata [] reads as an empty object")
            #expect(snapshot.workspaceRef == "ws/reception", "escaped slashes read back")
            let answer = try await client.request("wrk-hosted", CodexWorkerRequest(requestID: "req_1", method: "thread/list", params: .object(["limit": .number(5)])))
            #expect(answer.ok && answer.requestID == "req_1")
            let first = try await client.stop("wrk-hosted", reason: "done for today")
            #expect(first.status == .stopped && !first.idempotentReplay)
            let again = try await client.stop("wrk-hosted", reason: nil)
            #expect(again.idempotentReplay, "stopping a stopped worker is not a conflict")
            let conflict = try #require(await codexError { _ = try await client.postEvent("wrk-hosted", payload: .object([:])) })
            #expect(conflict.state == .conflict)
            let ledger = try await collectStream(client, "wrk-hosted")
            #expect(ledger.map(\.eventType).suffix(3) == ["worker.request.received", "worker.response", "worker.stopped"])
            #expect(ledger.last?.payload["reason"]?.stringValue == "done for today")
            #expect(Set(await server.server.requestIDs()).count == (await server.server.requestIDs()).count, "every call has its own x-request-id")
        }
    }

    @Test func anUnreachableServerIsAPlainStateWithTheRequestID() async throws {
        let client = CodexClient(configuration: CodexConfiguration(baseURL: refusingLoopbackURL(), token: "t"))
        let error = try #require(await codexError { _ = try await client.list() })
        #expect(error.state == .unreachable && error.isTransient)
        #expect(error.description.contains("x-request-id"))
        await client.shutdown()
    }

    @Test func aRefusedTokenOnTheStreamEndsTheWatchInsteadOfRetryingForEver() async throws {
        // The stream asks for text/event-stream, so Laravel answers a refused token with its
        // login redirect rather than a JSON 401.
        try await withCodexServer(token: "expired-token") { _, client in
            var options = quickWatch()
            options.maxConsecutiveFailures = nil
            let watcher = CodexWatcher(client: client, workerID: "wrk-hosted", options: options)
            let error = try #require(await codexError { for try await _ in watcher.updates(from: 0) {} })
            #expect(error.state == .unauthorized, "the snapshot (JSON) is refused first")
            let stream = try #require(await codexError { for try await _ in client.stream("wrk-hosted", cursor: 0, tailMS: 10) {} })
            #expect(stream.state == .redirected && !stream.isTransient)
            #expect(stream.description.contains("does not follow redirects") && !stream.description.contains("expired-token"))
        }
    }

    @Test func theWireTypesReadBothSpellings() throws {
        let stream = #"{"workerId":"w","seq":7,"eventType":"worker.response","payload":{"request_id":"r"},"occurredAt":"2026-02-19T10:00:00Z"}"#
        let rest = #"{"worker_id":"w","seq":"8","event_type":"worker.event","payload":[],"occurred_at":"x"}"#
        let a = try Wire.decode(CodexEvent.self, from: Data(stream.utf8))
        let b = try Wire.decode(CodexEvent.self, from: Data(rest.utf8))
        #expect(a.seq == 7 && a.eventType == "worker.response" && a.workerID == "w")
        #expect(b.seq == 8 && b.eventType == "worker.event" && b.occurredAt == "x")
        let worker = try Wire.decode(CodexWorker.self, from: Data(#"{"worker_id":"w","status":"paused","metadata":{"k":1},"brand_new":true}"#.utf8))
        #expect(worker.status == .unknown("paused") && worker.metadata["k"] == .number(1) && worker.latestSeq == 0)
    }

    func collectStream(_ client: CodexClient, _ worker: String) async throws -> [CodexEvent] {
        var events: [CodexEvent] = []
        for try await item in client.stream(worker, cursor: 0, tailMS: 30) { if case .event(let event) = item { events.append(event) } }
        return events
    }
}
