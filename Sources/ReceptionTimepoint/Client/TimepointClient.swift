import Foundation
import NIOHTTP1
import ReceptionCore
import ReceptionTransport
import Synchronization

/// The calls Reception makes to a TIMEPOINT Flash server (`/api/v1/...`), over the shared
/// HTTP transport: Bearer authentication with one refresh and one retry after a 401, the
/// dev admin key only on the two admin calls, no redirects followed, bounded bodies.
///
/// Every call also follows the guide's error rules: a 429 is sent again after the server's
/// `Retry-After` or a backoff from 1 s doubling to at most 30 s; a 5xx is sent again once;
/// what still fails becomes a `TimepointError` in words.
public final class TimepointClient: Sendable {
    public let configuration: TimepointConfiguration
    public let session: TimepointSession
    /// Calls that carry the access token.
    let transport: HTTPTransport
    /// Calls that must carry nothing (refresh, logout, the cost table).
    let plain: HTTPTransport
    /// The two dev admin calls, with `X-Admin-Key`; nil without an admin key.
    let admin: HTTPTransport?

    /// The access token the current call carried (set around each call, read after its 401).
    @TaskLocal static var sentToken: SentToken?

    final class SentToken: Sendable {
        private let value = Mutex<SecretToken?>(nil)
        func note(_ token: SecretToken) { value.withLock { $0 = token } }
        var token: SecretToken? { value.withLock { $0 } }
    }

    /// Hears why a call is late (a 429 backoff, a retried 500), for a front end's status line.
    ///
    /// A class, not the closure itself: a task-local whose value is an optional function type
    /// crashed the optimised build (`swift_task_localValuePush` was handed bad type metadata
    /// by the specialised `withValue`; Swift 6.3.1, release only), on every typed message.
    @TaskLocal public static var onWait: WaitListener?

    public final class WaitListener: Sendable {
        private let hear: @Sendable (String) -> Void
        public init(_ hear: @escaping @Sendable (String) -> Void) { self.hear = hear }
        public func callAsFunction(_ line: String) { hear(line) }
    }

    public init(configuration: TimepointConfiguration, atTokenWriteStage: @escaping @Sendable (RefreshTokenFile.WriteStage) -> Void = { _ in }) {
        self.configuration = configuration
        let configuration = configuration
        func transportConfiguration(_ authentication: any HTTPAuthentication) -> HTTPTransportConfiguration {
            var settings = HTTPTransportConfiguration(baseURL: configuration.baseURL, authentication: authentication,
                                                      requestTimeout: configuration.requestTimeout, readTimeout: configuration.requestTimeout)
            settings.retry = .never  // retries are decided here, by the guide's rules, for POST too
            settings.userAgent = "Reception/1 (timepoint)"
            return settings
        }
        let plain = HTTPTransport(configuration: transportConfiguration(NoAuthentication()))
        self.plain = plain
        let file = RefreshTokenFile(path: configuration.tokenFile, origin: configuration.baseURL, atStage: atTokenWriteStage)
        let session = TimepointSession(file: file) { token in
            try await Self.renew(token, plain: plain, configuration: configuration)
        }
        self.session = session
        // The token each call carried is noted for that call (a task-local box), so that after
        // its 401 the session can tell "already renewed by another call" from "expired".
        let bearer = BearerAuthentication(
            token: {
                let token = try await session.accessToken()
                TimepointClient.sentToken?.note(token)
                return token.reveal()
            },
            refresh: { await session.refreshAfterUnauthorized(rejected: TimepointClient.sentToken?.token) })
        transport = HTTPTransport(configuration: transportConfiguration(bearer), httpClient: plain.client)
        admin = configuration.adminKey.map { key in
            HTTPTransport(configuration: transportConfiguration(HeaderAuthentication([("X-Admin-Key", key.reveal())])), httpClient: plain.client)
        }
    }

    public func shutdown() async { await plain.shutdown() }

    /// Why `/signin dev` cannot be used, the same words at start and at the command.
    static func devSignInUnavailable(_ problem: String) -> String {
        "/signin dev is unavailable, since the dev admin key is not used: \(problem)"
    }

    // MARK: calls

    enum Route { case bearer, plain, admin }

    func transport(for route: Route) throws -> HTTPTransport {
        switch route {
        case .bearer: return transport
        case .plain: return plain
        case .admin:
            guard let admin else {
                if let problem = configuration.adminKeyProblem { throw TimepointError.unavailable(Self.devSignInUnavailable(problem)) }
                throw TimepointError.unavailable("No dev admin key is configured: set admin_key_env or admin_key_file in the profile (or TIMEPOINT_ADMIN_KEY).")
            }
            return admin
        }
    }

    /// Sends a call with the retry rules and decodes a 2xx JSON answer.
    func call<T: Decodable>(_ type: T.Type, _ method: HTTPMethod, _ path: String, query: [(String, String)] = [],
                            body: (any Encodable & Sendable)? = nil, route: Route = .bearer) async throws -> T {
        let data = try body.map { try Wire.encode($0) }
        let response = try await Self.perform(try transport(for: route), configuration, method, path, query: query, body: data,
                                              auth: route == .plain ? .none : .required)
        guard (200..<300).contains(response.status) else { throw await failure(response) }
        return try HTTPTransport.decode(type, from: response.body, what: "\(method.rawValue) /api/v1\(path)")
    }

