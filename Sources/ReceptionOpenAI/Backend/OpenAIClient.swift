import Foundation
import ReceptionCore
import ReceptionTransport

/// The calls Reception makes to an OpenAI-compatible server, over the shared HTTP transport
/// (Bearer key to this base URL only, no redirects followed, bounded bodies and silences).
public struct OpenAIClient: Sendable {
    public let configuration: OpenAIConfiguration
    let transport: HTTPTransport

    public init(configuration: OpenAIConfiguration) {
        self.configuration = configuration
        let key = configuration.apiKey
        let authentication: any HTTPAuthentication = key == nil ? NoAuthentication() : BearerAuthentication(token: { key })
        transport = HTTPTransport(configuration: HTTPTransportConfiguration(
            baseURL: configuration.baseURL, authentication: authentication,
            requestTimeout: .seconds(30), readTimeout: configuration.idleTimeout))
    }

    public func shutdown() async { await transport.shutdown() }

    /// `GET /models`: what the server offers (for `/model` and its completion).
    public func models() async throws -> [ModelList.Model] {
        do {
            return try await transport.json(ModelList.self, .GET, "/models", auth: .required).data
        } catch {
            throw explain(error)
        }
    }

    /// `POST /chat/completions` with `stream: true`, as SSE frames. Refusals for load (429,
    /// 503) are retried after the server's `Retry-After` or a backoff, told to `onRetry` first.
    func streamChat(_ body: ChatCompletionRequest, onRetry: @escaping @Sendable (HTTPRetryNotice) -> Void) throws -> AsyncThrowingStream<SSEFrame, any Error> {
        let data = try Wire.encode(body)
        let retry = HTTPRetryPolicy(maxAttempts: configuration.retry.maxAttempts, baseDelay: configuration.retry.baseDelay,
                                    maxDelay: configuration.retry.maxDelay)
        // Answers are read token by token; the parser's event limit bounds one chunk, the
        // backend bounds the whole answer.
        return transport.eventStream("/chat/completions", method: .POST, body: data, auth: .required,
                                     parser: SSEParser(maxLineBytes: 1 << 20, maxEventBytes: 1 << 20), retry: retry, onRetry: onRetry)
    }

    /// An HTTP error in words a person can act on: the server's own message (its first
    /// paragraph: llama-cpp-python puts a Python traceback after it), plus what to do for the
    /// statuses that have an obvious remedy. The key itself never appears.
    public func explain(_ error: any Error) -> any Error {
        guard case BackendError.http(let status, let detail) = error else { return error }
        var words = Self.firstParagraph(detail)
        let advice: String? = switch status {
        case 401: configuration.apiKey == nil
            ? "No API key was sent: the built-in openai backend reads OPENAI_API_KEY; a profile of your own names its key with api_key_env or api_key_file."
            : "The server refused the API key from \(configuration.apiKeySource ?? "the configuration")."
        case 403: "The key is not allowed to do this."
        case 404 where words.localizedCaseInsensitiveContains("model"): "/model lists the models this server offers."
        case 404: "Is \(RedactedURL.display(configuration.baseURL)) the API's base URL (usually ending in /v1)?"
        case 429: "The server keeps refusing for load or quota; try again later."
        default: nil
        }
        if let advice {
            // The server's words, then ours as a sentence of their own.
            if let last = words.last, !".!?".contains(last) { words += "." }
            words += " " + advice
        }
        return BackendError.http(status: status, detail: words)
    }

    static func firstParagraph(_ text: String) -> String {
        let paragraph = text.components(separatedBy: "\n\n").first ?? text
        let line = paragraph.replacingOccurrences(of: "\n", with: " ").trimmingCharacters(in: .whitespaces)
        return line.count > 400 ? String(line.prefix(400)) + "…" : line
    }
}
