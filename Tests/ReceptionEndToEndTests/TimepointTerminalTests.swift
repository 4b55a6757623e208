import Foundation
import ReceptionTestSupport
import Testing

/// `reception serve timepoint` and the REPL signed in to it, on a pseudo-terminal and piped:
/// a whole session, then a search of everything it left for a token.
@Suite("TIMEPOINT through the REPL", .serialized)
struct TimepointTerminalTests {
    static let prompt = "› "

    static func startServer() async throws -> (Process, String) {
        try await ReferenceServerProcess.start(["timepoint", "--step-ms", "5"], url: #"http://127\.0\.0\.1:\d+"#)
    }

    /// A home whose backends.json has a profile `tp` for the server, its admin key in a 0600 file.
    static func home(for url: String) throws -> URL {
        let home = Scratch.root.appendingPathComponent("reception-tp-e2e-\(UUID().uuidString)")
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let keyFile = home.appendingPathComponent("admin-key").path
        FileManager.default.createFile(atPath: keyFile, contents: Data("dev-admin-key\n".utf8), attributes: [.posixPermissions: 0o600])
        try #"{"profiles":[{"name":"tp","kind":"timepoint","url":"\#(url)","admin_key_file":"\#(keyFile)"}]}"#
            .write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        return home
    }

    /// Every regular file under `directory`, with its text.
    static func files(under directory: URL) -> [(path: String, text: String)] {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return walker.compactMap { item -> (String, String)? in
            guard let url = item as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                  let data = try? Data(contentsOf: url) else { return nil }
            return (url.path, String(decoding: data, as: UTF8.self))
        }
    }

    /// An admin-key file other users can read is refused, but only `/signin dev` needs the
    /// key: the session starts, says why the command is unavailable, and the key is never sent.
    @Test func aLooseAdminKeyFileOnlyDisablesDevSignIn() async throws {
        let (server, url) = try await Self.startServer()
        defer { server.stop() }
        let home = try Self.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        let keyFile = home.appendingPathComponent("admin-key").path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile)
        let (output, status) = try await PipedREPL.run(["--backend", "tp"], input: "/signin dev ada@example.com\n/credits\n", home: home)
        #expect(status == 0, "\(output)")
        let refusal = "refusing the admin_key file \(keyFile) because its mode is 0644; other users could read it. Run: chmod 600 \(keyFile)"
        #expect(output.components(separatedBy: "/signin dev is unavailable, since the dev admin key is not used: Profile tp").count - 1 == 2, "\(output)")
        #expect(output.components(separatedBy: refusal + "\n").count - 1 == 2, "said at start and at /signin dev, the command last: \(output)")
        #expect(output.contains("You are not signed in"), "\(output)")
        #expect(!output.contains("Signed in as ada@example.com"), "\(output)")
    }

