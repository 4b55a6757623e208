import Foundation
import ReceptionCore
import ReceptionLoopSymphony
import ReceptionReferenceServers
import ReceptionTestSupport
import Testing

/// Connecting as a person's REPL does: the key is checked once,
/// on an endpoint that requires it, and the server's trust level is where a session starts.
@Suite("Connecting to Loop Symphony")
struct ConnectTests {
    let environment = PluginEnvironment.standard(["HOME": Scratch.root.path + "/reception-connect-\(UUID().uuidString)"])

    func configuration(_ url: String, key: String?, source: String = "$LS_KEY") -> LoopSymphonyConfiguration {
        var configuration = LoopSymphonyConfiguration(baseURL: url, apiKey: key, userID: "tester", defaultTrustLevel: 1)
        configuration.apiKeySource = source
        return configuration
    }

    @Test func aWrongOrDeactivatedKeyIsSaidPlainlyAtConnect() async throws {
        let server = try await RunningLoopSymphonyServer.start(.fast())
        defer { Task { await server.stop() } }
        for (key, status) in [("not-a-key", 401), ("inactive-key", 403)] {
            do {
                let connection = try await LoopSymphonyPlugin.connect(configuration(server.baseURL, key: key), name: "ls", environment: environment)
                await connection.shutdown()
                Issue.record("\(key) must be refused")
            } catch {
                let text = "\(error)"
                #expect(text.contains("refused the API key from $LS_KEY (HTTP \(status)"), "\(text)")
                #expect(!text.contains(key), "the key itself is never shown: \(text)")
            }
        }
        await server.stop()
    }

    /// A URL with a path (or another server's) answers the health check 404: the message names
    /// the URL and what Loop Symphony's base URL is, not a bare "HTTP 404: Not Found".
    @Test func aURLWhereNoHealthCheckAnswersIsNamedWithTheLikelyCause() async throws {
        let server = try await RunningLoopSymphonyServer.start(.fast())
        defer { Task { await server.stop() } }
        do {
            let connection = try await LoopSymphonyPlugin.connect(configuration(server.baseURL + "/v1", key: nil), name: "ls", environment: environment)
            await connection.shutdown()
            Issue.record("a URL with /v1 must be refused")
        } catch {
            #expect("\(error)".contains("The server at \(server.baseURL)/v1 answered GET /health with HTTP 404"), "\(error)")
            #expect("\(error)".contains("Is \(server.baseURL)/v1 Loop Symphony's base URL?"), "\(error)")
        }
        await server.stop()
    }

    @Test func theDevelopmentKeyRefusedByAServerMeansGoingOnWithoutAKeyAndSayingSo() async throws {
        let server = try await RunningLoopSymphonyServer.start(LoopSymphonyReferenceOptions(
            apps: [.init(apiKey: "real-key", name: "Real app")], stepDelay: .milliseconds(20)))
        let profile = try #require(LoopSymphonyPlugin.plugin.builtInProfile?(.standard(["HOME": "/nonexistent", "LOOP_SYMPHONY_URL": server.baseURL])))
        let connection = try await LoopSymphonyPlugin.connect(
            LoopSymphonyPlugin.configuration(for: profile, environment: environment), name: "loop-symphony", environment: environment)
        #expect(connection.notice?.contains("going on without an API key") == true, "\(connection.notice ?? "no notice")")
        var answered = false
        for try await event in connection.backend.submit(ReceptionRequest(text: "hello", trustLevel: 1)) {
            if case .result = event { answered = true }
        }
        #expect(answered)
        await connection.shutdown()
        await server.stop()
    }

    /// A server that cannot be reached starts the session offline; the notice spoke of an API
    /// key that "could not be checked" even when none was configured (only the development key
    /// sent on loopback).
    @Test func anUnreachableServerSpeaksOfTheKeyOnlyWhenOneWasConfigured() async throws {
        let profile = try #require(LoopSymphonyPlugin.plugin.builtInProfile?(.standard(["HOME": "/nonexistent", "LOOP_SYMPHONY_URL": refusingLoopbackURL()])))
        let unkeyed = try await LoopSymphonyPlugin.connect(
            LoopSymphonyPlugin.configuration(for: profile, environment: environment), name: "loop-symphony", environment: environment)
        let said = unkeyed.notice ?? ""
        #expect(said.contains("cannot be reached") && said.contains("Messages you send now are queued and sent when it answers.") && !said.contains("API key"),
                "\(said)")
        await unkeyed.shutdown()
        let keyed = try await LoopSymphonyPlugin.connect(configuration(refusingLoopbackURL(), key: "k"), name: "ls", environment: environment)
        #expect(keyed.notice?.contains("(the API key could not be checked)") == true, "\(keyed.notice ?? "no notice")")
        await keyed.shutdown()
    }

    @Test func theServersTrustLevelIsWhereASessionStarts() async throws {
        try await withServer { server, client in
            _ = try await client.trust.setLevel(2)
            let connection = try await LoopSymphonyPlugin.connect(
                LoopSymphonyConfiguration(baseURL: server.baseURL, apiKey: "dev-key", userID: "tester", defaultTrustLevel: 0),
                name: "ls", environment: environment)
            #expect(connection.defaultTrustLevel == 2, "an upgrade accepted in an earlier session is kept")
            #expect(connection.notice == nil)
            await connection.shutdown()
        }
    }
}
