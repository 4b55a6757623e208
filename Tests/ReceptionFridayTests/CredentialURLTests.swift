import Foundation
import ReceptionCore
import ReceptionFriday
import ReceptionWebSocket
import ReceptionTestSupport
import Testing

/// The WebSocket client reads "ws://user:pass@host" as the host "user": messages went to a
/// server the URL does not name (an audit saw a private question answered by 127.0.0.1:80).
@Suite("A Friday URL with a user name or password")
struct CredentialURLTests {
    @Test func isRefusedBeforeAnythingConnects() async throws {
        let profile = BackendProfile(name: "friday", kind: "friday", values: ["url": .string("ws://127.0.0.1:pw@friday.example.com:8787/ws")],
                                     origin: "the FRIDAY_* environment variables")
        #expect { _ = try FridayPlugin.configuration(for: profile) } throws: { error in
            let text = "\(error)"
            return text.contains("url must not carry a user name or password") && !text.contains(":pw@")
        }
        // The transport refuses it too, for any caller, and not as "unreachable" (which queues).
        do {
            _ = try await WebSocketConnection.open(url: "ws://alice:secret@127.0.0.1:\(refusingLoopbackPort)/ws", connectTimeout: .seconds(2))
            Issue.record("a URL with credentials was opened")
        } catch let error as BackendError {
            guard case .untrusted = error else { Issue.record("\(error)"); return }
            #expect(!error.description.contains("secret"), "\(error)")
        }
    }
}