    @Test func aWholeSessionShowsAndLeavesNoTokenAnywhere() async throws {
        let (server, url) = try await Self.startServer()
        defer { server.stop() }
        let home = try Self.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try TerminalSession(arguments: ["--backend", "tp", "--soul", "butler"], home: home)
        var at = try await terminal.waitFor("You are not signed in")
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/signin dev ada@example.com Ada")
        at = try await terminal.waitFor("Signed in as ada@example.com. You have 50 credits.", after: at)
        terminal.enter("Oppenheimer at Trinity, 1945")
        at = try await terminal.waitFor("In the scene: Oppenheimer, Tomas Brenner, Old Scribe.", after: at)
        #expect(terminal.screen.contains("Generating a scene costs 5 credits; you have 50 credits."))
        terminal.enter("ask Oppenheimer what he is thinking")
        at = try await terminal.waitFor("I am thinking about what comes next.", after: at)
        #expect(terminal.screen[..<at].contains("I am pleased to report the following."), "the soul wraps the character's answer")
        terminal.enter("/credits history")
        at = try await terminal.waitFor("signup_bonus", after: at)
        terminal.enter("/account delete")
        at = try await terminal.waitFor("To go ahead, type: /account delete ada@example.com", after: at)
        let transcript = home.appendingPathComponent("session.md").path
        terminal.enter("/save \(transcript)")
        at = try await terminal.waitFor("Saved", after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)

        // The next start renews from the saved refresh token: still signed in.
        let (again, status) = try await PipedREPL.run(["--backend", "tp"], input: "/credits\n", home: home)
        #expect(status == 0, "\(again)")
        #expect(again.contains("Signed in as ada@example.com (saved sign-in)."), "\(again)")
        #expect(again.contains("You have 44 credits"), "\(again)")

        // Nothing shown, saved or written holds a token: the reference server's access tokens
        // start tpa_, its refresh tokens tpr_; only the token file may hold (one) refresh token.
        let tokenFile = home.appendingPathComponent("state/reception/timepoint/tp.json").path
        let saved = try String(contentsOfFile: transcript, encoding: .utf8)
        #expect(saved.contains("Oppenheimer considers"))
        for text in [terminal.rawOutput, again, saved] {
            #expect(!text.contains("tpa_") && !text.contains("tpr_") && !text.contains("dev-admin-key"), "\(text)")
        }
        let files = Self.files(under: home)
        // The search can see a token: the token file holds the refresh token, and only it.
        #expect(files.first { $0.path == tokenFile }?.text.contains("tpr_") == true)
        let history = try #require(files.first { $0.path.hasSuffix("/state/reception/history") }, "\(files.map(\.path))")
        #expect(history.text.contains("/signin dev ada@example.com"), "the history is among the files searched")
        #expect(files.count >= 3, "\(files.map(\.path))")
        for file in files {
            #expect(!file.text.contains("tpa_"), "an access token in \(file.path)")
            if file.path != tokenFile { #expect(!file.text.contains("tpr_"), "a refresh token in \(file.path)") }
        }
        #expect((try FileManager.default.attributesOfItem(atPath: tokenFile)[.posixPermissions] as? Int) == 0o600)
    }

    /// `/chat` is a turn of the conversation: `/save` keeps it and the character's answer
    /// (before, a session of scene and chats saved the scene alone, or "0 entries").
    @Test func aChatWithACharacterIsInTheSavedTranscript() async throws {
        let (server, url) = try await Self.startServer()
        defer { server.stop() }
        let home = try Self.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("chat.md").path
        let input = "/signin dev cy@example.com\nOppenheimer at Trinity, 1945\n/chat Oppenheimer what are you thinking\n/chat Nobody hello\n"
            + "ask everyone how the morning feels\n/credits\n/save \(file)\n/signout\n/chat Oppenheimer still there?\nask Oppenheimer are you there\n"
        let (output, status) = try await PipedREPL.run(["--backend", "tp"], input: input, home: home)
        #expect(status == 1, "the last message failed (signed out), and a script says so: \(output)")
        #expect(output.contains("Saved 6 entries"), "the scene, the chat and the survey, each with its answer: \(output)")
        // Nobody of that name: said at once, with no cost announced for a call that would fail.
        #expect(output.contains("Nobody called “Nobody” is in this scene: Oppenheimer"), "\(output)")
        #expect(!output.contains("Asking Nobody costs"), "\(output)")
        // A survey is not charged: no cost line claims it is.
        #expect(!output.contains("Asking everyone costs"), "\(output)")
        // Signed out: no cost is announced for calls the server will refuse; they say why.
        let afterSignOut = try #require(output.range(of: "Signed out")).upperBound
        #expect(!output[afterSignOut...].contains("costs 1 credit"), "\(output[afterSignOut...])")
        #expect(output[afterSignOut...].components(separatedBy: "not signed in").count - 1 == 2, "\(output[afterSignOut...])")
        let saved = try String(contentsOfFile: file, encoding: .utf8)
        #expect(saved.contains("/chat Oppenheimer what are you thinking"), "\(saved)")
        #expect(saved.contains("I am thinking about what comes next."), "\(saved)")
        // Saved as Markdown, the way an answer to "ask NAME …" is: the name bold in both.
        #expect(saved.contains("\n**Oppenheimer**: Oppenheimer considers") && saved.contains("\n**Oppenheimer**: Oppenheimer answers"), "\(saved)")
        #expect(!saved.contains("/credits") && !saved.contains("/signin"), "status commands are not the conversation: \(saved)")
    }

    @Test func pipedInputIsNeverAskedToConfirmADeletion() async throws {
        let (server, url) = try await Self.startServer()
        defer { server.stop() }
        let home = try Self.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        let (output, status) = try await PipedREPL.run(["--backend", "tp"], input: "/signin dev bo@example.com\n/account delete\nbo@example.com\n/account\n", home: home)
        #expect(status == 0, "\(output)")
        #expect(output.contains("To go ahead, type: /account delete bo@example.com"))
        // The next line was a message (a new scene query), not an answer: the account is still there.
        #expect(output.contains("Signed in as **bo@example.com**") || output.contains("Signed in as bo@example.com"), "\(output)")
        #expect(!output.contains("Account deactivated"))
    }

    @Test func aMessageTheServerCannotTakeIsSaidAtOnceNeverQueuedForLater() async throws {
        let (server, url) = try await Self.startServer()
        let home = try Self.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try TerminalSession(arguments: ["--backend", "tp"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("/signin dev ada@example.com")
        at = try await terminal.waitFor("Signed in as", after: at)
        server.terminate()
        server.waitUntilExit()
        terminal.enter("Oppenheimer at Trinity, 1945")
        at = try await terminal.waitFor("Cannot reach", after: at)
        #expect(!terminal.screen.contains("queued"), "a metered action is not replayed later: \(terminal.screen)")
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() != nil)
    }

    /// The backend does not start without its server, so `/signout` cannot run then: the
    /// refusal says where the saved sign-in is and how to forget it, never the token.
    @Test func aSavedSignInCanBeForgottenWhileTheServerIsDown() async throws {
        let (server, url) = try await Self.startServer()
        let home = try Self.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        let (first, _) = try await PipedREPL.run(["--backend", "tp"], input: "/signin dev ada@example.com\n", home: home)
        server.terminate()
        server.waitUntilExit()
        #expect(first.contains("Signed in as"), "\(first)")
        let (output, status) = try await PipedREPL.run(["--backend", "tp"], input: "/signout\n", home: home)
        #expect(status != 0, "\(output)")
        #expect(output.contains("Cannot reach"), "\(output)")
        let tokenFile = try #require(Self.files(under: home).first { $0.path.hasSuffix("/timepoint/tp.json") })
        #expect(output.contains("A sign-in is saved in \(tokenFile.path). To forget it while the server cannot be reached, delete that file"), "\(output)")
        #expect(!output.contains("tpr_") && !output.contains("refresh_token"), "no token shown: \(output)")
    }

    @Test func escapeSequencesTheServerEchoesNeverReachTheTerminal() async throws {
        let (server, url) = try await Self.startServer()
        defer { server.stop() }
        let home = try Self.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        // The query comes back in the scene's title, location and dialog: a hostile server (or
        // a hostile query) puts a clear-screen and a clipboard write in them.
        let (output, status) = try await PipedREPL.run(["--backend", "tp"], input: "/signin dev eve@example.com\nRome \u{1B}[2J\u{1B}]52;c;aGk=\u{07} 1850\n", home: home)
        #expect(status == 0, "\(output)")
        #expect(output.contains("In the scene:"), "\(output)")
        #expect(!output.contains("\u{1B}") && !output.contains("\u{07}"), "no escape sequence printed: \(output.debugDescription)")
    }
}
