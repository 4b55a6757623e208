import Foundation
import ReceptionReferenceServers
import ReceptionTestSupport
import ReceptionTimepoint
import Testing

/// A process killed with SIGKILL in the middle of a refresh: the real session code in a
/// process of its own (`timepoint-session-probe`), the real reference server on loopback.
@Suite("TIMEPOINT: SIGKILL during a refresh", .serialized)
struct CrashDuringRefreshTests {
    static func probe() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("timepoint-session-probe"),
                          Bundle.main.bundleURL.appendingPathComponent("timepoint-session-probe"),
                          root.appendingPathComponent(".build/debug/timepoint-session-probe")]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw ProbeMissing(description: "build it first: swift build --product timepoint-session-probe (looked at \(candidates.map(\.path)))")
        }
        return found.path
    }

    struct ProbeMissing: Error, CustomStringConvertible { var description: String }

    /// Starts the probe; `output` collects what it prints.
    static func start(_ arguments: [String], url: String, tokenFile: String) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try probe())
        process.arguments = ["--url", url, "--token-file", tokenFile] + arguments
        process.environment = ["TIMEPOINT_ADMIN_KEY": "dev-admin-key", "PATH": "/usr/bin:/bin"]
        let output = Pipe.forChild()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return (process, output)
    }

    /// Runs the probe to its end. The wait is on a thread of its own: the reference server
    /// runs in this process, and its handlers need the cooperative pool's threads while the
    /// probe waits for its answers.
    static func run(_ arguments: [String], url: String, tokenFile: String) async throws -> (status: Int32, output: String) {
        let (process, output) = try start(arguments, url: url, tokenFile: tokenFile)
        let data = await offThePool { output.fileHandleForReading.readDataToEndOfFile() }
        await offThePool { process.waitUntilExit() }
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Reads the probe's output until `marker` appears (or it ends).
    static func wait(for marker: String, in pipe: Pipe) async -> String {
        await offThePool { waitBlocking(for: marker, in: pipe) }
    }

    private static func waitBlocking(for marker: String, in pipe: Pipe) -> String {
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains(marker) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += chunk
        }
        return String(decoding: seen, as: UTF8.self)
    }

    /// The file, whole: JSON with a token, or absent. Never anything in between.
    static func fileState(_ path: String, origin: String) -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "absent" }
        switch RefreshTokenFile(path: path, origin: origin).load() {
        case .token(let token): return "token:\(token.reveal())"
        case .none: return "absent"
        case .otherServer: return "other server"
        case .unusable(let why): return "UNUSABLE: \(why)"
        }
    }

    @Test func killedAfterTheServerAnsweredAndBeforeTheWriteTheNextStartCleanlyAsksToSignInAgain() async throws {
        let server = try await RunningTimepointServer.start()
        defer { Task { await server.stop() } }
        let directory = Scratch.root.appendingPathComponent("reception-tp-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("state/timepoint.json").path
        let signIn = try await Self.run(["signin", "ada@example.com"], url: server.baseURL, tokenFile: tokenFile)
        #expect(signIn.status == 0, "\(signIn.output)")
        let before = Self.fileState(tokenFile, origin: server.baseURL)
        #expect(before.hasPrefix("token:"))

        // A new process renews from the file; it is killed once the server has rotated the token.
        let (process, pipe) = try Self.start(["--pause-at", "answered", "me"], url: server.baseURL, tokenFile: tokenFile)
        let said = await Self.wait(for: "PAUSED answered", in: pipe)
        #expect(said.contains("PAUSED answered"), "\(said)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let refreshes = await server.server.receivedCalls().filter { $0.path == "/api/v1/auth/refresh" }.count
        #expect(refreshes == 1, "the server answered the refresh before the kill")

        // The file is the old one, whole; no temporary file is left holding a token.
        #expect(Self.fileState(tokenFile, origin: server.baseURL) == before)
        #expect(fileMode(tokenFile) == 0o600)

        // The next start presents the token the server already rotated: it is told, in words, to sign in again.
        let next = try await Self.run(["me"], url: server.baseURL, tokenFile: tokenFile)
        #expect(next.status == 3, "\(next.output)")
        #expect(next.output.contains("sign in again: The server has ended your sign-in"), "\(next.output)")
        #expect(Self.fileState(tokenFile, origin: server.baseURL) == "absent", "the dead token is forgotten")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (tokenFile as NSString).deletingLastPathComponent)
        #expect(leftovers.isEmpty, "\(leftovers)")
        // And signing in again works.
        #expect(try await Self.run(["signin", "ada@example.com"], url: server.baseURL, tokenFile: tokenFile).status == 0)
        #expect(try await Self.run(["me"], url: server.baseURL, tokenFile: tokenFile).status == 0)
        for output in [signIn.output, said, next.output] {
            #expect(!output.contains("tpr_") && !output.contains("tpa_"), "no token printed: \(output)")
        }
    }

    /// Killed at each moment of the token file's write, in turn (the probe stops there and
    /// says so, and the server has answered the refresh by then): what is on the disk is the
    /// old file or the new one, whole, and the next start is signed in (the new file) or is
    /// told cleanly to sign in again (the old one holds the token the server rotated).
    @Test(arguments: RefreshTokenFile.WriteStage.allCases)
    func killedAtAnyMomentOfTheWriteTheFileIsNeverHalfWritten(stage: RefreshTokenFile.WriteStage) async throws {
        let server = try await RunningTimepointServer.start()
        defer { Task { await server.stop() } }
        let directory = Scratch.root.appendingPathComponent("reception-tp-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("state/timepoint.json").path
        #expect(try await Self.run(["signin", "ada@example.com"], url: server.baseURL, tokenFile: tokenFile).status == 0)
        let before = Self.fileState(tokenFile, origin: server.baseURL)
        #expect(before.hasPrefix("token:"))
        func refreshes() async -> Int { await server.server.receivedCalls().filter { $0.path == "/api/v1/auth/refresh" }.count }
        let refreshesBefore = await refreshes()

        let (process, pipe) = try Self.start(["--pause-at", stage.rawValue, "me"], url: server.baseURL, tokenFile: tokenFile)
        let said = await Self.wait(for: "PAUSED \(stage.rawValue)", in: pipe)
        #expect(said.contains("PAUSED \(stage.rawValue)"), "the probe reached the stage: \(said)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "killed, not ended by itself")
        // Mid-refresh: the server had rotated the token when the process died.
        #expect(await refreshes() == refreshesBefore + 1, "the server answered the refresh before the kill")

        let after = Self.fileState(tokenFile, origin: server.baseURL)
        let replaced = stage == .replaced
        #expect(replaced ? after.hasPrefix("token:") && after != before : after == before,
                "killed at \(stage.rawValue): \(replaced ? "the new file" : "the old file"), whole; found \(after)")
        #expect(fileMode(tokenFile) == 0o600)

        let next = try await Self.run(["me"], url: server.baseURL, tokenFile: tokenFile)
        if replaced {
            #expect(next.status == 0, "the new token signs in: \(next.output)")
        } else {
            #expect(next.status == 3 && next.output.contains("sign in again: The server has ended your sign-in"), "\(next.output)")
        }
        // A temporary file the dead process left (it holds a token) is gone after the next start.
        let left = try FileManager.default.contentsOfDirectory(atPath: (tokenFile as NSString).deletingLastPathComponent)
        #expect(left.allSatisfy { $0 == "timepoint.json" }, "\(left)")
        for output in [said, next.output] {
            #expect(!output.contains("tpr_") && !output.contains("tpa_"), "no token printed: \(output)")
        }
    }
}
