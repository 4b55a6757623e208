import Foundation
import ReceptionTestSupport
import Testing

/// The soul's rewrite stage in the REPL (`--rewrite PROFILE`), against `reception serve openai`
/// over 127.0.0.1, which both answers and rewrites.
@Suite("Rewrite stage through the REPL", .serialized)
struct RewriteTerminalTests {
    @Test func sentencesAreRewrittenOneFallsBackAndSoulWhyAndRawSayWhat() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let (output, status) = try await PipedREPL.run(["--backend", "oai", "--soul", "plain", "--rewrite", "oai"],
                                                 input: "the 9:15 train changenumber\n/soul why\n/raw\n",
                                                 home: try OpenAITerminalTests.home(for: url))
        #expect(status == 0, "\(output)")
        // The model's answer is "Okay. You said: the 9:15 train changenumber. We utilize the same
        // words. …", streamed; the reference model rewrites each sentence, and changes the
        // number of the one that says "changenumber".
        #expect(output.contains("Very well. "), "\(output)")
        #expect(output.contains("We employ the same words."), "\(output)")
        #expect(output.contains("You said: the 9:15 train changenumber."), "the sentence whose number changed shows as the engine said it: \(output)")
        #expect(!output.contains("0:15 train"), "\(output)")
        // /soul why names the fact.
        #expect(output.contains("rewritten by oai: 4 of 5 parts rewritten"), "\(output)")
        #expect(output.contains("it lost or changed the number 9:15; it added the number 0:15"), "\(output)")
        // /raw shows the engine's own text.
        #expect(output.contains("Okay. You said: the 9:15 train changenumber. We utilize the same words."), "\(output)")
    }

    @Test func withoutARewriteProfileSoulWhySaysTheStageIsOff() async throws {
        let (output, status) = try await PipedREPL.run(["--soul", "plain", "--local-step-ms", "0"], input: "/soul why\n/raw\n")
        #expect(status == 0, "\(output)")
        #expect(output.contains("The rewrite stage is off"), "\(output)")
        #expect(output.contains("No answer yet."), "\(output)")
    }
}
