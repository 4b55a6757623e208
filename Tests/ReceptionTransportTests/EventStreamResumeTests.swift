import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ReceptionCore
import ReceptionTransport
import Testing

/// An event stream from a server whose frames end with one newline, read over loopback: the
/// last frame arrives at a clean end, never after a broken connection; the caller's request
/// id and `Last-Event-ID` reach the server.
@Suite("Event streams: unterminated frames and resume")
struct EventStreamResumeTests {
    private func withServer(_ body: (String) async throws -> Void) async throws {
        let router = Router()
        router.get("runtogether") { request, _ -> Response in
            let last = Int(request.headers[HTTPField.Name("Last-Event-ID")!] ?? "0") ?? 0
            let id = request.headers[HTTPField.Name("X-Request-Id")!] ?? "?"
            let text = (last + 1...last + 3).map { "id: \($0)\nevent: tick\ndata: \(id) \($0)\n" }.joined()
            return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("cut") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "id: 1\ndata: one\nid: 2\ndata: two\n"))
                struct Broken: Error {}
                throw Broken()  // the connection drops before the response ends
            })
        }
        // The route that breaks its response on purpose makes the server log it: not shown.
        let quiet = { var logger = Logger(label: "resume-test"); logger.logLevel = .critical; return logger }()
        try await serving(router, logger: quiet) { port in try await body("http://127.0.0.1:\(port)") }
    }

    @Test func aCleanEndDeliversTheUnterminatedLastFrameAndResumesFromLastEventID() async throws {
        try await withServer { base in
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base))
            var frames: [SSEFrame] = []
            for try await frame in transport.eventStream("/runtogether", lastEventID: "4", requestID: "req-abc",
                                                         parser: SSEParser(leniency: .unterminatedFrames)) {
                frames.append(frame)
            }
            #expect(frames == [.event(data: "req-abc 5", name: "tick", id: "5"), .event(data: "req-abc 6", name: "tick", id: "6"),
                               .event(data: "req-abc 7", name: "tick", id: "7")])
            await #expect(throws: BackendError.self, "a standard parser reports the unterminated frame") {
                for try await _ in transport.eventStream("/runtogether") {}
            }
            await transport.shutdown()
        }
    }

    @Test func aBrokenConnectionNeverDeliversTheFrameItCut() async throws {
        try await withServer { base in
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base))
            var frames: [SSEFrame] = []
            await #expect(throws: (any Error).self) {
                for try await frame in transport.eventStream("/cut", parser: SSEParser(leniency: .unterminatedFrames)) {
                    frames.append(frame)
                }
            }
            #expect(frames == [.event(data: "one", name: nil, id: "1")], "the frame whose end was not seen is not delivered")
            await transport.shutdown()
        }
    }
}
