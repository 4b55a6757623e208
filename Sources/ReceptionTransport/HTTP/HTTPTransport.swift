import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ReceptionCore

/// The HTTP layer under every call of an HTTP engine: a fresh `X-Request-Id` on each call,
/// pluggable authentication (with one retry after a 401 when it can refresh), JSON bodies,
/// timeouts, a size limit on bodies, and the mapping of error statuses to `BackendError`
/// that keeps the server's own words. `eventStream` reads Server-Sent Events.
public final class HTTPTransport: Sendable {
    public let configuration: HTTPTransportConfiguration
    public let client: HTTPClient
    private let ownsClient: Bool

    public init(configuration: HTTPTransportConfiguration, httpClient: HTTPClient? = nil) {
        self.configuration = configuration
        if let httpClient {
            client = httpClient
            ownsClient = false
        } else {
            var config = HTTPClient.Configuration()
            config.timeout = .init(connect: .nanoseconds(configuration.connectTimeout.nanosecondsValue),
                                   read: .nanoseconds(configuration.readTimeout.nanosecondsValue))
            config.httpVersion = .http1Only
            // Never follow a redirect: the credentials of this call would go to whatever
            // address the server names. `check` reports the redirect in words instead.
            config.redirectConfiguration = .disallow
            // A refused connection fails at once: by default the pool keeps trying to connect
            // with a backoff until the connect timeout, so "nothing listens there" took 5 s to
            // say. Retries are ours to decide (`send`, `eventStream`).
            config.connectionPool.retryConnectionEstablishment = false
            // Verified unless the person said --insecure (one switch for every transport).
            if let tls = ConnectionFailure.tlsConfiguration() { config.tlsConfiguration = tls }
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
            ownsClient = true
        }
    }

    /// Closes the connection pool (only when this transport created it).
    public func shutdown() async {
        if ownsClient { try? await client.shutdown() }
    }

