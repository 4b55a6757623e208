import Synchronization
import Foundation
import ReceptionCore
import ReceptionReferenceServers
import ReceptionTimepoint
import ReceptionTesting
import Testing

@Suite("TIMEPOINT refusals in words: 402, 403, 404, 422, 429, 500")
struct ErrorTests {
    @Test func a402SaysTheBalanceAndTheCostInWords() async throws {
        try await withTimepoint { rig in
            await rig.reference.setBalance(email: rig.email, 3)
            let error = await timepointError { _ = try await rig.client.generate(GenerateRequest(query: "Rome 50 BCE"), mode: .sync) }
            guard case .insufficientCredits(let cost, let balance, _)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(cost == 5)
            #expect(balance == 3)
            #expect(error!.description.hasPrefix("Not enough credits: this costs 5 credits and you have 3 credits."), "\(error!)")
        }
    }

    @Test func anotherUsersPrivateSceneIsPrivate() async throws {
        try await withTimepoint { rig in
            let scene = try await rig.client.generate(GenerateRequest(query: "My private moment 1999", visibility: .private), mode: .sync)
            #expect(scene.visibility == "private")
            let other = rig.nextStart { $0.tokenFile = rig.directory.appendingPathComponent("bob.json").path }
            _ = try await other.signInDev(email: "bob@example.com")
            let error = await timepointError { _ = try await other.scene(scene.id) }
            #expect(error == .privateScene)
            #expect(error?.description == "This scene is private.")
            // Not in Bob's list either, and only the owner may change it.
            #expect(try await other.scenes().items.allSatisfy { $0.id != scene.id })
            let change = await timepointError { _ = try await other.setVisibility(scene.id, .public) }
            #expect(change == .forbidden("Only the owner can change visibility"))
            // The owner can.
            #expect(try await rig.client.setVisibility(scene.id, .public).visibility == "public")
            await other.shutdown()
        }
    }

    @Test func anUnknownSceneIsNotFound() async throws {
        try await withTimepoint { rig in
            let error = await timepointError { _ = try await rig.client.scene("00000000-0000-0000-0000-000000000000") }
            #expect(error == .notFound("Timepoint not found"))
            // An id cannot reach another route.
            let odd = await timepointError { _ = try await rig.client.scene("../credits/balance") }
            #expect(odd == .notFound("Timepoint not found"))
        }
    }

    @Test func a422ListsTheFieldsOneByOne() async throws {
        try await withTimepoint { rig in
            let error = await timepointError { _ = try await rig.client.generate(GenerateRequest(query: "ab"), mode: .sync) }
            #expect(error == .validation([.init(field: "query", message: "String should have at least 3 characters")]))
            let jump = await timepointError {
                let scene = try await rig.client.generate(GenerateRequest(query: "Paris 1889"), mode: .sync)
                _ = try await rig.client.jump(from: scene.id, .next, units: 400, unit: "eon")
            }
            guard case .validation(let problems)? = jump else { Issue.record("got \(String(describing: jump))"); return }
            #expect(problems.map(\.field) == ["units", "unit"])
            #expect(jump!.description.contains("- units: Input should be between 1 and 365\n- unit: Input should be"))
        }
    }

    @Test func a429IsWaitedOutHonouringRetryAfter() async throws {
        try await withTimepoint { rig in
            await rig.reference.inject(TimepointFault(path: "/api/v1/credits/balance", status: 429, retryAfter: "1", times: 1))
            let waits = WaitLog()
            let started = ContinuousClock.now
            let balance = try await TimepointClient.$onWait.withValue(TimepointClient.WaitListener { waits.add($0) }) { try await rig.client.balance() }
            let elapsed = started.duration(to: .now)
            #expect(balance.balance == 50)
            #expect(elapsed >= .seconds(1), "Retry-After: 1 was honoured (\(elapsed))")
            #expect(waits.lines == ["The server is busy (HTTP 429); trying again in 1.0 s (attempt 2 of 6)."])
        }
    }

    @Test func a429WithoutRetryAfterBacksOffFromOneSecondDoubling() async throws {
        try await withTimepoint { rig in
            // A POST too: a refusal means nothing ran.
            await rig.reference.inject(TimepointFault(path: "/api/v1/timepoints/generate/sync", status: 429, times: 2))
            let waits = WaitLog()
            let started = ContinuousClock.now
            let scene = try await TimepointClient.$onWait.withValue(TimepointClient.WaitListener { waits.add($0) }) {
                try await rig.client.generate(GenerateRequest(query: "Vienna 1815"), mode: .sync)
            }
            let elapsed = started.duration(to: .now)
            #expect(scene.isCompleted)
            #expect(elapsed >= .seconds(3), "1 s then 2 s (\(elapsed))")
            #expect(waits.lines.map { $0.contains("1.0 s") || $0.contains("2.0 s") } == [true, true], "\(waits.lines)")
            #expect(await rig.reference.balance(of: rig.email) == 45, "charged once")
        }
    }

