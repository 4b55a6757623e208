import Foundation
import ReceptionCore
import ReceptionTesting
import Synchronization
import Testing

/// The testing product is only worth its name if it can fail: each check here is run on a
/// backend that breaks the rule it is about, and on one that keeps it.
@Suite("ReceptionTesting catches what it claims to")
struct TestingProductTests {
    /// A failing scenario whose stream answers and then throws broke the contract (two ends);
    /// the check threw the events away and passed it.
    @Test func anAnswerFollowedByAnErrorFailsTheFailingAndDroppedChecks() async throws {
        let backend = ScriptedBackend(capabilities: []) { request in
            request.text == "answer then break"
                ? [.event(.result(BackendResult(taskID: request.id, text: "ok"))), .fail(BackendError.unreachable(url: "u", reason: "reset"))]
                : request.text == "break"
                    ? [.fail(BackendError.unreachable(url: "u", reason: "reset"))]
                    : [.event(.result(BackendResult(taskID: request.id, text: "ok")))]
        }
        let broken = await BackendConformance(backend: backend, scenarios: .init(
            answered: ReceptionRequest(text: "hi"), slow: ReceptionRequest(text: "hi"),
            failing: ReceptionRequest(text: "answer then break"), dropped: ReceptionRequest(text: "answer then break"),
            notApplicable: ["unusual": "scripted", "planned": "scripted"])).run()
        #expect(broken.failures.map(\.name) == ["a failing task ends in a failure that says why",
                                                "a dropped connection ends the stream with a clear error, not a hang"], "\(broken)")
        #expect(broken.description.contains("ended with result, then threw \"Cannot reach u: reset\""), "\(broken)")
        let kept = await BackendConformance(backend: backend, scenarios: .init(
            answered: ReceptionRequest(text: "hi"), slow: ReceptionRequest(text: "hi"),
            failing: ReceptionRequest(text: "break"), dropped: ReceptionRequest(text: "break"),
            notApplicable: ["unusual": "scripted", "planned": "scripted"])).run()
        #expect(kept.failures.isEmpty, "\(kept)")
    }

    /// A dropped connection whose stream ends with an ordinary result (what arrived before the
    /// drop passed off as the whole answer) fails the dropped check; it passed it. One that
    /// ends in a failure saying so passes, as does a result that says it is partial, and one
    /// that throws (above).
    @Test func aDroppedConnectionEndingInAnOrdinaryResultFailsTheDroppedCheck() async throws {
        let backend = ScriptedBackend(capabilities: [.textStreaming]) { request in
            switch request.text {
            case "drop, then a result":
                [.event(.textDelta("Half an ans")), .event(.result(BackendResult(taskID: request.id, text: "Half an ans", textWasStreamed: true)))]
            case "drop, then a complete result":
                [.event(.textDelta("Half an ans")),
                 .event(.result(BackendResult(taskID: request.id, outcome: .complete, text: "Half an ans", textWasStreamed: true)))]
            case "drop, then a partial result":
                [.event(.textDelta("Half an ans")),
                 .event(.result(BackendResult(taskID: request.id, outcome: .bounded, text: "Half an ans", textWasStreamed: true)))]
            case "drop, then a failure":
                [.event(.textDelta("Half an ans")), .event(.failure(TaskFailure(taskID: request.id, message: "The connection was lost mid-answer.")))]
            default:
                [.event(.textDelta("ok")), .event(.result(BackendResult(taskID: request.id, text: "ok", textWasStreamed: true)))]
            }
        }
        func report(dropped: String) async -> ConformanceReport {
            await BackendConformance(backend: backend, scenarios: .init(
                answered: ReceptionRequest(text: "hi"), slow: ReceptionRequest(text: "hi"), dropped: ReceptionRequest(text: dropped),
                notApplicable: ["failing": "scripted", "unusual": "scripted", "planned": "scripted"])).run()
        }
        for (ordinary, outcome) in [("drop, then a result", "none"), ("drop, then a complete result", "complete")] {
            let broken = await report(dropped: ordinary)
            #expect(broken.failures.map(\.name) == ["a dropped connection ends the stream with a clear error, not a hang"], "\(broken)")
            #expect(broken.description.contains("the dropped stream ended with an ordinary result (outcome \(outcome)), not an error"), "\(broken)")
        }
        for kept in ["drop, then a failure", "drop, then a partial result"] {
            let report = await report(dropped: kept)
            #expect(report.failures.isEmpty, "\(kept): \(report)")
        }
    }

    /// A misspelt `notApplicable` key was silently "no scenario given"; the reason given for
    /// `planned` was replaced by a fixed text.
    @Test func aMisspeltScenarioNameFailsAndEveryReasonIsShown() async throws {
        let backend = ScriptedBackend(capabilities: [.planApproval]) { request in [.event(.result(BackendResult(taskID: request.id, text: "ok")))] }
        let report = await BackendConformance(backend: backend, scenarios: .init(
            answered: ReceptionRequest(text: "hi"), slow: ReceptionRequest(text: "hi"),
            notApplicable: ["failng": "typo", "unusual": "u", "dropped": "d", "planned": "plans need a server"])).run()
        #expect(report.failures.map(\.name) == ["notApplicable names scenarios that exist"], "\(report)")
        #expect(report.description.contains("\"failng\" is no scenario (they are failing, unusual, dropped, planned)"), "\(report)")
        #expect(report.description.contains("not applicable (plans need a server)"), "\(report)")
    }

    /// `cancel(taskID:)` takes the id the script announced, as a real backend's does; an id of
    /// no running script is refused (it was accepted, and nothing was cancelled).
    @Test(.timeLimit(.minutes(1))) func theScriptedBackendCancelsByAnnouncedIDAndRefusesUnknownOnes() async throws {
        // A pause far longer than any loaded machine's delay: ending with a cancelled failure
        // rather than "late" shows the cancel took effect, with no clock in the assertion.
        let backend = ScriptedBackend { _ in [.event(.accepted(taskID: "engine-1", status: .running)), .pause(.seconds(600)), .event(.result(BackendResult(text: "late")))] }
        let request = ReceptionRequest(text: "go")
        var events: [BackendEvent] = []
        for try await event in backend.submit(request) {
            events.append(event)
            if case .accepted = event { try await backend.cancel(taskID: "engine-1") }
        }
        guard case .failure(let failure)? = events.last else { Issue.record("\(events)"); return }
        #expect(failure.cancelled)
        await #expect(throws: BackendError.self) { try await backend.cancel(taskID: "never-existed") }
        await #expect(throws: BackendError.self) { try await backend.cancel(taskID: "engine-1") }
    }

    /// A script cancelled in its last pause still ends with a cancelled failure (it ended
    /// with no terminal event at all).
    @Test(.timeLimit(.minutes(1))) func aScriptCancelledInItsLastPauseStillEnds() async throws {
        let backend = ScriptedBackend { request in [.event(.accepted(taskID: request.id, status: .running)), .pause(.seconds(600))] }
        let request = ReceptionRequest(text: "go")
        var events: [BackendEvent] = []
        for try await event in backend.submit(request) {
            events.append(event)
            if case .accepted = event { try await backend.cancel(taskID: request.id) }
        }
        guard case .failure(let failure)? = events.last else { Issue.record("no terminal event: \(events)"); return }
        #expect(failure.cancelled)
    }

    /// `received` is every request, approved plans too, as its documentation says.
    @Test func theScriptedBackendRecordsApprovedRequests() async throws {
        let backend = ScriptedBackend(capabilities: [.planApproval]) { request in
            if case .approve = request.action { return [.event(.result(BackendResult(taskID: "p1", text: "done")))] }
            return [.event(.planAwaitingApproval(Plan(taskID: "p1", summary: "a plan", steps: [])))]
        }
        _ = try await collect(backend.submit(ReceptionRequest(text: "plan it", trustLevel: 0)))
        _ = try await collect(backend.approve(taskID: "p1"))
        #expect(backend.received.count == 2)
        if case .approve(let id)? = backend.received.last?.action { #expect(id == "p1") } else { Issue.record("\(backend.received)") }
    }

    /// `collect` reads a pipeline's stream too, with what middleware made of each event.
    @Test func collectReadsAPipelinesStream() async throws {
        let backend = ScriptedBackend(events: [.result(BackendResult(text: "hello"))])
        let exchange = try await Pipeline(middleware: [], backend: backend).send(ReceptionRequest(text: "hi"), context: ReceptionContext())
        let events = try await collect(exchange.events)
        #expect(events.map(\.event) == [.result(BackendResult(text: "hello"))])
    }

    /// A profile made in code is checked as a file's would be (it reached the plugin unchecked).
    @Test func aProfileMadeInCodeIsCheckedBeforeItConnects() async throws {
        let plugin = BackendPlugin(kind: "scripted", summary: "s", options: [PluginOption("pause_ms", .integer(0...5_000), help: "pause")]) { _, _ in
            BackendConnection(backend: ScriptedBackend(events: []))
        }
        let catalog = BackendCatalog(plugins: [plugin], profiles: [
            BackendProfile(name: "bad", kind: "scripted", values: ["pause_ms": .integer(-5)], origin: "code"),
            BackendProfile(name: "typo", kind: "scripted", values: ["paus_ms": .integer(5)]),
            BackendProfile(name: "good", kind: "scripted", values: ["pause_ms": .integer(5)]),
            BackendProfile(name: "env", kind: "scripted", values: ["pause_ms": .string("abc")], origin: "the SCRIPTED_* environment variables"),
        ], environment: .standard(["HOME": "/nonexistent"]))
        await #expect { _ = try await catalog.connect("bad") } throws: { "\($0)" == "pause_ms must be an integer from 0 to 5000; got -5 (from code)." }
        await #expect { _ = try await catalog.connect("typo") } throws: { "\($0)" == "unknown option \"paus_ms\" for kind scripted." }
        // A value read from an environment variable is quoted as typed, not called "a string".
        await #expect { _ = try await catalog.connect("env") } throws: {
            "\($0)" == "pause_ms must be an integer from 0 to 5000; got \"abc\" (from the SCRIPTED_* environment variables)."
        }
        _ = try await catalog.connect("good")
    }
}
