import Foundation
import GRDB
import ReceptionCore
import ReceptionLog
import ReceptionStorage
import Testing

/// What a session appends (`enqueue`) reaches the database when the log is next read, exactly
/// once, with nothing secret, whatever else happens to the files meanwhile.
@Suite("The conversation log's pending lines")
struct PendingLogTests {
    /// The pending files of the log at `path`, by name.
    static func pendingFiles(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path + "-pending")) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// A session at `path` that sent "hello" and has shown "Okay. " of its answer so far.
    static func sessionMidAnswer(_ path: String) throws -> (ConversationLog, ConversationRecord) {
        let session = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "oai")
        try session.enqueue(conversation)
        try session.enqueue(exchange("e1", in: conversation, message: "hello", ending: .open))
        try session.enqueueShown(exchangeID: "e1", shown: "Okay. ", engineText: "Okay. ")
        return (session, conversation)
    }

    @Test func whatASessionEnqueuedIsReadFromTheDatabaseAndTheFileIsGone() throws {
        let path = temporaryLogPath()
        let session = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "oai", title: "which ferry?")
        try session.enqueue(conversation)
        try session.enqueue(exchange("e1", in: conversation, message: "which ferry?", ending: .open))
        try session.enqueueShown(exchangeID: "e1", shown: "Take the ", engineText: "Take the ")
        try session.enqueue(exchange("e1", in: conversation, message: "which ferry?", shown: "Take the night boat."))
        #expect(!FileManager.default.fileExists(atPath: path), "a session that only writes does not open the database")
        let files = Self.pendingFiles(path)
        #expect(files.count == 1 && files[0].hasPrefix("\(getpid())-") && files[0].hasSuffix(".jsonl"), "\(files)")
        var info = stat()
        #expect(stat(path + "-pending/" + files[0], &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(path + "-pending", &info) == 0 && info.st_mode & 0o777 == 0o700)

        let reader = ConversationLog(path: path)
        let read = try #require(try reader.exchanges(of: conversation.id).first)
        #expect(read.shown == "Take the night boat." && read.ending == .answered && read.message == "which ferry?")
        #expect(try reader.conversations().map(\.title) == ["which ferry?"])
        #expect(Self.pendingFiles(path).isEmpty, "moved in, and removed")
        #expect(try reader.statistics().exchanges == 1, "read twice, moved once")
    }

    /// A session still running: what it wrote so far is read, its open exchange stays open,
    /// and what it writes next is read at the next look.
    @Test func aRunningSessionIsReadAsFarAsItWroteAndItsNextLinesLater() throws {
        let path = temporaryLogPath()
        let (session, conversation) = try Self.sessionMidAnswer(path)
        let reader = ConversationLog(path: path)
        #expect(try reader.exchanges(of: conversation.id).first?.ending == .open, "its writer (this process) is alive")
        try session.enqueue(exchange("e1", in: conversation, message: "hello", shown: "Okay. Hello."))
        try session.enqueue(exchange("e2", in: conversation, message: "again"))
        let read = try reader.exchanges(of: conversation.id)
        #expect(read.map(\.message) == ["hello", "again"] && read[0].shown == "Okay. Hello." && read[0].ending == .answered)
    }

    /// A reader killed after its commit and before it removed the files it applied leaves
    /// them behind: the next reader removes them without applying their lines again (the
    /// pieces of an answer still streaming were shown twice in the log).
    @Test func filesLeftByAReaderKilledAfterItsCommitAreNotAppliedTwice() throws {
        let path = temporaryLogPath()
        let (session, conversation) = try Self.sessionMidAnswer(path)
        let name = try #require(Self.pendingFiles(path).first)
        let lines = try Data(contentsOf: URL(fileURLWithPath: path + "-pending/" + name))
        #expect(try ConversationLog(path: path).exchanges(of: conversation.id).first?.shown == "Okay. ")
        // The file as the killed reader would have left it, under the name it gave it.
        func folded() throws -> [String] {
            try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "SELECT name FROM folded_files") }
        }
        let applied = try folded()
        try #require(applied.count == 1 && applied[0].hasPrefix(String(name.dropLast(".jsonl".count))), "\(applied)")
        try lines.write(to: URL(fileURLWithPath: path + "-pending/" + applied[0]))
        #expect(try ConversationLog(path: path).exchanges(of: conversation.id).first?.shown == "Okay. ", "applied once")
        #expect(Self.pendingFiles(path).isEmpty)
        // The session goes on; once the file is gone, so is its name.
        try session.enqueueShown(exchangeID: "e1", shown: "Hello.", engineText: "Hello.")
        #expect(try ConversationLog(path: path).exchanges(of: conversation.id).first?.shown == "Okay. Hello.")
        #expect(try !folded().contains(applied[0]))
    }

    /// The pending file of a session that was killed mid-answer: the exchange is closed as
    /// interrupted with the pieces it had shown.
    @Test func aKilledSessionsOpenExchangeIsClosedWithWhatItShowed() throws {
        let path = temporaryLogPath()
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let conversation = ConversationRecord(backend: "oai")
        let session = ConversationLog(path: path)
        try session.enqueue(conversation)
        try session.enqueue(exchange("e1", in: conversation, message: "hello", ending: .open))
        try session.enqueueShown(exchangeID: "e1", shown: "Okay. You ", engineText: "Okay. You ")
        try session.enqueueShown(exchangeID: "e1", shown: "said: hello", engineText: "said: hello")
        // The file as the dead process would have left it: its name carries the writer.
        let name = try #require(Self.pendingFiles(path).first)
        try FileManager.default.moveItem(atPath: path + "-pending/" + name,
                                         toPath: path + "-pending/\(gone.processIdentifier)-0.jsonl")
        let read = try #require(try ConversationLog(path: path).exchanges(of: conversation.id).first)
        #expect(read.ending == .interrupted && read.shown == "Okay. You said: hello", "\(read)")
    }

    /// A line cut short (a crash or a full disk mid-write) is skipped; the lines around it are read.
    @Test func aLineCutShortIsSkippedAndTheRestRead() throws {
        let path = temporaryLogPath()
        let session = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "oai")
        try session.enqueue(conversation)
        let name = try #require(Self.pendingFiles(path).first)
        let handle = try #require(FileHandle(forWritingAtPath: path + "-pending/" + name))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"exchange":{"id":"cut","conv"#.utf8) + Data([0x0A]))
        try handle.close()
        try session.enqueue(exchange("e2", in: conversation, message: "after the cut"))
        let read = try ConversationLog(path: path).exchanges(of: conversation.id)
        #expect(read.map(\.message) == ["after the cut"])
    }

    /// A conversation removed while its session ran stays removed as it was: an exchange the
    /// session sent before the removal (an answer that ended after it) is not brought back, and
    /// does not stop the rest from being read.
    @Test func anExchangeSentBeforeItsConversationWasRemovedIsDroppedAndTheRestRead() throws {
        let path = temporaryLogPath()
        let session = ConversationLog(path: path)
        let removed = ConversationRecord(backend: "oai", title: "old")
        try session.enqueue(removed)
        let sentBefore = Date()
        let reader = ConversationLog(path: path)
        #expect(try reader.removeAll().conversations == 1)
        let kept = ConversationRecord(backend: "oai", title: "new")
        try session.enqueue(exchange(in: removed, message: "late answer", at: sentBefore))
        try session.enqueue(kept)
        try session.enqueue(exchange(in: kept, message: "still here"))
        #expect(try reader.conversations().map(\.title) == ["new"])
        #expect(try reader.statistics().exchanges == 1)
        #expect(Self.pendingFiles(path).isEmpty, "nothing left to retry")
    }

    /// What a session still carrying a removed conversation on says afterwards is kept: the
    /// conversation starts again with it, under the same id (so `-c` and `--conversation` find
    /// it), and its streamed pieces are folded in as usual.
    @Test func whatASessionSaysAfterItsConversationWasRemovedStartsItAgain() throws {
        let path = temporaryLogPath()
        let session = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "oai", title: "first")
        try session.enqueue(conversation)
        try session.enqueue(exchange("before", in: conversation, message: "said before the removal"))
        let reader = ConversationLog(path: path)
        let removal = try reader.removeAll()
        #expect(removal.conversations == 1 && removal.exchanges == 1)
        try session.enqueue(exchange("after", in: conversation, message: "said after the removal", ending: .open))
        try session.enqueueShown(exchangeID: "after", shown: "Still ", engineText: "Still ")
        try session.enqueue(exchange("after", in: conversation, message: "said after the removal", shown: "Still here."))
        let listed = try reader.conversations()
        #expect(listed.map(\.id) == [conversation.id])
        #expect(listed.map(\.title) == ["said after the removal"])
        #expect(try reader.exchanges(of: conversation.id).map(\.message) == ["said after the removal"])
        #expect(try reader.exchanges(of: conversation.id).map(\.shown) == ["Still here."])
        // Removed again, it stays removed until the session speaks again.
        #expect(try reader.remove(conversation: conversation.id).conversations == 1)
        #expect(try reader.conversations().isEmpty)
    }

    /// A plan waiting when its conversation was removed, and closed after something said since
    /// started the conversation again: the plan was sent before the removal, and its text stays
    /// removed (it came back, and was found by a search).
    @Test func aPlanSentBeforeTheRemovalStaysRemovedOnceTheConversationStartsAgain() throws {
        let path = temporaryLogPath()
        let session = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "local", title: "zebra")
        try session.enqueue(conversation)
        let plan = exchange("plan", in: conversation, message: "secret plan about the zebra migration", ending: .planWaiting,
                            at: Date().addingTimeInterval(-1))
        try session.enqueue(plan)
        let reader = ConversationLog(path: path)
        #expect(try reader.removeAll().conversations == 1)
        try session.enqueue(exchange("hello", in: conversation, message: "hello there"))
        var closed = plan
        closed.ending = .planNotRun
        closed.plan = .unanswered
        try session.enqueue(closed)
        #expect(try reader.exchanges(of: conversation.id).map(\.message) == ["hello there"])
        #expect(try reader.search("zebra").isEmpty)
        #expect(!contains(fileBytes(path), "zebra migration"))
        // Moved in apart, the same: the plan's closing comes after the restart was committed.
        try session.enqueue(closed)
        #expect(try reader.exchanges(of: conversation.id).map(\.message) == ["hello there"])
    }

    /// A queued message dropped from the offline queue reads so, not "queued" for ever; one
    /// already sent since is left as it ended.
    @Test func aQueuedMessageDroppedFromTheQueueSaysSo() throws {
        let path = temporaryLogPath()
        let session = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "fri")
        try session.enqueue(conversation)
        try session.enqueue(exchange("q1", in: conversation, message: "hi there", ending: .queued))
        try session.enqueue(exchange("q2", in: conversation, message: "sent later", ending: .answered))
        try ConversationLog(path: path).enqueueDropped(["q1", "q2"])
        let read = try ConversationLog(path: path).exchanges(of: conversation.id)
        #expect(read.map(\.status) == ["dropped from the offline queue, never sent", "complete"], "\(read.map(\.status))")
    }

    /// A message queued by one session and delivered by a later one: the delivered answer
    /// stays, whichever session's file is moved in first (the queuing session's file sorts
    /// after the delivering one's after a pid wrap, or across a digit: "100123" < "99876").
    @Test func aDeliveredAnswerIsNotOverwrittenByTheOlderQueuedLineOfAnotherSession() throws {
        let path = temporaryLogPath()
        let conversation = ConversationRecord(backend: "oai", title: "please remember the ferry")
        let queuing = ConversationLog(path: path)
        try queuing.enqueue(conversation)
        try queuing.enqueue(exchange("x", in: conversation, message: "please remember the ferry", ending: .open))
        try queuing.enqueue(exchange("x", in: conversation, message: "please remember the ferry", ending: .queued))
        let queuingFile = try #require(Self.pendingFiles(path).first)
        try FileManager.default.moveItem(atPath: path + "-pending/" + queuingFile, toPath: path + "-pending/99876-a.jsonl")

        let delivering = ConversationLog(path: path)
        try delivering.enqueue(exchange("x", in: conversation, message: "please remember the ferry", ending: .open))
        try delivering.enqueueShown(exchangeID: "x", shown: "Noted: ", engineText: "Noted: ")
        try delivering.enqueue(exchange("x", in: conversation, message: "please remember the ferry", shown: "Noted: the ferry."))
        let deliveringFile = try #require(Self.pendingFiles(path).first { $0 != "99876-a.jsonl" })
        try FileManager.default.moveItem(atPath: path + "-pending/" + deliveringFile, toPath: path + "-pending/100123-b.jsonl")

        let read = try ConversationLog(path: path).exchanges(of: conversation.id)
        #expect(read.map(\.ending) == [.answered] && read.map(\.shown) == ["Noted: the ferry."], "\(read)")
        #expect(try ConversationLog(path: path).search("ferry").map(\.exchange.shown) == ["Noted: the ferry."])
    }

    @Test func secretsNeverReachThePendingFile() throws {
        let path = temporaryLogPath()
        let secret = "sk-pending-7Hq2Lx9Pz4Vb"
        let session = ConversationLog(path: path, redacting: [secret])
        let conversation = ConversationRecord(backend: "oai", endpoint: "http://127.0.0.1:1/v1?key=\(secret)", title: "key \(secret)")
        try session.enqueue(conversation)
        var record = exchange(in: conversation, message: "my key is \(secret)", shown: "You said \(secret)", ending: .open)
        record.engineState = ["token": secret]
        record.goal = "hide \(secret)"
        try session.enqueue(record)
        try session.enqueueShown(exchangeID: record.id, shown: "echo \(secret)", engineText: "raw \(secret)")
        let name = try #require(Self.pendingFiles(path).first)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path + "-pending/" + name))
        #expect(!contains(bytes, secret))
        #expect(contains(bytes, "[secret]"))
    }

    /// While a reader holds the folder's lock longer than the wait, a write fails with why;
    /// once it is let go, writing goes on.
    @Test func aFolderLockHeldLongerThanTheWaitFailsTheWriteWithWhy() throws {
        let path = temporaryLogPath()
        let session = ConversationLog(path: path, busyTimeout: 0.2)
        let conversation = ConversationRecord(backend: "oai")
        try session.enqueue(conversation)
        let lock = open(path + "-pending/.lock", O_RDWR)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        #expect {
            try session.enqueue(exchange(in: conversation, message: "hello"))
        } throws: { error in
            "\(error)".hasSuffix("another process has kept it locked")
        }
        close(lock)
        try session.enqueue(exchange(in: conversation, message: "hello again"))
        #expect(try ConversationLog(path: path).exchanges(of: conversation.id).map(\.message) == ["hello again"])
    }

    /// A database another process keeps locked does not stop a session's log: the lines wait,
    /// and are moved in once it is let go.
    @Test func aLockedDatabaseDoesNotStopTheSessionsLog() throws {
        let path = temporaryLogPath()
        try ConversationLog(path: path).save(ConversationRecord(id: "earlier", backend: "x"))
        let holder = try DatabaseQueue(path: path)
        let conversation = ConversationRecord(backend: "oai")
        try holder.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            let session = ConversationLog(path: path, busyTimeout: 0.2)
            try session.enqueue(conversation)
            try session.enqueue(exchange(in: conversation, message: "while it was locked"))
            try db.execute(sql: "ROLLBACK")
        }
        #expect(try ConversationLog(path: path).exchanges(of: conversation.id).map(\.message) == ["while it was locked"])
    }

    @Test func aDamagedOrNewerDatabaseIsSaidAtTheFirstWrite() throws {
        let damaged = temporaryLogPath()
        try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: damaged).deletingLastPathComponent().path,
                                                withIntermediateDirectories: true)
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: damaged))
        #expect {
            try ConversationLog(path: damaged).enqueue(ConversationRecord(backend: "oai"))
        } throws: { "\($0)".contains("not a database SQLite can read") }

        let newer = temporaryLogPath()
        try ConversationLog(path: newer).save(ConversationRecord(backend: "x"))
        try DatabaseQueue(path: newer).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 42") }
        #expect {
            try ConversationLog(path: newer).enqueue(ConversationRecord(backend: "oai"))
        } throws: { "\($0)".contains("newer version of Reception (schema version 42") }
        #expect(Self.pendingFiles(newer).isEmpty, "nothing written that could not be moved in")
    }

    /// Two readers at once (two `reception logs`) move each line once. The second waits for
    /// the first's move; each is given two minutes for it, since a loaded machine (the test
    /// suite trains the classifier on every core beside this) once stretched 600 lines past
    /// the default 5 s, and how long a reader waits is not what this test is about.
    @Test func twoReadersAtOnceMoveEachLineOnce() async throws {
        let path = temporaryLogPath()
        let session = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "oai")
        try session.enqueue(conversation)
        for index in 0..<300 {
            try session.enqueue(exchange("e\(index)", in: conversation, message: "message \(index)", ending: .open))
            try session.enqueueShown(exchangeID: "e\(index)", shown: "piece \(index)", engineText: "piece")
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 { group.addTask { try ConversationLog(path: path, busyTimeout: 120).statistics().exchanges } }
            for try await count in group { #expect(count == 300) }
        }
        let pieces = try await DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM shown_pieces") }
        #expect(pieces == 300)
    }
}