    @Test func theBackoffDoublesToThirtySecondsAndALongerRetryAfterIsSaidNotWaited() async throws {
        let configuration = TimepointConfiguration(baseURL: "http://127.0.0.1:1", tokenFile: "/dev/null")
        let waits = (1...7).map { TimepointClient.backoff(refusals: $0, retryAfter: nil, configuration) }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30)])
        #expect(TimepointClient.backoff(refusals: 1, retryAfter: "120", configuration) == nil)
        #expect(TimepointClient.backoff(refusals: 1, retryAfter: "1e300", configuration) == nil, "too long, not a trap")
        try await withTimepoint { rig in
            await rig.reference.inject(TimepointFault(path: "/api/v1/credits/balance", status: 429, retryAfter: "120", times: 1))
            let started = ContinuousClock.now
            let error = await timepointError { _ = try await rig.client.balance() }
            #expect(started.duration(to: .now) < .seconds(30), "said at once, not the 120 s waited out")
            guard case .rateLimited(let words)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(words.contains("wait 120 s"))
        }
    }

    @Test func a500IsRetriedOnceThenReported() async throws {
        try await withTimepoint { rig in
            await rig.reference.inject(TimepointFault(path: "/api/v1/credits/balance", status: 500, message: "database is locked", times: 1))
            let first = try await rig.client.balance()
            #expect(first.balance == 50)
            await rig.reference.inject(TimepointFault(path: "/api/v1/credits/balance", status: 500, message: "database is locked", times: 2))
            let error = await timepointError { _ = try await rig.client.balance() }
            #expect(error == .server(status: 500, detail: "database is locked"))
            let calls = await rig.reference.receivedCalls().filter { $0.path == "/api/v1/credits/balance" }.count
            #expect(calls == 2 + 2, "each call sent twice: once refused, once again")
        }
    }

    @Test func creditsHistoryIsPagedAndCostsNeedNoSignIn() async throws {
        try await withTimepoint { rig in
            for place in ["Athens 400 BCE", "Kyoto 1600"] { _ = try await rig.client.generate(GenerateRequest(query: place), mode: .sync) }
            let first = try await rig.client.history(limit: 2, offset: 0)
            #expect(first.map(\.amount) == [-5, -5])
            #expect(first.first?.balanceAfter == 40)
            let second = try await rig.client.history(limit: 2, offset: 2)
            #expect(second.map(\.type) == ["signup_bonus"])
            _ = await rig.client.signOut()
            #expect(try await rig.client.costs().chat == 1)
        }
    }
}

final class WaitLog: Sendable {
    private let storage = Mutex<[String]>([])
    func add(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}



@Suite("TIMEPOINT: the hd price the server checks at the balanced one")
struct PresetPriceTests {
    @Test func hdWithFewerThanTenCreditsIsANotEnoughCreditsMessageNotAServerError() async throws {
        try await withTimepoint(configure: { $0.preset = "hd"; $0.generation = .sync }) { rig in
            await rig.reference.setBalance(email: rig.email, 7)
            let backend = TimepointBackend(client: rig.client)
            let events = try await collect(backend.submit(ReceptionRequest(text: "Versailles 1789", trustLevel: 1)))
            #expect(progressLines(events).first == "Generating a scene costs 10 credits; you have 7 credits.")
            // Upstream answers 500 "Insufficient credits: have 7, need 10" (it checks at the balanced price).
            #expect(failure(in: events)?.message.hasPrefix("Not enough credits: this costs 10 credits and you have 7 credits.") == true,
                    "\(String(describing: failure(in: events)))")
            await rig.reference.setBalance(email: rig.email, 0)
            let refused = try await collect(backend.submit(ReceptionRequest(text: "Versailles 1789", trustLevel: 1)))
            #expect(failure(in: refused)?.message.hasPrefix("Not enough credits: this costs 10 credits and you have 0 credits.") == true,
                    "the server's 402 says 5, the hd price is 10: \(String(describing: failure(in: refused)))")
        }
    }
}