    /// A raw answer: status, headers and the whole body.
    public struct RawResponse: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: Data
        public var requestID: String
        public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    /// A request with the standard headers and this scope's credentials.
    public func makeRequest(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: Data? = nil,
                            auth: HTTPAuthScope, requestID: String) async throws -> HTTPClientRequest {
        var url = configuration.baseURL + path
        if !query.isEmpty {
            var components = URLComponents()
            components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
            url += "?" + (components.percentEncodedQuery ?? "")
        }
        // A port past 65535 stops the HTTP client's process (a trap, not an error): refused here,
        // for every caller, whatever checked the configuration before.
        if let problem = PluginOption.portProblem(configuration.baseURL) {
            throw BackendError.unreachable(url: RedactedURL.display(configuration.baseURL), reason: problem)
        }
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "X-Request-Id", value: requestID)
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        for header in try await configuration.authentication.headers(for: auth) {
            request.headers.add(name: header.name, value: header.value)
        }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        return request
    }

    /// Sends one request and returns whatever came back, without judging the status. After a
    /// 401 it asks the authentication to refresh and, if it did, sends the call once more.
    ///
    /// An idempotent call refused for load or by a gateway is sent again as
    /// `configuration.retry` says (the server's `Retry-After`, else a backoff with jitter);
    /// a refused connection is not retried: nothing listens, and the person hears it at once.
    ///
    /// `requestID` is sent as `X-Request-Id` on every attempt of this call (a new one for each
    /// attempt when nil), so a caller that names it in an error names what the server logged.
    public func send(_ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: Data? = nil,
                     auth: HTTPAuthScope, requestID: String? = nil) async throws -> RawResponse {
        var attempt = 1
        while true {
            var response = try await sendOnce(method, path, query: query, body: body, auth: auth, requestID: requestID)
            if response.status == 401, auth != .none, try await configuration.authentication.refreshAfterUnauthorized() {
                response = try await sendOnce(method, path, query: query, body: body, auth: auth, requestID: requestID)
            }
            guard Self.isIdempotent(method),
                  let delay = configuration.retry.delay(afterAttempt: attempt, status: response.status,
                                                        retryAfter: response.header("retry-after")) else { return response }
            attempt += 1
            try await Task.sleep(for: delay)
        }
    }

    static func isIdempotent(_ method: HTTPMethod) -> Bool {
        switch method {
        case .GET, .HEAD, .PUT, .DELETE, .OPTIONS: true
        default: false
        }
    }

    private func sendOnce(_ method: HTTPMethod, _ path: String, query: [(String, String)], body: Data?,
                          auth: HTTPAuthScope, requestID: String?) async throws -> RawResponse {
        let requestID = requestID ?? UUID().uuidString.lowercased()
        let request = try await makeRequest(method, path, query: query, body: body, auth: auth, requestID: requestID)
        let client = client
        let configuration = configuration
        do {
            // The client's deadline covers the request until the head arrives; the body is read
            // under the same deadline here, or a server that drips its body a byte at a time
            // would hold the call for ever.
            return try await withThrowingTaskGroup(of: RawResponse?.self) { group in
                group.addTask {
                    let response = try await client.execute(request, timeout: .nanoseconds(configuration.requestTimeout.nanosecondsValue))
                    let buffer = try await response.body.collect(upTo: configuration.maxBodyBytes)
                    let status = Int(response.status.code)
                    // An error page may quote the request's credentials back: masked before anyone reads it.
                    let body = (200..<300).contains(status) ? Data(buffer.readableBytesView) : CredentialEcho.masked(Data(buffer.readableBytesView), of: request)
                    return RawResponse(status: status, headers: response.headers.map { ($0.name, $0.value) },
                                       body: body, requestID: requestID)
                }
                group.addTask {
                    try await Task.sleep(for: configuration.requestTimeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw BackendError.timedOut(url: RedactedURL.display(configuration.baseURL + path),
                                                reason: "the answer did not arrive in full within \(configuration.requestTimeout)")
                }
                return response
            }
        } catch {
            throw failure(error, path: path)
        }
    }

    /// What a call's error means to Reception: cancellation stays cancellation, errors already
    /// in Reception's terms pass through, a slow server is a timeout (not "unreachable": issue
    /// 21, point 4), anything else says in plain words why the server could not be reached.
    func failure(_ error: any Error, path: String) -> any Error {
        if error is BackendError { return error }
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        let url = RedactedURL.display(configuration.baseURL + path)
        if let error = error as? HTTPClientError, [.deadlineExceeded, .readTimeout].contains(error) {
            return BackendError.timedOut(url: url, reason: Self.describe(error))
        }
        if ConnectionFailure.isTLSFailure(error) {
            return BackendError.untrusted(url: url, reason: Self.describe(error))
        }
        if ConnectionFailure.isLostMidAnswer(error) { return BackendError.connectionLost(url: url) }
        if let reason = ConnectionFailure.configurationProblem(error) { return BackendError.invalidRequest(url: url, reason: reason) }
        return BackendError.unreachable(url: url, reason: Self.describe(error))
    }

    /// Sends a request and decodes a 2xx JSON answer; any other status throws `BackendError.http`
    /// carrying the server's own explanation.
    public func json<T: Decodable>(_ type: T.Type, _ method: HTTPMethod, _ path: String, query: [(String, String)] = [],
                                   body: Data? = nil, auth: HTTPAuthScope) async throws -> T {
        let response = try await send(method, path, query: query, body: body, auth: auth)
        try Self.check(response)
        return try Self.decode(type, from: response.body, what: "\(method.rawValue) \(path)")
    }

    public func json<T: Decodable, B: Encodable>(_ type: T.Type, _ method: HTTPMethod, _ path: String, query: [(String, String)] = [],
                                                 sending body: B, auth: HTTPAuthScope) async throws -> T {
        try await json(type, method, path, query: query, body: try Wire.encode(body), auth: auth)
    }

    /// For calls that answer with no content (`DELETE /heartbeats/{id}` → 204).
    public func empty(_ method: HTTPMethod, _ path: String, auth: HTTPAuthScope) async throws {
        try Self.check(try await send(method, path, auth: auth))
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, what: String) throws -> T {
        do {
            return try Wire.decode(type, from: data)
        } catch {
            let excerpt = String(decoding: data.prefix(200), as: UTF8.self)
            throw BackendError.protocolViolation("\(what) answered something that is not a \(T.self): \(describeDecoding(error)); body starts \(excerpt)")
        }
    }

    public static func check(_ response: RawResponse) throws {
        guard !(200..<300).contains(response.status) else { return }
        throw refusal(status: response.status, location: response.header("location"), body: response.body,
                      contentType: response.header("content-type"))
    }

    /// An answer that is not a success, in words: a redirect says where it points and why it is
    /// not followed; anything else carries the server's own explanation. Plain calls and
    /// event streams both report through here.
    static func refusal(status: Int, location: String?, body: Data, contentType: String?) -> BackendError {
        if (300..<400).contains(status), let location {
            return .http(status: status, detail: "the server redirects to \(RedactedURL.display(String(location.prefix(300)))); Reception does not follow redirects, so no key goes to another address. If the server moved, change the backend's url.")
        }
        return .http(status: status, detail: errorDetail(status: status, body: body, contentType: contentType))
    }

    /// The server's explanation of an error, in words: FastAPI's `{"detail": "..."}`, the 422
    /// validation list (`header x-api-key: Field required`), `{"error": {"message": ...}}` as
    /// OpenAI-compatible servers send it, or the text/plain body.
    public static func errorDetail(status: Int, body: Data, contentType: String?) -> String {
        if let value = try? Wire.decode(JSONValue.self, from: body) {
            switch value["detail"] {
            case .string(let text)?: return text
            case .array(let items)?:
                let parts = items.map { item -> String in
                    let location = (item["loc"].flatMap { value -> [String]? in
                        if case .array(let parts) = value {
                            return parts.map { $0.stringValue ?? $0.intValue.map(String.init) ?? "?" }
                        }
                        return nil
                    } ?? [])
                    let message = item["msg"]?.stringValue ?? "invalid"
                    guard let first = location.first else { return message }
                    let rest = location.dropFirst().joined(separator: ".")
                    return rest.isEmpty ? "\(first): \(message)" : "\(first) \(rest): \(message)"
                }
                if !parts.isEmpty { return parts.joined(separator: "; ") }
            case .null?: break  // `{"error": "...", "detail": null}` (TIMEPOINT Flash): the words are in `error`
            case .some(let other): return Wire.jsonString(other)
            case nil: break
            }
            if let message = value["error"]?["message"]?.stringValue ?? value["error"]?.stringValue { return message }
            // `{"message": "Not Found"}` (Express, Hummingbird and others): the words, not the JSON.
            if let message = value["message"]?.stringValue, !message.isEmpty { return message }
        }
        let text = String(decoding: body.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty { return text }
        return HTTPResponseStatus(statusCode: status).reasonPhrase
    }

    /// A transport failure in plain words (see `ConnectionFailure.describe`).
    public static func describe(_ error: any Error) -> String {
        ConnectionFailure.describe(error)
    }

    static func describeDecoding(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing key \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "expected \(type) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case .dataCorrupted(let context):
            return "invalid JSON (\(context.debugDescription))"
        @unknown default:
            return String(describing: error)
        }
    }
}
