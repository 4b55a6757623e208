import Foundation
import GRDB
import ReceptionCore
import ReceptionLog
import ReceptionStorage
import ReceptionTestSupport
import Testing

/// A folder of its own for each test, removed afterwards.
func temporaryLogPath(_ name: String = #function) -> String {
    let folder = Scratch.root.appendingPathComponent("reception-log-\(UUID().uuidString.prefix(8))")
    return folder.appendingPathComponent("reception/conversations.sqlite").path
}

/// Every byte of the log's files (database, WAL, shared memory), to look for text in.
func fileBytes(_ path: String) -> Data {
    ["", "-wal", "-shm", "-journal"].reduce(Data()) { $0 + ((try? Data(contentsOf: URL(fileURLWithPath: path + $1))) ?? Data()) }
}

func contains(_ data: Data, _ text: String) -> Bool { data.range(of: Data(text.utf8)) != nil }

func exchange(_ id: String = UUID().uuidString.lowercased(), in conversation: ConversationRecord, message: String, shown: String = "",
              ending: ExchangeRecord.Ending = .answered, at date: Date = Date()) -> ExchangeRecord {
    ExchangeRecord(id: id, conversationID: conversation.id, sentAt: date, backend: conversation.backend, endpoint: conversation.endpoint,
                   soul: conversation.soul, message: message, intent: .research, intentConfidence: 0.8, urgency: .planning,
                   urgencyConfidence: 0.7, shown: shown, engineText: shown.isEmpty ? nil : "raw " + shown, ending: ending,
                   engineOutcome: ending == .answered ? .complete : nil)
}

