import Foundation
import ReceptionTestSupport
import Testing

/// As a person at a terminal sees it: a history path that is not a regular file is said once,
/// and the session works without a history file.
@Suite("History file on a pseudo-terminal", .serialized)
struct HistoryFileTerminalTests {
    static let prompt = "› "

    /// A FIFO at the history path blocked the REPL before its banner; now the prompt comes
    /// (within a bounded wait: the session is killed at the end whatever happens).
    @Test func aFIFOAtTheHistoryPathIsSaidAndThePromptStillComes() async throws {
        let home = Scratch.root.appendingPathComponent("reception-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("state/reception"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let fifo = home.appendingPathComponent("state/reception/history").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let terminal = try TerminalSession(arguments: [], home: home)
        let at = try await terminal.waitFor(Self.prompt)
        #expect(terminal.screen.contains("warning: the history file \(fifo) is a named pipe (FIFO), not a regular file; this session keeps no input history on disk."),
                "\(terminal.screen)")
        terminal.enter("/trust")
        try await terminal.waitFor("Trust level", after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }

    /// Through a link, typed lines were appended to the file it pointed to (which stayed 0644).
    @Test func aLinkAtTheHistoryPathIsNotFollowed() async throws {
        let home = Scratch.root.appendingPathComponent("reception-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("state/reception"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let shared = home.appendingPathComponent("shared.txt").path
        try "shared\n".write(toFile: shared, atomically: false, encoding: .utf8)
        let link = home.appendingPathComponent("state/reception/history").path
        #expect(symlink(shared, link) == 0)
        let terminal = try TerminalSession(arguments: [], home: home)
        let at = try await terminal.waitFor(Self.prompt)
        #expect(terminal.screen.contains("warning: the history file \(link) is a symbolic link, not a regular file"), "\(terminal.screen)")
        terminal.enter("/goal my private line")
        try await terminal.waitFor("Goal set", after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
        #expect(try String(contentsOfFile: shared, encoding: .utf8) == "shared\n", "nothing typed reached the link's target")
    }
}
