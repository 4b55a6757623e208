import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ReceptionCore
import ReceptionTransport

/// The two calls of a Loomi recipe agent over the shared HTTP transport (Bearer key to this
/// base URL only, no redirects followed, bounded bodies and silences).
public struct LoomiClient: Sendable {
    public let configuration: LoomiConfiguration
    let transport: HTTPTransport
    /// The largest recipe data answer read; a larger one is an error, not a crash.
    static let maxRecipesBodyBytes = 8 << 20

    public init(configuration: LoomiConfiguration) {
        self.configuration = configuration
        let key = configuration.apiKey
        let authentication: any HTTPAuthentication = key == nil ? NoAuthentication() : BearerAuthentication(token: { key })
        transport = HTTPTransport(configuration: HTTPTransportConfiguration(
            baseURL: configuration.baseURL, authentication: authentication,
            requestTimeout: configuration.decisionTimeout, readTimeout: configuration.recipesTimeout))
    }

    public func shutdown() async { await transport.shutdown() }

    /// `POST /agent/find-recipes`: the decision, and the answer as sent (for `--json`).
    public func findRecipes(_ request: FindRecipesRequest) async throws -> (decision: AgentDecision, raw: JSONValue) {
        do {
            let response = try await transport.send(.POST, "/agent/find-recipes", body: try Wire.encode(request), auth: .optional)
            try HTTPTransport.check(response)
            let decision = try HTTPTransport.decode(AgentDecision.self, from: response.body, what: "POST /agent/find-recipes")
            let raw = (try? Wire.decode(JSONValue.self, from: response.body)) ?? .null
            return (decision, raw)
        } catch {
            throw explain(error)
        }
    }

    /// What a recipe data answer said besides its recipes.
    public struct RecipesAnswer: Sendable, Hashable {
        /// Ids the server says it does not have (`metadata.missing_ids` upstream).
        public var missingIDs: [String] = []
        /// `{"error": "Session not found", "suggestion": …}`: the service lost the search's session.
        public var error: String?
        public var suggestion: String?
    }

