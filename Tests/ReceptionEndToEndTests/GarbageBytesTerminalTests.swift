import Foundation
import ReceptionTestSupport
import Testing

/// Garbage from the model server, through the `reception` binary with its input and output on
/// pipes: each is an error in words on standard error (no Swift dump, no terminal control),
/// and the next message of the same session is answered.
@Suite("Garbage bytes through the REPL", .serialized)
struct GarbageBytesTerminalTests {
    @Test func garbageFromTheModelServerIsSaidInWordsAndTheNextMessageIsAnswered() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        let input = "garbagejson please\ngarbageutf8 please\ngarbagehtml please\nhello after the garbage\n"
        let (output, errors, status) = try await PipedREPL.run(["--backend", "oai"], input: input, home: home, separateErrors: true)
        #expect(status == 1, "a script whose messages failed ends with status 1: \(output)\n\(errors)")
        #expect(errors.contains("a streamed chunk is not JSON: <html><body>502 Bad Gateway"), "\(errors)")
        #expect(errors.contains("not valid UTF-8"), "\(errors)")
        #expect(errors.contains("answered text/html; charset=utf-8, not text/event-stream"), "\(errors)")
        for dump in ["DecodingError", "dataCorrupted", "codingPath", "Swift.", "Error Domain"] {
            #expect(!errors.contains(dump) && !output.contains(dump), "no Swift error dump: \(errors)")
        }
        #expect(EscapeSequenceTerminalTests.controls(in: output + errors).isEmpty, "\(errors.debugDescription)")
        #expect(output.contains("You said: hello after the garbage."), "the next message is answered: \(output)")
    }
}
