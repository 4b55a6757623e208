import Foundation
import ReceptionTransport

/// Where the Codex workers API lives and how to reach it.
public struct CodexConfiguration: Sendable {
    /// The Laravel site, e.g. `https://openagents.com`; `/api/runtime/codex/workers` is appended.
    public var baseURL: String
    /// The Sanctum personal access token, sent as `Authorization: Bearer`, to this URL only.
    public var token: String?
    /// Where the token came from (`$CODEX_TOKEN`, a file path), for messages; never the token.
    public var tokenSource: String?
    /// How long one long poll of the stream stays open (the runtime's `tail_ms`, 1...120000).
    public var tailMS: Int = 15_000
    /// The `source` of handshake events. The desktop app answers only `autopilot-ios`
    /// (OpenAgents at 43018d3d24), so that is the default; `device_id` names this client.
    public var handshakeSource: String = "autopilot-ios"
    /// Sent as the handshake's `device_id`, and as the `source` of requests.
    public var deviceID: String = CodexConfiguration.defaultDeviceID
    /// How long to wait for the desktop's `desktop/handshake_ack`.
    public var handshakeTimeout: Duration = .seconds(30)
    /// The method a typed message is sent with when a worker is selected.
    public var messageMethod: String = "turn/start"
    public var requestTimeout: Duration = .seconds(30)
    public var connectTimeout: Duration = .seconds(5)

    public init(baseURL: String, token: String? = nil, tokenSource: String? = nil) {
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        self.baseURL = url
        self.token = token
        self.tokenSource = tokenSource
    }

    /// `reception-HOST`, so the other side can tell this client's events apart.
    /// `gethostname`, not `ProcessInfo.hostName`, which may ask DNS on Linux.
    public static var defaultDeviceID: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let name = gethostname(&buffer, buffer.count) == 0 ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let host = name.prefix(40).filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        return "reception-" + (host.isEmpty ? "cli" : String(host))
    }

    var transportConfiguration: HTTPTransportConfiguration {
        let token = token
        // The long poll holds the connection for tail_ms with no bytes at all (the runtime
        // sends no keepalive): the read timeout must outlast it.
        let readTimeout = Duration.milliseconds(tailMS) + .seconds(30)
        var configuration = HTTPTransportConfiguration(
            baseURL: baseURL, authentication: BearerAuthentication(token: { token }),
            requestTimeout: requestTimeout, connectTimeout: connectTimeout,
            readTimeout: max(readTimeout, .seconds(45)), userAgent: "Reception/1 (codex)", maxBodyBytes: 8 << 20)
        // Retries are the watcher's business (with backoff and a cursor); a plain call is
        // reported at once so a person sees the state and the request id.
        configuration.retry = .never
        return configuration
    }
}
