import Foundation
import ReceptionCore
import ReceptionOpenAI
import ReceptionReferenceServers
import ReceptionTesting
import Testing

/// Garbage where a stream of chunks was expected (a broken server, a proxy's error page, a
/// captive portal): the answer ends in a protocol error that says in plain words what came,
/// never a Swift decoding dump, and the next question on the same backend is answered.
@Suite("OpenAI-compatible garbage bytes")
struct GarbageBytesTests {
    /// What the failure says, whether it came as a failure event or as the stream's error.
    static func outcome(of stream: BackendEventStream) async -> (events: [BackendEvent], said: String, error: (any Error)?) {
        var events: [BackendEvent] = []
        do {
            for try await event in stream { events.append(event) }
        } catch {
            return (events, String(describing: error), error)
        }
        return (events, failure(in: events)?.message ?? "", nil)
    }

    @Test(arguments: [("garbagejson", "a streamed chunk is not JSON: <html>"),
                      ("garbageutf8", "not valid UTF-8"),
                      ("garbagehtml", "answered text/html; charset=utf-8, not text/event-stream")])
    func garbageIsAProtocolErrorInWordsAndTheNextQuestionIsAnswered(word: String, words: String) async throws {
        try await withOpenAIServer { _, backend in
            let (_, said, error) = await Self.outcome(of: backend.submit(ReceptionRequest(text: "\(word) please", trustLevel: 1)))
            guard case .protocolViolation? = error as? BackendError else {
                Issue.record("a protocol error, not \(error.map { "\($0)" } ?? "none: \(said)")")
                return
            }
            #expect(said.hasPrefix("The backend broke its contract: "), "\(said)")
            #expect(said.contains(words), "\(said)")
            for dump in ["DecodingError", "dataCorrupted", "codingPath", "Swift.", "Error Domain"] {
                #expect(!said.contains(dump), "no Swift error dump: \(said)")
            }
            let next = try await collect(backend.submit(ReceptionRequest(text: "hello again", trustLevel: 1)))
            #expect(result(in: next)?.text.hasPrefix("Okay. You said: hello again.") == true, "\(next)")
        }
    }
}
