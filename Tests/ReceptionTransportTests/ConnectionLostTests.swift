import Foundation
import Hummingbird
import ReceptionCore
import ReceptionTransport
import Testing

/// A server that had the request and began to answer, then closed: that is not "cannot
/// reach", and it must not be taken for it, since the offline queue sends "unreachable"
/// messages again later and the server may already have done the work.
@Suite("A connection lost mid-answer")
struct ConnectionLostTests {
    @Test func anAnswerCutAfterItBeganIsConnectionLostNotUnreachable() async throws {
        let router = Router()
        router.post("cut") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: #"{"answer": "the first half of"#))
                throw CancellationError()
            })
        }
        try await serving(router) { port in
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(port)"))
            defer { Task { await transport.shutdown() } }
            do {
                _ = try await transport.json(JSONValue.self, .POST, "/cut", body: Data("{}".utf8), auth: .none)
                Issue.record("a cut answer was read as whole")
            } catch let error as BackendError {
                #expect(error == .connectionLost(url: "http://127.0.0.1:\(port)/cut"), "\(error)")
                #expect(error.description == "The connection to http://127.0.0.1:\(port)/cut was lost mid-answer.")
            }
        }
    }

    /// A header value the HTTP client will not send (a user id with a line break) is no
    /// unreachable server: the session said it was offline and queued the message for good.
    @Test func aRequestTheClientWillNotSendIsAConfigurationErrorNotUnreachable() async throws {
        let transport = keptTransport(HTTPTransportConfiguration(
            baseURL: "http://127.0.0.1:9", authentication: HeaderAuthentication([("X-User-Id", "bob\nsmith")])))
        defer { Task { await transport.shutdown() } }
        do {
            _ = try await transport.send(.GET, "/health", auth: .required)
            Issue.record("sent")
        } catch let error as BackendError {
            guard case .invalidRequest = error else { Issue.record("\(error)"); return }
            #expect(error.description == "Cannot send to http://127.0.0.1:9/health: a header value holds a character HTTP does not allow (a line break or other control character); check the profile's user id, names and keys")
            #expect(!error.description.contains("smith"))
        }
        let broken = keptTransport(HTTPTransportConfiguration(baseURL: "http://[::1:8080/v1"))
        defer { Task { await broken.shutdown() } }
        await #expect { _ = try await broken.send(.GET, "/health", auth: .none) } throws: { error in
            guard case .invalidRequest? = error as? BackendError else { return false }
            return true
        }
    }
}