@Suite("The conversation log")
struct ConversationLogTests {
    @Test func anExchangeReadsBackAsWrittenInA0600FileInA0700Folder() throws {
        let path = temporaryLogPath()
        let log = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "oai", endpoint: "http://127.0.0.1:9480/v1/", soul: "butler", model: "smollm2",
                                              title: "should I take the train?")
        try log.save(conversation)
        var record = exchange(in: conversation, message: "should I take the train?", shown: "Take the train.",
                              at: Date(timeIntervalSince1970: 1_765_000_000.25))
        record.intentByHand = true
        record.taskID = "task-1"
        record.engineState = ["friday.session_id": "s-1"]
        record.firstCharacterMilliseconds = 42
        record.totalMilliseconds = 1200
        record.inputTokens = 30
        record.outputTokens = 12
        try log.save(record)
        let read = try #require(try log.exchanges(of: conversation.id).first)
        #expect(read == record)
        let listed = try #require(try log.conversation(String(conversation.id.prefix(6))))
        #expect(listed.exchangeCount == 1 && listed.endpoint == "http://127.0.0.1:9480/v1" && listed.model == "smollm2")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(URL(fileURLWithPath: path).deletingLastPathComponent().path, &info) == 0 && info.st_mode & 0o777 == 0o700)
        let mode = try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }

    /// A process killed mid-answer leaves its pieces; the next process that opens the log
    /// makes them the answer and marks the exchange interrupted.
    @Test func anExchangeWhoseWriterDiedIsClosedWithWhatItHadShown() throws {
        let path = temporaryLogPath()
        let conversation = ConversationRecord(backend: "oai")
        do {
            let log = ConversationLog(path: path)
            try log.save(conversation)
            try log.save(exchange("e1", in: conversation, message: "hello", ending: .open))
            try log.appendShown(exchangeID: "e1", shown: "Okay. You ", engineText: "Okay. You ")
            try log.appendShown(exchangeID: "e1", shown: "said: hello", engineText: "said: hello")
        }
        // The writer is a process that has ended.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        try DatabaseQueue(path: path).write { try $0.execute(sql: "UPDATE exchanges SET writer_pid = ?", arguments: [gone.processIdentifier]) }
        let reopened = ConversationLog(path: path)
        let read = try #require(try reopened.exchanges(of: conversation.id).first)
        #expect(read.ending == .interrupted)
        #expect(read.shown == "Okay. You said: hello" && read.engineText == "Okay. You said: hello")
        #expect(read.turn?.summary == "Okay. You said: hello", "what was shown goes back to the engine when the conversation goes on")
        let pieces = try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM shown_pieces") }
        #expect(pieces == 0)
    }

    /// Two sessions that carried one conversation on are moved into the database file by
    /// file: the conversation is still read in the order its messages were sent.
    @Test func aConversationIsReadInTheOrderItsMessagesWereSent() throws {
        let log = ConversationLog(path: temporaryLogPath())
        let conversation = ConversationRecord(backend: "local")
        try log.save(conversation)
        let start = Date()
        try log.save(exchange(in: conversation, message: "first", at: start))
        try log.save(exchange(in: conversation, message: "third", at: start.addingTimeInterval(20)))
        try log.save(exchange(in: conversation, message: "second", at: start.addingTimeInterval(10)))
        #expect(try log.exchanges(of: conversation.id).map(\.message) == ["first", "second", "third"])
        #expect(try log.exchanges(of: conversation.id, last: 2).map(\.message) == ["second", "third"])
    }

    /// A second session on one conversation is told; another conversation is free.
    @Test func aHoldSaysWhetherAnotherSessionHasTheConversation() throws {
        let log = ConversationLog(path: temporaryLogPath())
        var first: ConversationLog.Hold? = try #require(log.hold("c-1"))
        #expect(first?.isHeldElsewhere == false)
        let second = try #require(log.hold("c-1"))
        #expect(second.isHeldElsewhere)
        #expect(log.hold("c-2")?.isHeldElsewhere == false, "another conversation is free")
        first = nil
        _ = first
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: log.holdFolder)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o700)
        #expect(log.hold("../escape") == nil)
    }

    /// A child forked while the session held the conversation keeps a copy of the hold's
    /// descriptor until its exec; the session's end still frees the conversation.
    @Test func aHoldEndsEvenWhileACopyOfItsDescriptorLives() throws {
        let log = ConversationLog(path: temporaryLogPath())
        var first: ConversationLog.Hold? = try #require(log.hold("c-1"))
        let copy = try #require(copyOfOpenDescriptor(on: log.holdFolder + "/c-1"))
        defer { close(copy) }
        // A second session as well, so that the first's end cannot simply remove the file.
        var second: ConversationLog.Hold? = try #require(log.hold("c-1"))
        first = nil
        second = nil
        #expect(first == nil && second == nil)
        #expect(log.hold("c-1")?.isHeldElsewhere == false)
    }

    @Test func searchFindsEveryWordNewestFirstAndMarksThem() throws {
        let log = ConversationLog(path: temporaryLogPath())
        let first = ConversationRecord(backend: "oai", soul: "default")
        let second = ConversationRecord(backend: "local", soul: "butler")
        try log.save(first)
        try log.save(second)
        try log.save(exchange(in: first, message: "ferry times?", shown: "The ferry leaves at nine.", at: Date(timeIntervalSinceNow: -60)))
        try log.save(exchange(in: second, message: "and the Ferry back?", shown: "It returns at noon.", at: Date()))
        try log.save(exchange(in: second, message: "unrelated", shown: "nothing here"))
        let hits = try log.search("ferry")
        #expect(hits.map(\.exchange.message) == ["and the Ferry back?", "ferry times?"])
        #expect(hits[1].shownSnippet.contains("The \(LogSearch.open)ferry\(LogSearch.close) leaves"), "\(hits[1].shownSnippet)")
        #expect(try log.search("ferry nine").map(\.exchange.message) == ["ferry times?"])
        #expect(try log.search("ferry", matching: LogFilter(soul: "BUTLER")).count == 1)
        #expect(try log.search("ferry", matching: LogFilter(backend: "oai")).map(\.exchange.message) == ["ferry times?"])
        #expect(try log.search("\"leaves at\"").count == 1)
        #expect(try log.search("fer*").count == 2)
        #expect(try log.search("ferry", matching: LogFilter(intent: .decision)).isEmpty)
    }

    /// What people type after -q is words, never FTS5 syntax: quotes, operators and
    /// parentheses neither fail nor change the search.
    @Test(arguments: ["\"unbalanced", "ferry OR", "NEAR(ferry", "ferry AND NOT", "col:ferry", "^ferry", "ferry\"s", "(ferry)", "ferry -", "fer*ry"])
    func anythingTypedIsSearchedForAsWords(_ typed: String) throws {
        let log = ConversationLog(path: temporaryLogPath())
        let conversation = ConversationRecord(backend: "oai")
        try log.save(conversation)
        try log.save(exchange(in: conversation, message: "ferry", shown: "ferry ferry"))
        _ = try log.search(typed)
        #expect(LogSearch.ftsQuery("?!* ---") == nil)
    }

    /// `rm --all` leaves no trace of the text in the database, its free pages, its search
    /// index (the FTS5 shadow tables) or its WAL.
    @Test func removingEverythingLeavesNoTextInAnyFile() throws {
        let path = temporaryLogPath()
        let log = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "oai")
        try log.save(conversation)
        for index in 0..<50 {
            try log.save(exchange(in: conversation, message: "quokkamessage \(index)", shown: "wombatanswer \(index) " + String(repeating: "padding ", count: 200)))
        }
        #expect(contains(fileBytes(path), "wombatanswer"))
        let removal = try log.removeAll()
        #expect(removal.conversations == 1 && removal.exchanges == 50 && removal.walEmptied)
        let bytes = fileBytes(path)
        #expect(!contains(bytes, "wombatanswer") && !contains(bytes, "quokkamessage"))
        #expect(try log.search("wombatanswer").isEmpty)
        #expect(try log.statistics().exchanges == 0)
    }

    @Test func removingOneConversationOrTheOlderOnesKeepsTheRest() throws {
        let path = temporaryLogPath()
        let log = ConversationLog(path: path)
        let old = ConversationRecord(startedAt: Date(timeIntervalSinceNow: -86_400 * 10), backend: "oai")
        let recent = ConversationRecord(backend: "oai")
        let other = ConversationRecord(backend: "local")
        for conversation in [old, recent, other] { try log.save(conversation) }
        try log.save(exchange(in: old, message: "oldtopic", shown: "oldanswer", at: old.startedAt))
        try log.save(exchange(in: recent, message: "newtopic", shown: "newanswer"))
        try log.save(exchange(in: other, message: "othertopic", shown: "otheranswer"))
        #expect(try log.remove(before: Date(timeIntervalSinceNow: -86_400)).conversations == 1)
        #expect(!contains(fileBytes(path), "oldanswer"))
        #expect(try log.remove(conversation: String(other.id.prefix(8))).exchanges == 1)
        #expect(try log.conversations().map(\.id) == [recent.id])
        #expect(try log.search("newtopic").count == 1)
    }

    @Test func secretsAreReplacedInEverythingWritten() throws {
        let path = temporaryLogPath()
        let secret = "sk-live-4f9a8b7c6d5e"
        let log = ConversationLog(path: path, redacting: [secret, "abc"])
        let conversation = ConversationRecord(backend: "oai", endpoint: "https://user:\(secret)@api.example.com/v1?key=\(secret)")
        try log.save(conversation)
        var record = exchange("e1", in: conversation, message: "my key is \(secret)", shown: "You said \(secret).", ending: .open)
        record.detail = "401 for \(secret)"
        try log.save(record)
        try log.appendShown(exchangeID: "e1", shown: "piece \(secret)", engineText: secret)
        record.ending = .failed
        try log.save(record)
        #expect(!contains(fileBytes(path), secret))
        let read = try #require(try log.exchanges(of: conversation.id).first)
        #expect(read.message == "my key is [secret]" && read.shown == "You said [secret].")
        #expect(read.endpoint == "https://api.example.com/v1", "\(read.endpoint ?? "")")
        #expect(try log.search("abc").isEmpty == true, "short values are no secret")
    }

    @Test func aNewerSchemaIsLeftAloneAndSaidSo() throws {
        let path = temporaryLogPath()
        try ConversationLog(path: path).save(ConversationRecord(backend: "oai"))
        try DatabaseQueue(path: path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 99") }
        let log = ConversationLog(path: path)
        #expect {
            try log.save(ConversationRecord(backend: "oai"))
        } throws: { error in
            PrivateDatabase.reason(error) == "it was written by a newer version of Reception (schema version 99; this one knows up to \(ConversationLog.schemaVersion))"
        }
        let version = try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == 99)
    }

    @Test func aDamagedFileIsNeitherReadNorReplaced() throws {
        let path = temporaryLogPath()
        try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path, withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: path))
        let log = ConversationLog(path: path)
        #expect {
            try log.save(ConversationRecord(backend: "oai"))
        } throws: { error in
            PrivateDatabase.reason(error).contains("not a database")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test func aLockHeldLongerThanTheWaitFailsTheWriteNotTheReader() throws {
        let path = temporaryLogPath()
        let conversation = ConversationRecord(backend: "oai")
        try ConversationLog(path: path).save(conversation)
        let holder = try DatabaseQueue(path: path)
        try holder.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            let log = ConversationLog(path: path, busyTimeout: 0.2)
            #expect {
                try log.save(exchange(in: conversation, message: "hello"))
            } throws: { error in
                PrivateDatabase.reason(error) == "another process has kept it locked"
            }
            #expect(try log.conversations().count == 1, "reading still works in WAL mode")
            try db.execute(sql: "ROLLBACK")
        }
    }

    /// Two writers at once (two REPLs): every exchange of both is there.
    @Test func twoWritersAtOnceBothComplete() async throws {
        let path = temporaryLogPath()
        try ConversationLog(path: path).save(ConversationRecord(id: "warm", backend: "x"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    let log = ConversationLog(path: path)
                    let conversation = ConversationRecord(backend: "writer\(writer)")
                    try log.save(conversation)
                    for index in 0..<100 {
                        let id = "w\(writer)-\(index)"
                        try log.save(exchange(id, in: conversation, message: "message \(index)", ending: .open))
                        try log.appendShown(exchangeID: id, shown: "piece", engineText: "piece")
                        try log.save(exchange(id, in: conversation, message: "message \(index)", shown: "answer \(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let log = ConversationLog(path: path)
        #expect(try log.statistics().exchanges == 200)
        let integrity = try await DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
    }

    @Test func theCorpusLineCarriesOnlyLabelsSetByHand() {
        let conversation = ConversationRecord(backend: "oai")
        var labelled = exchange("a", in: conversation, message: "should I fly \"or\" drive?\u{1B}[2J")
        labelled.intent = .decision
        labelled.intentByHand = true
        labelled.urgency = .planning
        labelled.urgencyByHand = true
        labelled.goal = "a trip"
        #expect(ConversationExport.corpusLine(labelled)
                == #"{"id": "a", "text": "should I fly \"or\" drive?\u001b[2J", "intent": "decision", "urgency": "planning", "goal": "a trip"}"#)
        #expect(ConversationExport.isLabelled(labelled))
        let classified = exchange("b", in: conversation, message: "hello")
        #expect(ConversationExport.corpusLine(classified) == #"{"id": "b", "text": "hello"}"#)
        #expect(!ConversationExport.isLabelled(classified))
    }
    /// A message cannot pass for the export's own structure, and typed lines stay lines.
    @Test func anExportedMessageCannotForgeTheDocumentsHeadings() {
        var conversation = ConversationRecord(backend: "oai")
        conversation.title = "forged"
        let forged = exchange("a", in: conversation, message: "## Reception · complete · forged\nsecond line\nReception · underlined\n-",
                              shown: "Here it is.\n# Not a heading\n```\n# a shell comment\n```\n1. Tell me more")
        let markdown = ConversationExport.markdown(conversation, [forged])
        let headings = markdown.split(separator: "\n").filter { $0.hasPrefix("## ") || $0.hasPrefix("# ") && !$0.contains("comment") }
        #expect(headings.count == 3, "the title, You and Reception only (and a comment in code): \(headings)")
        #expect(markdown.contains("\\## Reception · complete · forged  \nsecond line  \nReception · underlined  \n\\-"), "\(markdown)")
        #expect(markdown.contains("Here it is.  \n\\# Not a heading") && markdown.contains("```\n# a shell comment\n```"), "\(markdown)")
        // The title (the first message) is escaped as the message is.
        conversation.title = "## Reception · complete"
        #expect(ConversationExport.markdown(conversation, [forged]).hasPrefix("# \\## Reception · complete\n"), "\(ConversationExport.markdown(conversation, [forged]).prefix(60))")
    }

    /// A value another program wrote into the log (a date as text, a count as a word, an
    /// infinite duration) is an error that says where it is, and holds no text of the
    /// conversation: GRDB stopped the process, and printed the whole row as it did.
    @Test(arguments: [("exchanges", "sent_at", "'abc'"), ("exchanges", "intent_by_hand", "'maybe'"), ("exchanges", "total_ms", "1e999"),
                      ("exchanges", "shown", "x'00ff'"), ("conversations", "last_at", "'yesterday'"), ("conversations", "backend", "x'00ff'")])
    func aValueOfTheWrongKindIsALocatedErrorWithoutText(_ table: String, _ column: String, _ value: String) throws {
        let path = temporaryLogPath()
        let log = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "oai", title: "the zebra migration")
        try log.save(conversation)
        try log.save(exchange(in: conversation, message: "the zebra migration", shown: "Zebras cross the river."))
        try DatabaseQueue(path: path).write { try $0.execute(sql: "UPDATE \(table) SET \(column) = \(value)") }
        let reader = ConversationLog(path: path)
        let reads: [() throws -> Void] = [
            { _ = try reader.conversation(nil) }, { _ = try reader.conversations() },
            { _ = try reader.exchanges(of: conversation.id) }, { _ = try reader.search("zebra") },
            { try reader.forEachExchange { _ in } },
        ]
        var failed = 0
        for read in reads {
            do { try read() } catch let error as ConversationLogError {
                failed += 1
                #expect(error.description.contains("table \(table)") && error.description.contains("column \(column)"), "\(error)")
                #expect(error.description.contains(path), "\(error)")
                #expect(!error.description.contains("zebra") && !error.description.contains("Zebra"), "\(error)")
            }
        }
        #expect(failed == (table == "exchanges" ? 3 : 2), "every read of that row says so")
    }

    /// Durations out of any range (a pending line can carry any number) are shown, never a crash.
    @Test func aDurationOutOfRangeIsShownWithoutACrash() {
        var record = exchange(in: ConversationRecord(backend: "oai"), message: "hello")
        record.firstCharacterMilliseconds = -1e19
        record.totalMilliseconds = .infinity
        #expect(ConversationExport.details(record) == ["complete", "first character after ?", "? in all"])
        record.firstCharacterMilliseconds = 42.4
        record.totalMilliseconds = 1500
        #expect(ConversationExport.details(record) == ["complete", "first character after 42 ms", "1.5 s in all"])
    }

    /// The log's own files, however the path is spelt, are never an export's output.
    @Test func theLogsOwnFilesAreKnownHoweverTheirPathIsSpelt() throws {
        let path = temporaryLogPath()
        let log = ConversationLog(path: path)
        let conversation = ConversationRecord(backend: "oai")
        try log.save(conversation)
        let session = ConversationLog(path: path)
        try session.enqueue(exchange(in: conversation, message: "pending"))
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        let pending = try #require(try FileManager.default.contentsOfDirectory(atPath: path + "-pending").first { $0.hasSuffix(".jsonl") })
        let linkedFolder = folder.deletingLastPathComponent().appendingPathComponent("linked")
        try FileManager.default.createSymbolicLink(at: linkedFolder, withDestinationURL: folder)
        let hardLink = folder.deletingLastPathComponent().appendingPathComponent("copy.sqlite").path
        #expect(link(path, hardLink) == 0)
        for own in [path, path + "-wal", path + "-shm", path + "-journal", path + "-pending/" + pending,
                    folder.path + "/../reception/conversations.sqlite", linkedFolder.path + "/conversations.sqlite", hardLink] {
            #expect(log.isOwnFile(own), "\(own)")
        }
        for other in [folder.path + "/export.md", path + ".md", folder.deletingLastPathComponent().path + "/conversations.sqlite"] {
            #expect(!log.isOwnFile(other), "\(other)")
        }
    }
}
