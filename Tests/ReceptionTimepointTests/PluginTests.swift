import Foundation
import ReceptionCore
import ReceptionReferenceServers
import ReceptionTimepoint
import ReceptionTestSupport
import Testing

@Suite("TIMEPOINT plugin: profile options and connecting")
struct PluginTests {
    func environment(_ directory: URL, _ variables: [String: String] = [:]) -> PluginEnvironment {
        PluginEnvironment(variables: variables.merging(["HOME": directory.path]) { a, _ in a }, dataDirectory: directory.path + "/data",
                          stateDirectory: directory.path + "/state/reception", configDirectory: directory.path + "/config")
    }

    @Test func aProfileBecomesAConfigurationWithItsTokenFileUnderTheStateDirectory() throws {
        let directory = URL(fileURLWithPath: "/tmp/reception-tp-plugin")
        let profile = BackendProfile(name: "tp home", kind: "timepoint", values: [
            "url": .string("http://127.0.0.1:8000/api/v1/"), "admin_key": .secretFromEnvironment("TP_KEY"),
            "generation": .string("background"), "preset": .string("hd"), "poll_interval_s": .integer(4), "visibility": .string("private"),
        ])
        let configuration = try TimepointPlugin.configuration(for: profile, environment: environment(directory, ["TP_KEY": "k-123"]))
        #expect(configuration.baseURL == "http://127.0.0.1:8000")
        #expect(configuration.tokenFile == "/tmp/reception-tp-plugin/state/reception/timepoint/tp_home.json")
        #expect(configuration.adminKey?.reveal() == "k-123")
        #expect(configuration.generation == .background)
        #expect(configuration.preset == "hd")
        #expect(configuration.pollInterval == .seconds(4))
        #expect(configuration.visibility == .private)
        #expect(TimepointPlugin.plugin.option(named: "poll_interval_s")?.type == .integer(3...5))
        #expect(!"\(profile.summary)".contains("k-123"))
    }

    @Test func connectingSaysWhetherTheSavedSignInStillWorks() async throws {
        try await withTimepoint(signedIn: false) { rig in
            var configuration = rig.client.configuration
            let first = try await TimepointPlugin.connect(configuration, name: "tp")
            #expect(first.notice?.hasPrefix("You are not signed in.") == true, "\(first.notice ?? "")")
            let signIn = try #require(first.commands.first { $0.name == "/signin" })
            let said = try await signIn.run(["dev", "ada@example.com", "Ada", "L."])
            #expect(said == "Signed in as **ada@example.com**. You have 50 credits.")
            await first.shutdown()
            let second = try await TimepointPlugin.connect(configuration, name: "tp")
            #expect(second.notice?.hasPrefix("Signed in as ada@example.com (saved sign-in).") == true, "\(second.notice ?? "")")
            await second.shutdown()
            configuration.baseURL = refusingLoopbackURL()
            await #expect(throws: BackendError.self) { _ = try await TimepointPlugin.connect(configuration, name: "tp") }
        }
    }

    /// A URL where something answers, but not TIMEPOINT's API (a path too many): the URL and
    /// what it should be are said, not "Not found: {\"message\":…}".
    @Test func aURLWithoutTheAPINamesItself() async throws {
        try await withTimepoint(signedIn: false) { rig in
            var configuration = rig.client.configuration
            configuration.baseURL += "/api/v1"
            do {
                let connection = try await TimepointPlugin.connect(configuration, name: "tp")
                await connection.shutdown()
                Issue.record("a URL with /api/v1 must be refused")
            } catch {
                #expect("\(error)".contains("The server at \(configuration.baseURL) has no TIMEPOINT API") && "\(error)".contains("without /api/v1"), "\(error)")
            }
        }
    }
}
