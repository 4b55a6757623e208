import Foundation
import ReceptionCore
import ReceptionReferenceServers
import ReceptionTestSupport
import ReceptionTimepoint
import ReceptionTesting
import Testing

@Suite("TIMEPOINT sign-in, refresh and rotation over loopback")
struct SessionTests {
    @Test func signingInKeepsOnlyTheRefreshTokenInA0600FileAndTheAccessTokenInMemory() async throws {
        try await withTimepoint { rig in
            _ = try await rig.client.balance()
            #expect(fileMode(rig.tokenFile) == 0o600)
            #expect(fileMode((rig.tokenFile as NSString).deletingLastPathComponent) == 0o700)
            let saved = try #require(rig.savedToken())
            let file = try String(contentsOfFile: rig.tokenFile, encoding: .utf8)
            let access = await rig.accessTokensSeen()
            #expect(!access.isEmpty)
            for token in access { #expect(!file.contains(token), "the access token never reaches the disk") }
            #expect(!access.contains(saved))
            // The admin key went to the dev sign-in only.
            let calls = await rig.reference.receivedCalls()
            #expect(calls.filter { $0.adminKey != nil }.map(\.path) == ["/api/v1/auth/dev/token"])
        }
    }

    @Test func anExpiredAccessTokenIsRefreshedOnceAndTheCallRetriedOnce() async throws {
        try await withTimepoint { rig in
            let before = try #require(rig.savedToken())
            await rig.reference.expireAccessTokens()
            let balance = try await rig.client.balance()
            #expect(balance.balance == 50)
            let calls = await rig.reference.receivedCalls().map { "\($0.method) \($0.path)" }
            #expect(calls.suffix(3) == ["GET /api/v1/credits/balance", "POST /api/v1/auth/refresh", "GET /api/v1/credits/balance"])
            // Rotation: the new refresh token is saved, the old one is no longer the file's.
            let after = try #require(rig.savedToken())
            #expect(after != before)
            #expect(fileMode(rig.tokenFile) == 0o600)
        }
    }

    @Test func anExpiredTokenOnTheGenerationStreamIsRefreshedToo() async throws {
        try await withTimepoint { rig in
            // The token expires between the cost line (which reads the balance) and the stream.
            await rig.reference.inject(TimepointFault(path: "/api/v1/timepoints/generate/stream", status: 401, message: "Access token has expired"))
            let backend = TimepointBackend(client: rig.client)
            let events = try await collect(backend.submit(ReceptionRequest(text: "Oppenheimer at Trinity, 1945", trustLevel: 1)))
            #expect(result(in: events) != nil, "\(events)")
            let calls = await rig.reference.receivedCalls().map { "\($0.method) \($0.path)" }
            #expect(calls.filter { $0 == "POST /api/v1/auth/refresh" }.count == 1, "\(calls)")
            #expect(calls.filter { $0 == "POST /api/v1/timepoints/generate/stream" }.count == 2, "refused once, sent again once: \(calls)")
        }
    }

    @Test func callsThatExpireTogetherShareOneRefresh() async throws {
        try await withTimepoint { rig in
            await rig.reference.expireAccessTokens()
            let client = rig.client
            let balances = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 { group.addTask { try await client.balance().balance } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(balances == Array(repeating: 50, count: 6))
            let refreshes = await rig.reference.receivedCalls().filter { $0.path == "/api/v1/auth/refresh" }.count
            #expect(refreshes == 1, "one rotation for all of them")
            #expect(await rig.reference.liveRefreshTokens(of: rig.email) == 1)
        }
    }

    @Test func signingInWithAnAppleIdentityTokenFromAFile() async throws {
        try await withTimepoint(signedIn: false) { rig in
            let backend = TimepointBackend(client: rig.client)
            let signIn = try #require(TimepointCommands(backend: backend).all.first { $0.name == "/signin" })
            let file = rig.directory.appendingPathComponent("identity-token").path
            try FileManager.default.createDirectory(at: rig.directory, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: file, contents: Data("apple:001234.abcd\n".utf8), attributes: [.posixPermissions: 0o600])
            let said = try await signIn.run(["apple", file])
            #expect(said == "Signed in as **001234.abcd@privaterelay.appleid.com**. You have 50 credits.")
            #expect(rig.savedToken() != nil)
            FileManager.default.createFile(atPath: file, contents: Data("forged\n".utf8), attributes: [.posixPermissions: 0o600])
            let error = await timepointError { _ = try await signIn.run(["apple", file]) }
            guard case .signInAgain(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reason == "The server refused your sign-in (Invalid Apple identity token). Sign in again with /signin.")
            #expect(!reason.contains("forged"))
        }
    }

    @Test func theNextStartIsSignedInFromTheSavedRefreshToken() async throws {
        try await withTimepoint { rig in
            let next = rig.nextStart()
            let user = try await next.me()
            #expect(user.email == rig.email)
            // It renewed from the file (a new process has no access token) and rotated it.
            let calls = await rig.reference.receivedCalls().map(\.path)
            #expect(calls.suffix(2) == ["/api/v1/auth/refresh", "/api/v1/auth/me"])
            await next.shutdown()
        }
    }

    @Test func aReusedRevokedRefreshTokenEndsEverySessionWithAClearMessage() async throws {
        try await withTimepoint { rig in
            let stolen = try #require(rig.savedToken())
            await rig.reference.expireAccessTokens()
            _ = try await rig.client.balance()  // rotates: the stolen token is now revoked
            // Someone (a copy of the old file) presents the rotated token.
            let copy = rig.directory.appendingPathComponent("copy.json").path
            try RefreshTokenFile(path: copy, origin: rig.server.baseURL).save(SecretToken(stolen))
            var configuration = rig.client.configuration
            configuration.tokenFile = copy
            let thief = TimepointClient(configuration: configuration)
            let error = await timepointError { _ = try await thief.me() }
            // Shut down before anything can return early: a client released without it stops
            // a debug test process.
            await thief.shutdown()
            guard case .signInAgain(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reason.contains("already used"), "\(reason)")
            #expect(reason.contains("Sign in again with /signin"))
            #expect(!FileManager.default.fileExists(atPath: copy), "a dead token is forgotten")
            // The server revoked every token of the user: the legitimate session must sign in again too.
            #expect(await rig.reference.liveRefreshTokens(of: rig.email) == 0)
            await rig.reference.expireAccessTokens()
            let second = await timepointError { _ = try await rig.client.balance() }
            guard case .signInAgain(let words)? = second else { Issue.record("got \(String(describing: second))"); return }
            #expect(words.contains("already used"))
            // No loop: one refresh for that call, then the answer.
            let refreshes = await rig.reference.receivedCalls().filter { $0.path == "/api/v1/auth/refresh" }.count
            #expect(refreshes == 3)
        }
    }

    @Test func aRefreshTheServerCannotDoEndsInSignInAgainAndKeepsTheSavedToken() async throws {
        // Upstream 74d8e06 answers every valid refresh with 500.
        try await withTimepoint(TimepointReferenceOptions(port: 0, refreshAnswers500: true)) { rig in
            let saved = try #require(rig.savedToken())
            await rig.reference.expireAccessTokens()
            let error = await timepointError { _ = try await rig.client.balance() }
            guard case .signInAgain(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reason.hasPrefix("Your saved sign-in could not be renewed: the server failed while renewing it (HTTP 500, in its words: “No row was found"), "\(reason)")
            #expect(reason.contains("It is kept in case the server recovers"), "\(reason)")
            #expect(rig.savedToken() == saved, "nothing is lost: the token the server still honours stays")
            // The 500 was retried once, and the call itself was not repeated in a loop.
            let refreshes = await rig.reference.receivedCalls().filter { $0.path == "/api/v1/auth/refresh" }.count
            #expect(refreshes == 2)
            // The next calls say so at once, without asking the broken server again.
            let again = await timepointError { _ = try await rig.client.balance() }
            #expect(again == error)
            #expect(await rig.reference.receivedCalls().filter { $0.path == "/api/v1/auth/refresh" }.count == 2)
            // Signing in again works.
            _ = try await rig.client.signInDev(email: rig.email)
            #expect(try await rig.client.balance().balance == 50)
        }
    }

    @Test func signingOutAfterAFailedRenewalSaysWhatBecameOfTheSavedSignIn() async throws {
        try await withTimepoint(TimepointReferenceOptions(port: 0, refreshAnswers500: true)) { rig in
            await rig.reference.expireAccessTokens()
            _ = await timepointError { _ = try await rig.client.balance() }
            let words = await rig.client.signOut()
            #expect(words == "Signed out: the saved sign-in, which the server could not renew, was revoked there and forgotten here.", "\(words)")
            #expect(!FileManager.default.fileExists(atPath: rig.tokenFile))
            #expect(await rig.reference.liveRefreshTokens(of: rig.email) == 0)
        }
    }

    @Test func signingOutRevokesTheTokenAndForgetsIt() async throws {
        try await withTimepoint { rig in
            let saved = try #require(rig.savedToken())
            let words = await rig.client.signOut()
            #expect(words == "Signed out.")
            #expect(!FileManager.default.fileExists(atPath: rig.tokenFile))
            #expect(await rig.reference.liveRefreshTokens(of: rig.email) == 0)
            let error = await timepointError { _ = try await rig.client.balance() }
            guard case .signInAgain(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reason.contains("not signed in"))
            #expect(!reason.contains(saved))
        }
    }

    @Test func accountDeletionNeedsTheTypedConfirmation() async throws {
        try await withTimepoint { rig in
            let wrong = await timepointError { _ = try await rig.client.deleteAccount(confirmation: "yes") }
            guard case .notConfirmed(let words)? = wrong else { Issue.record("got \(String(describing: wrong))"); return }
            #expect(words.contains("/account delete \(rig.email)"))
            #expect(try await rig.client.me().email == rig.email, "nothing was deleted")
            let done = try await rig.client.deleteAccount(confirmation: rig.email)
            #expect(done == "Account deactivated")
            #expect(!FileManager.default.fileExists(atPath: rig.tokenFile))
            #expect(await rig.reference.liveRefreshTokens(of: rig.email) == 0)
        }
    }

    @Test func tokensNeverDescribeThemselves() {
        let pair = TokenPair(access: SecretToken("tpa_visible"), refresh: SecretToken("tpr_visible"))
        #expect(!"\(pair)".contains("visible"))
        #expect(!String(reflecting: pair).contains("visible"))
        var dumped = ""
        dump(pair, to: &dumped)
        #expect(!dumped.contains("visible"))
    }

    /// A token folder made earlier with mode 0755 stayed 0755 after a sign-in
    /// (the queue's and the caches' folders are tightened).
    @Test func anExistingTokenFolderOthersCanListIsTightenedTo0700() throws {
        let directory = Scratch.root.appendingPathComponent("reception-tp-dir-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/timepoint", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        #expect(fileMode(directory + "/timepoint") == 0o755)
        try RefreshTokenFile(path: directory + "/timepoint/dev.json", origin: "http://127.0.0.1:1").save(SecretToken("tpr_folder"))
        #expect(fileMode(directory + "/timepoint") == 0o700)
        #expect(fileMode(directory + "/timepoint/dev.json") == 0o600)
    }

    @Test func aTokenFileOthersCanReadIsNotUsed() async throws {
        try await withTimepoint { rig in
            chmod(rig.tokenFile, 0o644)
            let next = rig.nextStart()
            let error = await timepointError { _ = try await next.me() }
            guard case .signInAgain(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reason.contains("can be read by other users"), "\(reason)")
            await next.shutdown()
        }
    }

    @Test func aTokenSavedForAnotherServerIsNeverSentHere() async throws {
        try await withTimepoint { rig in
            try RefreshTokenFile(path: rig.tokenFile, origin: "http://other.example:8000").save(SecretToken("tpr_elsewhere"))
            let next = rig.nextStart()
            let error = await timepointError { _ = try await next.me() }
            guard case .signInAgain(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(reason.contains("another server"))
            let refreshes = await rig.reference.receivedCalls().filter { $0.path == "/api/v1/auth/refresh" }
            #expect(refreshes.isEmpty)
            await next.shutdown()
        }
    }
}
