import ReceptionCore
import ReceptionLoopSymphony
import ReceptionTesting
import Testing

@Suite("Loop Symphony conformance")
struct LoopSymphonyConformanceTests {
    @Test func theAdapterKeepsTheEventContractAgainstTheReferenceServer() async throws {
        try await withServer(.fast(step: .milliseconds(250))) { _, client in
            let backend = LoopSymphonyBackend(client: client)
            let report = await BackendConformance(backend: backend, scenarios: .init(
                answered: ReceptionRequest(text: "research the best trails", trustLevel: 1),
                slow: ReceptionRequest(text: "slow research of everything", trustLevel: 1),
                failing: ReceptionRequest(text: "please fail this one", trustLevel: 1),
                unusual: ReceptionRequest(text: "research novelfields", trustLevel: 1),
                // The stream breaks and the server goes down: a broken stream alone is
                // recovered by polling (TaskFlowTests), which is no drop left to report.
                dropped: ReceptionRequest(text: "research brokenstream vanish", trustLevel: 1),
                planned: ReceptionRequest(text: "research a plan first", trustLevel: 0))).run()
            #expect(report.failures.isEmpty, "\(report)")
            // Every scenario applies to Loop Symphony: none may quietly fall out of the run.
            #expect(report.passed.count == report.outcomes.count && report.outcomes.count == 7, "\(report)")
        }
    }
}
