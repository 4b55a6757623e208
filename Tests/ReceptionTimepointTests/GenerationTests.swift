import Foundation
import ReceptionCore
import ReceptionReferenceServers
import ReceptionTesting
import ReceptionTimepoint
import Testing

@Suite("TIMEPOINT generation: SSE stream, background polling, sync; the conformance suite")
struct GenerationTests {
    @Test func theStreamShowsEveryStepLiveThenTheSceneAfterItsCost() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            let events = try await collect(backend.submit(ReceptionRequest(text: "Oppenheimer at Trinity, 1945", trustLevel: 1)))
            let lines = progressLines(events)
            #expect(lines.first == "Generating a scene costs 5 credits; you have 50 credits.", "the cost is said before anything runs: \(lines)")
            for step in ["judge", "grounding", "timeline", "scene", "characters", "dialog"] {
                #expect(lines.contains { $0.hasPrefix("✓ \(step) (") }, "step \(step) shown: \(lines)")
            }
            let answer = try #require(result(in: events))
            #expect(answer.text.hasPrefix("**Oppenheimer at Trinity, 1945** (1945, summer, dawn · Trinity; scene \(backend.scene?.id ?? "?"), public)"), "\(answer.text)")
            #expect(answer.text.contains("In the scene: **Oppenheimer**, Tomas Brenner, Old Scribe."))
            #expect(backend.scene?.cast.first?.name == "Oppenheimer")
            // The steps arrived before the result, one event each.
            let resultIndex = try #require(events.firstIndex { if case .result = $0 { true } else { false } })
            #expect(events[..<resultIndex].filter { if case .progress = $0 { true } else { false } }.count >= 8)
            let calls = await rig.reference.receivedCalls().map(\.path)
            #expect(calls.contains("/api/v1/timepoints/generate/stream"))
        }
    }

    @Test func aBackgroundGenerationIsPolledEveryThreeSecondsUntilCompleted() async throws {
        try await withTimepoint(TimepointReferenceOptions(port: 0, backgroundPolls: 1), configure: { $0.generation = .background }) { rig in
            let backend = TimepointBackend(client: rig.client)
            let events = try await collect(backend.submit(ReceptionRequest(text: "Krakatoa 1883", trustLevel: 1)))
            let answer = try #require(result(in: events))
            #expect(answer.text.contains("Krakatoa"))
            #expect(progressLines(events).contains("The scene is processing…"))
            #expect(progressLines(events).contains("The scene is completed…"))
            let calls = await rig.reference.receivedCalls()
            let start = try #require(calls.first { $0.path == "/api/v1/timepoints/generate" })
            let polls = calls.filter { $0.method == "GET" && $0.path.hasPrefix("/api/v1/timepoints/") }
            #expect(polls.count == 2)
            var previous = start.at
            for poll in polls {
                let gap = previous.duration(to: poll.at)
                // Never sooner than the contract's 3 s; the upper bound only tells "the next
                // poll" from "a much longer wait" (a loaded machine stretches the gap).
                #expect(gap >= .seconds(3) && gap < .seconds(20), "polled \(gap) after the previous call")
                previous = poll.at
            }
        }
    }

    @Test func aSyncGenerationAndAFailedOne() async throws {
        try await withTimepoint(configure: { $0.generation = .sync }) { rig in
            let backend = TimepointBackend(client: rig.client)
            let good = try await collect(backend.submit(ReceptionRequest(text: "Rome 50 BCE", trustLevel: 1)))
            #expect(result(in: good)?.text.contains("(50 BCE") == true)
            let bad = try await collect(backend.submit(ReceptionRequest(text: "stubfail 1850", trustLevel: 1)))
            let failed = try #require(failure(in: bad))
            #expect(failed.message.hasPrefix("The scene could not be generated: [stub] every model call failed"))
            #expect(backend.scene?.query == "Rome 50 BCE", "a failed scene does not replace the context")
        }
    }

    @Test func aStreamThatFailsItsStepsEndsInAFailureThatSaysWhy() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            let events = try await collect(backend.submit(ReceptionRequest(text: "stubfail in 1850", trustLevel: 1)))
            #expect(progressLines(events).contains("✗ judge: [stub] every model call failed (stubfail)"))
            #expect(failure(in: events)?.message.contains("could not be generated") == true)
        }
    }

    /// A generation that goes silent mid-way (a step that hangs): it ends at the read limit with
    /// the steps already shown kept and the silence said, instead of a spinner for ever.
    @Test func aStreamThatGoesSilentEndsAtTheReadLimitAndSaysSo() async throws {
        try await withTimepoint(configure: { $0.requestTimeout = .seconds(15) }) { rig in
            let backend = TimepointBackend(client: rig.client)
            let started = ContinuousClock.now
            var events: [BackendEvent] = []
            var thrown: (any Error)?
            do {
                for try await event in backend.submit(ReceptionRequest(text: "a stalled parade, 1889", trustLevel: 1)) { events.append(event) }
            } catch {
                thrown = error
            }
            // Not a speed bound: the server would stay silent for an hour. (The limit is 15 s,
            // not 2: it also bounds the sign-in before the stream, slow when the suite starts.)
            #expect(started.duration(to: .now) < .seconds(120))
            #expect(progressLines(events).contains { $0.hasPrefix("✓ judge") }, "the steps shown are kept: \(progressLines(events))")
            let said = failure(in: events)?.message ?? thrown.map { String(describing: $0) } ?? ""
            #expect(said.hasPrefix("No answer from http://127.0.0.1:") && said.hasSuffix("in time: no answer within the read timeout"), "the silence is said: \(said)")
        }
    }

    @Test func aRefusedStreamIsA402InWords() async throws {
        try await withTimepoint { rig in
            await rig.reference.setBalance(email: rig.email, 2)
            let backend = TimepointBackend(client: rig.client)
            let events = try await collect(backend.submit(ReceptionRequest(text: "Trafalgar 1805", trustLevel: 1)))
            #expect(progressLines(events).first == "Generating a scene costs 5 credits; you have 2 credits.")
            #expect(failure(in: events)?.message == "Not enough credits: this costs 5 credits and you have 2 credits. (Insufficient credits. This operation costs 5 credits.)")
        }
    }

    /// One event of 8 MB sent as short `data:` lines after three steps: every line is short,
    /// so only the parser's 1 MB event limit stops it. A clear error, the steps shown kept, no
    /// more than a megabyte held, and the next scene is generated as usual.
    @Test func anEventSplitOverManyLinesPastTheLimitIsAClearErrorAndTheNextSceneStillComes() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            var events: [BackendEvent] = []
            var thrown: (any Error)?
            do {
                for try await event in backend.submit(ReceptionRequest(text: "an oversized banquet, 1900", trustLevel: 1)) { events.append(event) }
            } catch {
                thrown = error
            }
            #expect(progressLines(events).contains { $0.hasPrefix("✓ judge") }, "the steps shown are kept: \(progressLines(events))")
            let said = failure(in: events)?.message ?? thrown.map { String(describing: $0) } ?? ""
            #expect(said.contains("an event exceeded 1048576 bytes of data"), "the limit is said, not a JSON error: \(said)")
            let next = try await collect(backend.submit(ReceptionRequest(text: "Oppenheimer at Trinity, 1945", trustLevel: 1)))
            #expect(result(in: next) != nil, "the session goes on: \(next)")
        }
    }

    /// A stream cut after the server began answering is "lost mid-answer", not "cannot reach"
    /// (the server was there, and a generation may have been charged).
    @Test func aStreamCutMidAnswerIsSaidToBeLost() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            var failure: String?
            do {
                for try await event in backend.submit(ReceptionRequest(text: "a dropped line, 1876", trustLevel: 1)) {
                    if case .failure(let f) = event { failure = f.message }
                }
            } catch {
                failure = "\(error)"
            }
            let text = try #require(failure)
            #expect(text.contains("was lost mid-answer") && !text.contains("Cannot reach"), "\(text)")
        }
    }

    @Test func theBackendMeetsTheConformanceSuiteAgainstTheReferenceServer() async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            let report = await BackendConformance(backend: backend, scenarios: .init(
                answered: ReceptionRequest(text: "Oppenheimer at Trinity, 1945", trustLevel: 1),
                slow: ReceptionRequest(text: "a slow march, 1812", trustLevel: 1),
                failing: ReceptionRequest(text: "stubfail harbour 1850", trustLevel: 1),
                unusual: ReceptionRequest(text: "an unusual fair, 1851", trustLevel: 1),
                dropped: ReceptionRequest(text: "a dropped line, 1876", trustLevel: 1),
                notApplicable: ["planned": "scenes are generated at once; there is no plan to approve"])).run()
            #expect(report.failures.isEmpty, "\(report)")
            // Not applicable: the plan scenario, and cancel(taskID:) (the server cannot stop a generation).
            #expect(report.passed.count == report.outcomes.count - 2, "\(report)")
        }
    }
}