    /// `POST /recipes/by-ids`, read as it arrives: `onRecipe` gets each record as soon as it is
    /// complete, before the rest of the answer is read.
    public func recipes(_ body: RecipesByIDsRequest, onRecipe: @escaping @Sendable (RecipeRecord) -> Void) async throws -> RecipesAnswer {
        let path = "/recipes/by-ids"
        let transport = transport
        let timeout = configuration.recipesTimeout
        do {
            return try await withThrowingTaskGroup(of: RecipesAnswer?.self) { group in
                group.addTask {
                    let request = try await transport.makeRequest(.POST, path, body: try Wire.encode(body), auth: .optional,
                                                                  requestID: UUID().uuidString.lowercased())
                    let response = try await transport.client.execute(request, timeout: .nanoseconds(timeout.nanosecondsValue))
                    let status = Int(response.status.code)
                    guard status == 200 else {
                        let errorBody = CredentialEcho.masked((try? await response.body.collect(upTo: 1 << 20)).map { Data($0.readableBytesView) } ?? Data(), of: request)
                        throw Self.refusal(status: status, location: response.headers.first(name: "location"), body: errorBody,
                                           contentType: response.headers.first(name: "content-type"))
                    }
                    return try await Self.read(response.body, onRecipe: onRecipe)
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else {
                    throw BackendError.timedOut(url: RedactedURL.display(transport.configuration.baseURL + path),
                                                reason: "the recipe data did not arrive in full within \(timeout)")
                }
                return answer
            }
        } catch {
            throw explain(failure(error, path: path))
        }
    }

    /// Reads the body chunk by chunk, handing out each recipe as its record completes.
    static func read(_ body: HTTPClientResponse.Body, onRecipe: @Sendable (RecipeRecord) -> Void) async throws -> RecipesAnswer {
        var scanner = RecipeArrayScanner()
        var whole = Data()
        do {
            for try await chunk in body {
                whole.append(contentsOf: chunk.readableBytesView)
                guard whole.count <= maxRecipesBodyBytes else {
                    throw BackendError.protocolViolation("the recipe data answer is larger than \(maxRecipesBodyBytes) bytes")
                }
                for element in try scanner.feed(chunk.readableBytesView) {
                    guard let value = try? Wire.decode(JSONValue.self, from: Data(element)) else {
                        throw BackendError.protocolViolation("a recipe in the answer is not JSON: \(String(decoding: element.prefix(120), as: UTF8.self))")
                    }
                    if let record = RecipeRecord(value) { onRecipe(record) }
                }
            }
        } catch let broken as RecipeArrayScanner.Failure {
            throw BackendError.protocolViolation("POST /recipes/by-ids: \(broken.description)")
        }
        guard let value = try? Wire.decode(JSONValue.self, from: whole), case .object = value else {
            // A body that ends inside its JSON is a connection lost mid-answer, as the
            // transport reports a lost connection; anything else breaks the contract.
            if scanner.isInsideValue {
                throw CutShort()
            }
            throw BackendError.protocolViolation("POST /recipes/by-ids answered something that is not a JSON object: \(String(decoding: whole.prefix(120), as: UTF8.self))")
        }
        var answer = RecipesAnswer()
        if case .array(let ids)? = value["metadata"]?["missing_ids"] {
            answer.missingIDs = ids.prefix(200).compactMap { $0.stringValue ?? $0.intValue.map(String.init) }
        }
        answer.error = value["error"]?.stringValue.map { RecipeRecord.clip($0, to: 300) }
        answer.suggestion = value["suggestion"]?.stringValue.map { RecipeRecord.clip($0, to: 300) }
        return answer
    }

    /// A body that ended inside its JSON.
    struct CutShort: Error {}

    /// An answer that is not a success, in words (the transport's own mapping is not public).
    static func refusal(status: Int, location: String?, body: Data, contentType: String?) -> BackendError {
        if (300..<400).contains(status), let location {
            return .http(status: status, detail: "the server redirects to \(RedactedURL.display(String(location.prefix(300)))); Reception does not follow redirects, so no key goes to another address. If the server moved, change the backend's url.")
        }
        return .http(status: status, detail: HTTPTransport.errorDetail(status: status, body: body, contentType: contentType))
    }

    /// A call's error in Reception's terms: cancellation stays cancellation, a slow server is
    /// a timeout, anything else says why the server could not be reached.
    func failure(_ error: any Error, path: String) -> any Error {
        if error is BackendError { return error }
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        let url = RedactedURL.display(configuration.baseURL + path)
        if error is CutShort { return BackendError.unreachable(url: url, reason: "the connection closed before the answer was complete") }
        if let error = error as? HTTPClientError, [.deadlineExceeded, .readTimeout].contains(error) {
            return BackendError.timedOut(url: url, reason: HTTPTransport.describe(error))
        }
        return BackendError.unreachable(url: url, reason: HTTPTransport.describe(error))
    }

    /// An HTTP error with what to do for the statuses that have an obvious remedy. The key
    /// itself never appears.
    func explain(_ error: any Error) -> any Error {
        guard case BackendError.http(let status, let detail) = error else { return error }
        let words = detail.count > 400 ? String(detail.prefix(400)) + "…" : detail
        let advice: String? = switch status {
        case 401: configuration.apiKey == nil
            ? "No API key was sent: the built-in loomi backend reads LOOMI_API_KEY; a profile of your own names its key with api_key_env or api_key_file."
            : "The server refused the API key from \(configuration.apiKeySource ?? "the configuration")."
        case 403: "The key is not allowed to do this."
        case 404: "Is \(RedactedURL.display(configuration.baseURL)) the recipe agent's base URL?"
        default: nil
        }
        guard let advice else { return BackendError.http(status: status, detail: words) }
        let separator = words.last.map { ".!?".contains($0) ? " " : ". " } ?? ""
        return BackendError.http(status: status, detail: words + separator + advice)
    }
}