    /// The guide's retry rules around one call: 429 → wait (`Retry-After`, else 1 s, 2 s, 4 s…
    /// at most 30 s) and send again; 5xx → send again once. The rest is the caller's to judge.
    static func perform(_ transport: HTTPTransport, _ configuration: TimepointConfiguration, _ method: HTTPMethod, _ path: String,
                        query: [(String, String)] = [], body: Data?, auth: HTTPAuthScope) async throws -> HTTPTransport.RawResponse {
        var refusals = 0
        var retriedServerError = false
        var retriedStaleConnection = false
        while true {
            let response: HTTPTransport.RawResponse
            do {
                response = try await $sentToken.withValue(SentToken()) {
                    try await transport.send(method, "/api/v1" + path, query: query, body: body, auth: auth)
                }
            } catch BackendError.unreachable(_, let reason) where Self.isStaleConnection(reason) && !retriedStaleConnection {
                // A kept-alive connection the server dropped: the real server's uvicorn resets
                // the connection of every 500 after answering it, and the pool hands it to the
                // next call, which fails before the server reads it. Sent once more, fresh.
                retriedStaleConnection = true
                continue
            }
            if response.status == 429 {
                refusals += 1
                guard refusals < configuration.rateLimitAttempts,
                      let wait = backoff(refusals: refusals, retryAfter: response.header("retry-after"), configuration) else { return response }
                onWait?("The server is busy (HTTP 429); trying again in \(seconds(wait)) (attempt \(refusals + 1) of \(configuration.rateLimitAttempts)).")
                try await Task.sleep(for: wait)
                continue
            }
            if (500...599).contains(response.status), response.status != 501, !retriedServerError {
                retriedServerError = true
                onWait?("The server failed (HTTP \(response.status)); trying once more.")
                try await Task.sleep(for: configuration.serverErrorRetryDelay)
                continue
            }
            return response
        }
    }

    static func isStaleConnection(_ reason: String) -> Bool {
        ["closed channel", "connection was reset", "closed the connection"].contains { reason.contains($0) }
    }

    /// The wait before the next attempt after `refusals` 429s: the server's `Retry-After` when
    /// it names one within the limit, else 1 s doubling, capped; nil when the server asks for
    /// longer than the limit (the person hears it rather than waits).
    public static func backoff(refusals: Int, retryAfter: String?, _ configuration: TimepointConfiguration) -> Duration? {
        if let retryAfter, let asked = HTTPRetryPolicy.seconds(retryAfter: retryAfter) {
            let wait = Duration.milliseconds(Int(saturating: (asked * 1000).rounded(.up)))
            return wait <= configuration.backoffLimit ? wait : nil
        }
        return min(configuration.backoffStart * (1 << min(refusals - 1, 20)), configuration.backoffLimit)
    }

    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value < 10 ? String(format: "%.1f s", value) : "\(Int(value.rounded())) s"
    }

    /// A refused call in Reception's words.
    func failure(_ response: HTTPTransport.RawResponse) async -> TimepointError {
        await failure(status: response.status, body: response.body, retryAfter: response.header("retry-after"))
    }

    func failure(status: Int, body: Data, retryAfter: String?) async -> TimepointError {
        let words = ErrorWords(body)
        switch status {
        case 401:
            if let reason = await session.signedOutReason { return .signInAgain(reason: reason) }
            return .signInAgain(reason: "The server refused your sign-in (\(words.text)). Sign in again with /signin.")
        case 402:
            let balance = try? await self.balance().balance
            return .insufficientCredits(cost: words.cost, balance: balance, serverWords: words.text)
        case 403:
            return words.text.localizedCaseInsensitiveContains("private") && !words.text.localizedCaseInsensitiveContains("owner")
                ? .privateScene : .forbidden(words.text)
        case 404: return .notFound(words.text)
        case 422: return .validation(words.fields.isEmpty ? [.init(field: "request", message: words.text)] : words.fields)
        case 429:
            let wait = retryAfter.map { "; it asks to wait \($0) s" } ?? ""
            return .rateLimited("HTTP 429: \(words.text)\(wait)")
        default:
            // hd with too few credits: upstream checks the balanced price, then fails with 500.
            if let need = words.need {
                return .insufficientCredits(cost: need.cost, balance: need.have, serverWords: words.text)
            }
            return .server(status: status, detail: words.text)
        }
    }

    /// `POST /auth/refresh`, with the retry rules; a 401 is the end of this sign-in.
    static func renew(_ token: SecretToken, plain: HTTPTransport, configuration: TimepointConfiguration) async throws -> TokenPair {
        let body = try Wire.encode(RefreshRequest(refreshToken: token.reveal()))
        let response = try await perform(plain, configuration, .POST, "/auth/refresh", body: body, auth: .none)
        switch response.status {
        case 200..<300:
            return try HTTPTransport.decode(TokenResponse.self, from: response.body, what: "POST /api/v1/auth/refresh").pair
        case 401:
            let words = ErrorWords(response.body).text
            if words.localizedCaseInsensitiveContains("revoked") || words.localizedCaseInsensitiveContains("reuse") {
                throw TimepointError.signInAgain(reason: "The server has ended your sign-in: it saw a refresh token that was already used (it treats that as possible theft and signs out every session). Sign in again with /signin.")
            }
            throw TimepointError.signInAgain(reason: "Your sign-in has expired or the server no longer knows it (\(words)). Sign in again with /signin.")
        default:
            throw BackendError.http(status: response.status, detail: ErrorWords(response.body).text)
        }
    }
}
