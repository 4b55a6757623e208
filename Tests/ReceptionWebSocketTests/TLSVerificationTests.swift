import HTTPTypes
import Hummingbird
import HummingbirdTLS
import HummingbirdWebSocket
import NIOSSL
import ReceptionCore
import ReceptionTransport
import ReceptionWebSocket
import ReceptionTestSupport
import Testing

/// A self-signed certificate for `localhost` and 127.0.0.1, made for these tests with
/// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -days 36500 -nodes`. Its
/// key is public: nothing may ever trust it.
private enum LoopbackIdentity {
    static let certificate = """
-----BEGIN CERTIFICATE-----
MIIB0zCCAXmgAwIBAgIUKIkvJ9eMnCnJrGCKE9LqI1dL7aowCgYIKoZIzj0EAwIw
MDEuMCwGA1UEAwwlUmVjZXB0aW9uIGxvb3BiYWNrIHRlc3QgKG5ldmVyIHRydXN0
KTAgFw0yNjExMjcwMTM0MTBaGA8yMTI2MTEwMzAxMzQxMFowMDEuMCwGA1UEAwwl
UmVjZXB0aW9uIGxvb3BiYWNrIHRlc3QgKG5ldmVyIHRydXN0KTBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABLlJIecDiI3JfRYxjYMNLvatr0sFFuvJlHw8lQoJU+WX
iSw3NPHheSlParFwE2hpyH1vvZhO+4LXgZVlHUe14MCjbzBtMB0GA1UdDgQWBBSp
olg7zhsqHCR/0g0/V/qrRwUHfjAfBgNVHSMEGDAWgBSpolg7zhsqHCR/0g0/V/qr
RwUHfjAPBgNVHRMBAf8EBTADAQH/MBoGA1UdEQQTMBGCCWxvY2FsaG9zdIcEfwAA
ATAKBggqhkjOPQQDAgNIADBFAiBtA+19Sn9OZO1UdpZj7NYch6VJ0d6MNah4xbzT
iZVlBAIhAN5B1VGOQz7M5w0tdQG2TxCzSIQvKIIyH81HvDMhKRak
-----END CERTIFICATE-----
"""
    static let privateKey = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgslhS0mFoPlgmmycX
SFDMVY+hz6wVQl/ExSABGmkEfxWhRANCAAS5SSHnA4iNyX0WMY2DDS72ra9LBRbr
yZR8PJUKCVPll4ksNzTx4XkpT2qxcBNoach9b72YTvuC14GVZR1HteDA
-----END PRIVATE KEY-----
"""
}

/// An HTTPS and WSS server on loopback with that certificate: `GET /hello` answers "hello",
/// `/echo` is a WebSocket that says "ready".
private func withTLSServer(_ body: @escaping @Sendable (Int) async throws -> Void) async throws {
    let http = Router(context: BasicWebSocketRequestContext.self)
    http.get("/hello") { _, _ in "hello" }
    let sockets = Router(context: BasicWebSocketRequestContext.self)
    sockets.ws("/echo") { _, _ in .upgrade([:]) } onUpgrade: { _, outbound, _ in
        try await outbound.write(.text("ready"))
    }
    let tls = TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(LoopbackIdentity.certificate.utf8)).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(LoopbackIdentity.privateKey.utf8), format: .pem)))
    try await withLoopbackServer({ running in
        Application(router: http, server: try .tls(.http1WebSocketUpgrade(webSocketRouter: sockets), tlsConfiguration: tls),
                    configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: running,
                    // The handshakes the test's clients refuse end the server's side with an error.
                    logger: TestServerLogging.logger("tls-test-server", expected: ["Error handling upgrade result"]))
    }, body)
}

/// "TLS verification is on unless --insecure is given explicitly". One
/// test, in order, because `TLSVerification` is one switch for the whole process.
@Suite("TLS: verified unless --insecure, for HTTP and WebSocket alike", .serialized)
struct TLSVerificationTests {
    @Test func anUntrustedCertificateIsRefusedInWordsAndInsecureSkipsTheCheck() async throws {
        defer { TLSVerification.bootstrap(verifyingCertificates: true) }
        try await withTLSServer { port in
            // Verified (the default): refused, said plainly, and not "unreachable" (which an
            // offline queue would wait on for ever).
            #expect(TLSVerification.isVerifying)
            let verifying = HTTPTransport(configuration: HTTPTransportConfiguration(baseURL: "https://localhost:\(port)"))
            await #expect { _ = try await verifying.send(.GET, "/hello", auth: .none) } throws: { error in
                guard case BackendError.untrusted(let url, let reason) = error else { return false }
                return url == "https://localhost:\(port)/hello" && reason.contains("certificate could not be verified")
                    && reason.contains("--insecure skips the check")
            }
            await verifying.shutdown()
            await #expect { _ = try await WebSocketConnection.open(url: "wss://localhost:\(port)/echo") } throws: { error in
                guard case BackendError.untrusted(_, let reason) = error else { return false }
                return reason.contains("certificate could not be verified")
            }
            // An IP address cannot be a TLS WebSocket's server name: said as such.
            await #expect { _ = try await WebSocketConnection.open(url: "wss://127.0.0.1:\(port)/echo") } throws: { error in
                guard case BackendError.untrusted(_, let reason) = error else { return false }
                return reason.contains("needs the server's host name, not an IP address")
            }

            // --insecure: the same server answers, over TLS still.
            TLSVerification.bootstrap(verifyingCertificates: false)
            let insecure = HTTPTransport(configuration: HTTPTransportConfiguration(baseURL: "https://localhost:\(port)"))
            let answer = try await insecure.send(.GET, "/hello", auth: .none)
            #expect(answer.status == 200 && String(decoding: answer.body, as: UTF8.self) == "hello")
            await insecure.shutdown()
            let socket = try await WebSocketConnection.open(url: "wss://localhost:\(port)/echo")
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == "ready")
            await socket.close()
        }
    }
}
