import Foundation
import ReceptionCore
import ReceptionREPL
import ReceptionTesting
import Testing

/// A number alone picks a follow-up question where the backend suggests them; it is never sent
/// as a message by accident there, and it stays an ordinary reply to a conversational backend.
@Suite("A number typed alone")
struct FollowupNumberTests {
    @Test func withoutFollowUpsOnOfferItIsNotSentAndTheREPLSaysHowToSendIt() async throws {
        let backend = ScriptedBackend(capabilities: [.interventions]) { request in
            [.event(.result(BackendResult(text: "answered \(request.text)")))]
        }
        let (output, _, _) = await runREPL(["what can you do?", "1", "/send 1"], backend: backend)
        #expect(output.contains("A number alone picks a follow-up question, and the last answer offered none: nothing was sent. /send 1 sends it as a message."), "\(output)")
        // "1" reached the backend once: through /send, not when typed alone.
        #expect(backend.received.map(\.text) == ["what can you do?", "1"], "\(backend.received.map(\.text))")
    }

    @Test func withFollowUpsItSendsThatQuestion() async throws {
        let backend = ScriptedBackend(capabilities: [.interventions]) { request in
            [.event(.result(BackendResult(text: "answered \(request.text)", followups: [.plain("What else?")])))]
        }
        let (_, _, _) = await runREPL(["hello", "1"], backend: backend)
        #expect(backend.received.map(\.text) == ["hello", "What else?"])
    }

    /// Typed numbers are untrusted: the smallest Int used to trap where 1 was subtracted from
    /// it, and the REPL died. Each is refused in words, and the session goes on.
    @Test func aNumberOutOfRangeIsRefusedWhateverItsSize() async throws {
        let backend = ScriptedBackend(capabilities: [.interventions]) { request in
            [.event(.result(BackendResult(text: "answered \(request.text)", followups: [.plain("What else?")])))]
        }
        let smallest = String(Int.min)
        let (output, _, _) = await runREPL(["hello", smallest, "/followups \(smallest)", "0", "2", "99999999999999999999",
                                            "/followups 99999999999999999999", "still here"], backend: backend)
        #expect(output.components(separatedBy: "There is no follow-up that small; /followups lists 1.").count == 3, "\(output)")
        // Past Int's range it is still a number typed alone, not a message.
        #expect(output.components(separatedBy: "There is no follow-up that large; /followups lists 1.").count == 3, "\(output)")
        #expect(output.contains("There is no follow-up 0;") && output.contains("There is no follow-up 2;"), "\(output)")
        #expect(backend.received.map(\.text) == ["hello", "still here"])
    }

    /// To a language model ("how many guests?"), "4" is an answer.
    @Test func toAConversationalBackendItIsAnOrdinaryReply() async throws {
        let backend = ScriptedBackend(capabilities: [.textStreaming]) { request in
            [.event(.result(BackendResult(text: "answered \(request.text)")))]
        }
        let (_, _, _) = await runREPL(["how many?", "4"], backend: backend)
        #expect(backend.received.map(\.text) == ["how many?", "4"])
    }

    @Test func sendKeepsALineStartingWithASlashAsTyped() async throws {
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(text: "ok")))] }
        let (output, _, _) = await runREPL(["/send  /etc/hosts is it safe to edit?", "/send"], backend: backend)
        #expect(backend.received.map(\.text) == ["/etc/hosts is it safe to edit?"])
        #expect(output.contains("Usage: /send TEXT"), "\(output)")
    }
}
