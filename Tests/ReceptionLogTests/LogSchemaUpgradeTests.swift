import Foundation
import GRDB
import ReceptionCore
@testable import ReceptionLog
import ReceptionStorage
import Testing

/// A log an earlier release wrote (schema version 1, before `folded_files`; 2, before
/// `removed_conversations`) is upgraded in place when it is next read, and what it held and
/// what sessions left pending are read as before.
@Suite("A log of the schema before")
struct LogSchemaUpgradeTests {
    @Test func aVersionOneLogIsUpgradedAndItsPendingLinesMovedIn() throws {
        let path = temporaryLogPath()
        try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                                withIntermediateDirectories: true)
        let older = try PrivateDatabase.open(path: path, migrations: Array(ConversationLog.migrations.prefix(1)))
        try older.close()
        let conversation = ConversationRecord(backend: "oai")
        let session = ConversationLog(path: path)
        try session.enqueue(conversation)
        try session.enqueue(exchange("e1", in: conversation, message: "still there?", shown: "Yes."))
        let read = try ConversationLog(path: path).exchanges(of: conversation.id)
        #expect(read.map(\.shown) == ["Yes."])
        let version = try DatabaseQueue(path: path).read { try Int.fetchOne($0, sql: "PRAGMA user_version") }
        #expect(version == ConversationLog.schemaVersion && version == 3)
    }

    @Test func aVersionTwoLogIsUpgradedAndARemovedConversationCanStartAgain() throws {
        let path = temporaryLogPath()
        try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                                withIntermediateDirectories: true)
        let older = try PrivateDatabase.open(path: path, migrations: Array(ConversationLog.migrations.prefix(2)))
        let conversation = ConversationRecord(backend: "oai")
        try older.write { db in
            try db.execute(sql: "INSERT INTO conversations (id, started_at, last_at, backend) VALUES (?, 1, 1, 'oai')",
                           arguments: [conversation.id])
            try db.execute(sql: """
                INSERT INTO exchanges (id, conversation_id, sent_at, backend, message, ending)
                VALUES ('e1', ?, 1, 'oai', 'said before', 'answered')
                """, arguments: [conversation.id])
        }
        try older.close()
        let session = ConversationLog(path: path)
        #expect(try session.removeAll().conversations == 1)
        try session.enqueue(exchange("e2", in: conversation, message: "said afterwards"))
        #expect(try ConversationLog(path: path).exchanges(of: conversation.id).map(\.message) == ["said afterwards"])
    }

    /// Text logged before it was logged as shown (escape sequences in it) is cleaned when the
    /// log is upgraded: its words are found, what a sequence hid is not.
    @Test func textLoggedWithEscapeSequencesIsCleanedOnUpgrade() throws {
        let path = temporaryLogPath()
        try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                                withIntermediateDirectories: true)
        let older = try PrivateDatabase.open(path: path, migrations: Array(ConversationLog.migrations.prefix(2)))
        try older.write { db in
            try db.execute(sql: "INSERT INTO conversations (id, started_at, last_at, backend, title) VALUES ('c1', 1, 1, 'oai', ?)",
                           arguments: ["\u{1B}[31mred\u{1B}[0m text"])
            try db.execute(sql: """
                INSERT INTO exchanges (id, conversation_id, sent_at, backend, message, shown, ending)
                VALUES ('e1', 'c1', 1, 'oai', ?, 'plain answer', 'answered')
                """, arguments: ["\u{1B}[31mred\u{1B}[0m text \u{1B}]0;PWNED\u{07}"])
        }
        try older.close()
        let log = ConversationLog(path: path)
        #expect(try log.search("red").map(\.exchange.message) == ["red text "])
        #expect(try log.search("pwned").isEmpty)
        #expect(try log.conversations().map(\.title) == ["red text"])
    }
}
