import Foundation
import GRDB
import ReceptionCore
@testable import ReceptionLog
import ReceptionStorage
import Testing

/// A log the release before `folded_files` wrote (schema version 1) is upgraded in place when
/// it is next read, and what it held and what sessions left pending are read as before.
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
        #expect(version == ConversationLog.schemaVersion && version == 2)
    }
}
