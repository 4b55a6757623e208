import Foundation
import GRDB
import ReceptionTestSupport
import Testing

/// When the conversation log is not there for the session (locked, read-only, damaged, the
/// disk full, a newer schema): the REPL says once that the conversation is not logged and
/// why, and every message is still sent and answered.
@Suite("Conversation log failures through the binary", .serialized)
struct ConversationLogFailureTests {
    static let messages = "first message\nsecond message\n"

    /// The session's two messages were answered (the second with the first as history), and
    /// the warning came once, with its reason.
    static func expectSentAndSaidOnce(_ output: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.contains("You said: first message"), "the first message was sent: \(output)", sourceLocation: sourceLocation)
        #expect(output.contains("You said: second message") && output.contains("This is message 2 of our conversation."),
                "the second too, with the conversation so far: \(output)", sourceLocation: sourceLocation)
        #expect(output.components(separatedBy: "This conversation is not being logged").count == 2, "said once: \(output)",
                sourceLocation: sourceLocation)
        #expect(output.contains(reason), "with why (\(reason)): \(output)", sourceLocation: sourceLocation)
    }

    /// A home with an `oai` profile and a log of one earlier session, read once (so the
    /// database holds it).
    static func homeWithLog(_ url: String) async throws -> URL {
        let home = try OpenAITerminalTests.home(for: url)
        let (output, status) = try await PipedREPL.run(["--backend", "oai"], input: "an earlier session\n", home: home)
        let (listed, _) = try await ConversationLogEndToEndTests.reception(["logs"], home: home)
        #expect(status == 0 && listed.contains("an earlier session"), "\(output)\n\(listed)")
        #expect(FileManager.default.fileExists(atPath: ConversationLogEndToEndTests.logPath(home)))
        return home
    }

    /// The folder of the session's pending lines locked by another process (a reader moving
    /// them in, stopped): the session waits a second, then says so and goes on.
    @Test func aLogLockedLongerThanAMomentIsSkipped() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try await Self.homeWithLog(url)
        let lock = open(ConversationLogEndToEndTests.logPath(home) + "-pending/.lock", O_RDWR)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        defer { close(lock) }
        let (output, status) = try await PipedREPL.run(["--backend", "oai"], input: Self.messages, home: home)
        #expect(status == 0)
        Self.expectSentAndSaidOnce(output, reason: "another process has kept it locked")
    }

    /// The database locked by another process for as long as the session lasts does not stop
    /// the log: the session never waits for it, and its exchanges are read once it is let go.
    /// A whole session run while another process holds the log's write lock: on a thread of
    /// its own, so the wait does not hold one of the cooperative pool's few threads from the
    /// other tests.
    static func runWhileLocked(_ arguments: [String], input: String, home: URL) async throws -> (output: String, status: Int32) {
        let holder = try DatabaseQueue(path: ConversationLogEndToEndTests.logPath(home))
        let executable = try Binary.reception()
        return try await offThePool {
            try holder.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                defer { try? db.execute(sql: "ROLLBACK") }
                let (output, _, status) = try PipedREPL.runBlocking(arguments, input: input, home: home, executable: executable)
                return (output, status)
            }
        }
    }

    @Test func aDatabaseLockedForTheWholeSessionStillLogsIt() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try await Self.homeWithLog(url)
        let (output, status) = try await Self.runWhileLocked(["--backend", "oai"], input: Self.messages, home: home)
        #expect(status == 0 && output.contains("This is message 2 of our conversation."), "\(output)")
        #expect(!output.contains("not being logged"), "\(output)")
        let (listed, _) = try await ConversationLogEndToEndTests.reception(["logs", "show", "last"], home: home)
        #expect(listed.contains("first message") && listed.contains("second message"), "\(listed)")
    }

    /// Reading the log (`-c`, `/history`) while another process keeps the database locked
    /// longer than the wait fails that read, says so, and stops nothing else: every message
    /// of the session is logged once the lock is let go.
    @Test func aReadThatFailsOnALockedDatabaseDoesNotStopTheLog() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try await Self.homeWithLog(url)
        // Lines not moved in yet: reading the log must move them in, which needs the lock.
        _ = try await PipedREPL.run(["--backend", "oai"], input: "a session not read yet\n", home: home)
        let (output, status) = try await Self.runWhileLocked(["-c", "--backend", "oai"], input: "first message\n/history\nsecond message\n", home: home)
        #expect(status == 0 && output.contains("This is message 2 of our conversation."), "\(output)")
        #expect(output.contains("cannot be read from the log") && output.contains("The log cannot be read just now"), "\(output)")
        #expect(output.contains("1. first message"), "/history lists the session's messages: \(output)")
        #expect(!output.contains("not being logged"), "\(output)")
        let (shown, _) = try await ConversationLogEndToEndTests.reception(["logs", "show", "last"], home: home)
        #expect(shown.contains("first message") && shown.contains("second message"), "\(shown)")
    }

    @Test func aDamagedLogIsSkippedAndLeftAsItIs() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        let path = ConversationLogEndToEndTests.logPath(home)
        try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
        let garbage = Data((0..<16_384).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: URL(fileURLWithPath: path))
        let (output, status) = try await PipedREPL.run(["--backend", "oai"], input: Self.messages, home: home)
        #expect(status == 0)
        Self.expectSentAndSaidOnce(output, reason: "is not a database SQLite can read")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage, "never replaced or deleted")
        // `logs status` says what to do next, not only what is wrong.
        let (status2, code) = try await ConversationLogEndToEndTests.reception(["logs", "status"], home: home)
        #expect(code == 1 && status2.contains("Move it aside (mv \(path) \(path).damaged)"), "\(status2)")
    }

    /// A file cut short past its header (a full disk, a copy interrupted) is damaged where a
    /// session's check of the header cannot see it: sessions go on writing their lines, and
    /// `logs` says what to do, where it said only "the database is damaged". Following its
    /// advice starts a new log that holds what the sessions said meanwhile.
    @Test func aLogCutShortSaysHowToGoOnAndNothingSaidMeanwhileIsLost() async throws {
        let home = Scratch.root.appendingPathComponent("reception-cut-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        for message in ["tell me about quokkas", "and wombats", "and numbats"] {
            _ = try await PipedREPL.run(["--local-step-ms", "0"], input: message + "\n", home: home)
            _ = try await ConversationLogEndToEndTests.reception(["logs"], home: home)  // moves the lines in
        }
        let path = ConversationLogEndToEndTests.logPath(home)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(truncate(path, off_t(size / 2)) == 0)
        let (said, status) = try await PipedREPL.run(["--local-step-ms", "0"], input: "and quolls\n", home: home)
        #expect(status == 0 && !said.contains("not being logged"), "the session sees only the header, which is whole: \(said)")

        let (listed, code) = try await ConversationLogEndToEndTests.reception(["logs"], home: home)
        #expect(code == 1 && listed.contains("the database is damaged"), "\(listed)")
        #expect(listed.contains("Move it aside (mv \(path) \(path).damaged)") && listed.contains("\(path)-pending"), "\(listed)")
        #expect(rename(path, path + ".damaged") == 0)
        let (fresh, freshCode) = try await ConversationLogEndToEndTests.reception(["logs"], home: home)
        #expect(freshCode == 0 && fresh.contains("and quolls") && !fresh.contains("wombats"), "\(fresh)")
    }

    @Test func aLogOfANewerSchemaIsSkippedAndLeftAsItIs() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try await Self.homeWithLog(url)
        let path = ConversationLogEndToEndTests.logPath(home)
        try await DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 42") }
        let (output, status) = try await PipedREPL.run(["--backend", "oai"], input: Self.messages, home: home)
        #expect(status == 0)
        Self.expectSentAndSaidOnce(output, reason: "written by a newer version of Reception (schema version 42")
        let version = try await DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == 42)
    }

    /// Read-only for the person running Reception (as root, the session runs as `nobody`:
    /// root writes to any file whatever its mode).
    @Test func aReadOnlyLogIsSkipped() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        let asRoot = getuid() == 0
        let run: ([String], String) async throws -> (String, Int32) = { arguments, input in
            await asRoot ? try Self.shell("exec setpriv --reuid=65534 --regid=65534 --clear-groups -- \"$@\"", arguments, input: input, home: home)
                   : try await PipedREPL.run(arguments, input: input, home: home)
        }
        if asRoot { try Self.own(home, by: 65534) }
        let (first, _) = try await run(["--backend", "oai"], "an earlier session\n")
        // Read once, so that the database holds the earlier session.
        let (listed, _) = try await run(["logs"], "")
        let path = ConversationLogEndToEndTests.logPath(home)
        #expect(FileManager.default.fileExists(atPath: path), "\(first)\n\(listed)")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: path + suffix)
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: folder)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder) }
        let (output, status) = try await run(["--backend", "oai"], Self.messages)
        #expect(status == 0)
        Self.expectSentAndSaidOnce(output, reason: "read-only")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o400, "the file is left read-only")
    }

    /// A full disk: the log's folder is a filesystem of 48 KB (a tmpfs mounted in a mount
    /// namespace of the session's own: `unshare`), filled before the session starts, so the
    /// kernel answers "no space left on device" to the first line, as a full disk does.
    @Test func aLogOnAFullDiskIsSkipped() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        let folder = URL(fileURLWithPath: ConversationLogEndToEndTests.logPath(home)).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // As root, a mount namespace; otherwise a user namespace too (where root's is mapped to ours).
        let namespace = getuid() == 0 ? "unshare -m" : "unshare -rm"
        let (output, status) = try await Self.shell("exec \(namespace) sh -c 'mount -t tmpfs -o size=48k tmpfs \"$0\" && { cat /dev/zero > \"$0/filler\" 2>/dev/null; exec \"$@\"; }' \"\(folder)\" \"$@\"",
                                              ["--backend", "oai"], input: Self.messages, home: home)
        #expect(status == 0, "\(output)")
        Self.expectSentAndSaidOnce(output, reason: "the disk is full")
    }

    /// `reception ARGUMENTS` run by `sh -c SCRIPT` (the script ends in `exec "$@"`).
    static func shell(_ script: String, _ arguments: [String], input: String, home: URL) async throws -> (String, Int32) {
        let binary = try Binary.reception()
        return try await PipedREPL.run(["-c", script, "sh", binary] + arguments, input: input, home: home, executable: "/bin/sh")
    }

    /// Hands `home` and everything in it to `uid`.
    static func own(_ home: URL, by uid: Int) throws {
        let chown = Process()
        chown.executableURL = URL(fileURLWithPath: "/bin/chown")
        chown.arguments = ["-R", "\(uid):\(uid)", home.path]
        try chown.run()
        chown.waitUntilExit()
    }
}
