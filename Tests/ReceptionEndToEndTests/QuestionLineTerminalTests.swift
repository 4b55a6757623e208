import Foundation
import ReceptionTestSupport
import Testing

/// A line typed at a question that is not an answer to it is taken as no, and not lost: a
/// slash command runs as soon as the question is done; anything else is not sent but kept in
/// the line history, where the up arrow brings it back.
@Suite("Lines that do not answer a question", .serialized)
struct QuestionLineTerminalTests {
    static let prompt = "› "

    @Test func aSlashCommandTypedAtATrustQuestionRunsAfterIt() async throws {
        let helper = LoopSymphonyTerminalTests()
        let (server, url) = try await helper.startServer()
        defer { server.stop() }
        let terminal = try TerminalSession(arguments: ["--backend", "ls-e2e", "--trust", "1"], home: try helper.home(for: url))
        var at = try await terminal.waitFor(Self.prompt)
        for n in 1...5 {
            terminal.enter("hello number \(n)")
            at = try await terminal.waitFor("Reference note answer to: hello number \(n)", after: at)
        }
        at = try await terminal.waitFor("[y/N] ", after: at)
        terminal.enter("/trust-metrics")
        at = try await terminal.waitFor("“/trust-metrics” is not an answer, so the question is taken as no", after: at)
        at = try await terminal.waitFor("/trust-metrics runs now.", after: at)
        // The command ran: the server's metrics, level still 0 (nothing was accepted).
        at = try await terminal.waitFor("0 (supervised)", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }

    @Test func aMessageTypedAtAPermissionQuestionIsKeptNotSent() async throws {
        let (server, url) = try await FridayTerminalTests().startServer()
        defer { server.stop() }
        let terminal = try TerminalSession(arguments: ["--backend", "fri"], home: try FridayTerminalTests.home(withProfileFor: url))
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("write a note about otters")
        at = try await terminal.waitFor("Allow? [y] yes, once", after: at)
        terminal.enter("where will it be saved")
        at = try await terminal.waitFor("“where will it be saved” is not an answer, so the question is taken as no. It was not sent; the up arrow brings it back.",
                                        after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        #expect(!terminal.screen[at...].contains("You asked: \"where will it be saved\""), "not sent")
        terminal.type("\u{1B}[A")  // the up arrow
        at = try await terminal.waitFor("where will it be saved", after: at)
        terminal.type("\u{15}")  // Ctrl-U
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }
}
