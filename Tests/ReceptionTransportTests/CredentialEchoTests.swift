import Foundation
import HTTPTypes
import Hummingbird
import ReceptionCore
import ReceptionTransport
import Testing

/// A server (or a proxy in front of it) that quotes the request's credentials in its error
/// page: Reception prints error bodies, so the key must be masked before they are read.
@Suite("Credentials a server echoes back")
struct CredentialEchoTests {
    @Test func anErrorPageThatQuotesTheKeyShowsItMasked() async throws {
        let router = Router()
        let echo: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let heard = "auth=\(request.headers[.authorization] ?? "none") admin=\(request.headers[HTTPField.Name("X-Admin-Key")!] ?? "none")"
            return Response(status: .unauthorized, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "bad credentials: \(heard)")))
        }
        router.post("call", use: echo)
        router.get("stream", use: echo)
        try await serving(router) { port in
            let authentication = HeaderAuthentication([("Authorization", "Bearer sk-SECRET-123456"), ("X-Admin-Key", "SEKRIT-admin-tp")])
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: "http://127.0.0.1:\(port)", authentication: authentication))
            defer { Task { await transport.shutdown() } }

            var messages: [String] = []
            do {
                _ = try await transport.json(JSONValue.self, .POST, "/call", body: Data("{}".utf8), auth: .required)
            } catch { messages.append("\(error)") }
            do {
                for try await _ in transport.eventStream("/stream", auth: .required) {}
            } catch { messages.append("\(error)") }
            #expect(messages.count == 2)
            for message in messages {
                #expect(message.contains("bad credentials: auth=••• admin=•••"), "\(message)")
                #expect(!message.contains("SECRET-123456") && !message.contains("SEKRIT"), "\(message)")
            }
        }
    }
}
