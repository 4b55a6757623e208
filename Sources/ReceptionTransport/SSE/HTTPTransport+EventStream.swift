import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ReceptionCore

extension HTTPTransport {
    /// Opens `GET path` as a Server-Sent Events stream and yields its frames (comments too, so
    /// callers notice keepalives). `lastEventID` resumes where an earlier stream stopped.
    ///
    /// A non-200 answer throws `BackendError.http` with the server's words before any frame; a
    /// body that is not `text/event-stream`, a broken frame or a stream cut in the middle of
    /// a frame is a `BackendError.protocolViolation`; a lost connection is
    /// `BackendError.unreachable`. There is no overall deadline: a stream lasts as long as its
    /// task, and silence is bounded by the read timeout. Cancelling the consumer closes it.
    public func eventStream(_ path: String, query: [(String, String)] = [], auth: HTTPAuthScope = .none,
                            lastEventID: String? = nil, parser: SSEParser = SSEParser()) -> AsyncThrowingStream<SSEFrame, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.readEvents(path, query: query, auth: auth, lastEventID: lastEventID, parser: parser) {
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

    private func readEvents(_ path: String, query: [(String, String)], auth: HTTPAuthScope, lastEventID: String?,
                            parser: SSEParser, onFrame: (SSEFrame) -> Void) async throws {
        var request = try await makeRequest(.GET, path, query: query, auth: auth, requestID: UUID().uuidString.lowercased())
        request.headers.replaceOrAdd(name: "Accept", value: "text/event-stream")
        if let lastEventID { request.headers.replaceOrAdd(name: "Last-Event-ID", value: lastEventID) }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .hours(24))
        } catch {
            throw failure(error, path: path)
        }
        guard response.status == .ok else {
            let body = (try? await response.body.collect(upTo: 1 << 20)).map { Data($0.readableBytesView) } ?? Data()
            throw BackendError.http(status: Int(response.status.code),
                                    detail: Self.errorDetail(status: Int(response.status.code), body: body,
                                                             contentType: response.headers.first(name: "content-type")))
        }
        if let type = response.headers.first(name: "content-type"), !type.lowercased().hasPrefix("text/event-stream") {
            throw BackendError.protocolViolation("GET \(path) answered \(type), not text/event-stream")
        }
        var parser = parser
        do {
            for try await chunk in response.body {
                for frame in try parser.feed(chunk.readableBytesView) { onFrame(frame) }
            }
        } catch let broken as SSEParser.Failure {
            throw BackendError.protocolViolation(broken.description)
        } catch {
            throw failure(error, path: path)
        }
        if parser.finish() {
            throw BackendError.protocolViolation("GET \(path) closed in the middle of an SSE frame")
        }
    }
}
