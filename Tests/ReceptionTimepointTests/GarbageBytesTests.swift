import Foundation
import ReceptionCore
import ReceptionReferenceServers
import ReceptionTesting
import ReceptionTimepoint
import Testing

/// Garbage where the generation stream was expected (a frame that is not JSON, bytes that
/// are not UTF-8, a captive portal's HTML page with status 200): the generation ends in a
/// protocol error in plain words, never a Swift decoding dump, and the next scene is made.
@Suite("TIMEPOINT garbage bytes")
struct GarbageBytesTests {
    @Test(arguments: [("garbagejson", "a generation event is not the expected JSON: <html>"),
                      ("garbageutf8", "not valid UTF-8"),
                      ("garbagehtml", "answered text/html; charset=utf-8, not text/event-stream")])
    func garbageIsAProtocolErrorInWordsAndTheNextSceneIsMade(word: String, words: String) async throws {
        try await withTimepoint { rig in
            let backend = TimepointBackend(client: rig.client)
            var events: [BackendEvent] = []
            var thrown: (any Error)?
            do {
                for try await event in backend.submit(ReceptionRequest(text: "a \(word) harbour, 1850", trustLevel: 1)) { events.append(event) }
            } catch {
                thrown = error
            }
            let said = failure(in: events)?.message ?? thrown.map { String(describing: $0) } ?? ""
            #expect(said.contains("broke its contract") && said.contains(words), "\(said); events \(events)")
            for dump in ["DecodingError", "dataCorrupted", "codingPath", "Swift.", "Error Domain"] {
                #expect(!said.contains(dump), "no Swift error dump: \(said)")
            }
            #expect(result(in: events) == nil)
            let next = try await collect(backend.submit(ReceptionRequest(text: "Oppenheimer at Trinity, 1945", trustLevel: 1)))
            #expect(result(in: next)?.text.contains("Oppenheimer") == true, "\(next)")
        }
    }
}
