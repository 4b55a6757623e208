import Foundation
import ReceptionCore
import ReceptionReferenceServers
import ReceptionTestSupport
import ReceptionTimepoint
import ReceptionTesting
import Testing

/// A reference server on 127.0.0.1, a client for it with its token file in a scratch state
/// directory, and the email of a user the test may sign in; all stopped afterwards.
struct TimepointRig: Sendable {
    let server: RunningTimepointServer
    let client: TimepointClient
    let directory: URL
    let email = "ada@example.com"

    var tokenFile: String { client.configuration.tokenFile }
    var reference: TimepointReferenceServer { server.server }

    /// Another client on the same token file: what the next start of Reception would be.
    func nextStart(_ configure: (inout TimepointConfiguration) -> Void = { _ in }) -> TimepointClient {
        var configuration = client.configuration
        configure(&configuration)
        return TimepointClient(configuration: configuration)
    }

    /// The refresh token the file holds now (tests only: Reception never shows it).
    func savedToken() -> String? {
        guard case .token(let token) = RefreshTokenFile(path: tokenFile, origin: server.baseURL).load() else { return nil }
        return token.reveal()
    }

    /// Access tokens the server has seen, from the `Authorization` headers it received.
    func accessTokensSeen() async -> Set<String> {
        Set(await reference.receivedCalls().compactMap { $0.authorization.map { String($0.dropFirst(7)) } })
    }
}

func withTimepoint<T: Sendable>(_ options: TimepointReferenceOptions = TimepointReferenceOptions(port: 0),
                                signedIn: Bool = true,
                                configure: (inout TimepointConfiguration) -> Void = { _ in },
                                _ body: (TimepointRig) async throws -> T) async throws -> T {
    let server = try await RunningTimepointServer.start(options)
    let directory = Scratch.root.appendingPathComponent("reception-timepoint-\(UUID().uuidString)")
    var configuration = TimepointConfiguration(baseURL: server.baseURL, tokenFile: directory.appendingPathComponent("state/reception/timepoint/timepoint.json").path,
                                               adminKey: SecretToken(options.adminKey))
    configuration.serverErrorRetryDelay = .milliseconds(50)
    configure(&configuration)
    let client = TimepointClient(configuration: configuration)
    let rig = TimepointRig(server: server, client: client, directory: directory)
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
        if signedIn { _ = try await client.signInDev(email: rig.email, displayName: "Ada") }
        let result = try await body(rig)
        await client.shutdown()
        await server.stop()
        return result
    } catch {
        await client.shutdown()
        await server.stop()
        throw error
    }
}

func progressLines(_ events: [BackendEvent]) -> [String] {
    events.compactMap { if case .progress(let progress) = $0 { progress.message } else { nil } }
}

/// The `TimepointError` a call threw; an issue is recorded when it throws none or another error.
func timepointError(_ body: () async throws -> Void) async -> TimepointError? {
    await #expect(throws: TimepointError.self) { try await body() }
}

func fileMode(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
}
