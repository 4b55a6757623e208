import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ReceptionCore

extension HTTPTransport {
    /// Opens `GET path` (or `method` with a JSON `body`, as OpenAI-compatible servers stream
    /// answers to a POST) as a Server-Sent Events stream and yields its frames (comments too,
    /// so callers notice keepalives). `lastEventID` resumes where an earlier stream stopped.
    ///
    /// A refusal the `retry` policy covers (429, 503) is sent again after the server's
    /// `Retry-After` or a backoff; `onRetry` hears of each wait first, so a front end can say
    /// why the answer is late. No frame has been read at that point, so nothing repeats.
    ///
    /// A non-200 answer throws `BackendError.http` with the server's words before any frame; a
    /// body that is not `text/event-stream`, a broken frame or a stream cut in the middle of
    /// a frame is a `BackendError.protocolViolation`; a lost connection is
    /// `BackendError.unreachable`. There is no overall deadline: a stream lasts as long as its
    /// task, and silence is bounded by the read timeout. Cancelling the consumer closes it.
    ///
    /// With a lenient `parser` (`SSEParser.Leniency`), a frame still waiting for its blank line
    /// when the server ends the response cleanly is delivered; one cut by a broken connection
    /// never is. `requestID` is sent as `X-Request-Id` (a new one when nil), so a caller can
    /// name it in what it reports.
    public func eventStream(_ path: String, method: HTTPMethod = .GET, query: [(String, String)] = [], body: Data? = nil,
                            auth: HTTPAuthScope = .none, lastEventID: String? = nil, requestID: String? = nil,
                            parser: SSEParser = SSEParser(),
                            retry: HTTPRetryPolicy = .never,
                            onRetry: @escaping @Sendable (HTTPRetryNotice) -> Void = { _ in }) -> AsyncThrowingStream<SSEFrame, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.readEvents(path, method: method, query: query, body: body, auth: auth, lastEventID: lastEventID,
                                              requestID: requestID ?? UUID().uuidString.lowercased(), parser: parser, retry: retry, onRetry: onRetry) {
                        continuation.yield($0)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func readEvents(_ path: String, method: HTTPMethod, query: [(String, String)], body: Data?, auth: HTTPAuthScope,
                            lastEventID: String?, requestID: String, parser: SSEParser, retry: HTTPRetryPolicy,
                            onRetry: @Sendable (HTTPRetryNotice) -> Void, onFrame: (SSEFrame) -> Void) async throws {
        var attempt = 1
        var refreshed = false
        var response: HTTPClientResponse
        while true {
            var request = try await makeRequest(method, path, query: query, body: body, auth: auth, requestID: requestID)
            request.headers.replaceOrAdd(name: "Accept", value: "text/event-stream")
            if let lastEventID { request.headers.replaceOrAdd(name: "Last-Event-ID", value: lastEventID) }
            do {
                response = try await client.execute(request, timeout: .hours(24))
            } catch {
                throw failure(error, path: path)
            }
            if response.status == .ok { break }
            let status = Int(response.status.code)
            let errorBody = CredentialEcho.masked((try? await response.body.collect(upTo: 1 << 20)).map { Data($0.readableBytesView) } ?? Data(), of: request)
            let refusal = Self.refusal(status: status, location: response.headers.first(name: "location"), body: errorBody,
                                       contentType: response.headers.first(name: "content-type"))
            guard case .http(_, let detail) = refusal else { throw refusal }
            if status == 401, auth != .none, !refreshed, try await configuration.authentication.refreshAfterUnauthorized() {
                refreshed = true
                continue
            }
            guard let delay = retry.delay(afterAttempt: attempt, status: status, retryAfter: response.headers.first(name: "retry-after")) else {
                if let wait = response.headers.first(name: "retry-after"), retry.retriedStatuses.contains(status),
                   let seconds = HTTPRetryPolicy.seconds(retryAfter: wait) {
                    throw BackendError.http(status: status, detail: "\(detail) (the server asks to wait \(Int(saturating: seconds.rounded(.up))) s before trying again)")
                }
                throw BackendError.http(status: status, detail: detail)
            }
            attempt += 1
            onRetry(HTTPRetryNotice(status: status, detail: String(detail.prefix(200)), delay: delay,
                                    nextAttempt: attempt, maxAttempts: retry.maxAttempts))
            try await Task.sleep(for: delay)
        }
        if let type = response.headers.first(name: "content-type"), !type.lowercased().hasPrefix("text/event-stream") {
            throw BackendError.protocolViolation("\(method.rawValue) \(path) answered \(type), not text/event-stream")
        }
        var parser = parser
        // Every byte resets the read timeout, so a server that starts a frame and then drips it
        // a byte at a time would hold the answer for ever: a frame gets the read timeout to
        // arrive whole (the engines' frames are a few kilobytes, sent at once).
        var frameSince: ContinuousClock.Instant?
        do {
            for try await chunk in response.body {
                let frames = try parser.feed(chunk.readableBytesView)
                for frame in frames { onFrame(frame) }
                guard parser.isMidFrame else { frameSince = nil; continue }
                let now = ContinuousClock.now
                guard let since = frameSince, frames.isEmpty else { frameSince = now; continue }
                if since.duration(to: now) > configuration.readTimeout {
                    throw BackendError.timedOut(url: RedactedURL.display(configuration.baseURL + path),
                                                reason: "an event began \(Int(since.duration(to: now).components.seconds)) s ago and has trickled in since without ending")
                }
            }
        } catch let broken as SSEParser.Failure {
            throw BackendError.protocolViolation(broken.description)
        } catch {
            throw failure(error, path: path)
        }
        let (last, incomplete) = parser.finishDispatching()
        if let last { onFrame(last) }
        if incomplete {
            throw BackendError.protocolViolation("\(method.rawValue) \(path) closed in the middle of an SSE frame")
        }
    }
}
