import ReceptionCore
@testable import ReceptionLocal
import ReceptionTesting
import Testing

@Suite("Local backend conformance")
struct LocalConformanceTests {
    @Test func theLocalBackendKeepsTheEventContract() async throws {
        let backend = LocalBackend(knowledge: try .builtIn(), usesBuiltInKnowledge: true, settings: .init(stepDelay: .milliseconds(1_500)))
        let report = await BackendConformance(backend: backend, scenarios: .init(
            answered: ReceptionRequest(text: "what can reception do?", trustLevel: 1),
            slow: ReceptionRequest(text: "how do trust levels work?", trustLevel: 1),
            planned: ReceptionRequest(text: "how do souls work?", trustLevel: 0),
            notApplicable: [
                "failing": "the embedded engine has no failure mode of its own: an unanswerable question is an inconclusive result",
                "unusual": "in process: nothing arrives over a wire that could carry unknown fields",
                "dropped": "in process: there is no connection to drop",
            ])).run()
        #expect(report.failures.isEmpty, "\(report)")
        #expect(report.passed.count == 4, "\(report)")
    }
}

@Suite("Local plugin")
struct LocalPluginTests {
    /// A newcomer's first message gets an answer, not a plan.
    @Test func theEmbeddedBackendStartsAtTrustOneUnlessConfigured() async throws {
        let environment = PluginEnvironment.standard(["HOME": "/nonexistent"])
        let builtIn = try #require(LocalPlugin.plugin.builtInProfile?(environment))
        let connection = try await LocalPlugin.plugin.connect(builtIn, environment)
        #expect(connection.defaultTrustLevel == 1)
        let configured = BackendProfile(name: "careful", kind: "local", values: ["trust_level": .integer(0)])
        #expect(try await LocalPlugin.plugin.connect(configured, environment).defaultTrustLevel == 0)
    }
}
