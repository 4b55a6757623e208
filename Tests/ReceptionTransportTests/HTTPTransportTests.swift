import Foundation
import HTTPTypes
import Hummingbird
import ReceptionCore
import ReceptionTransport
import Synchronization
import ReceptionTestSupport
import Testing

/// A small server on loopback for what every adapter's transport must get right: credentials,
/// a retry after a refreshed token, request ids, size limits and SSE resume.
final class SeenIDs: Sendable {
    private let ids = Mutex<[String]>([])
    func append(_ id: String) { ids.withLock { $0.append(id) } }
    var all: [String] { ids.withLock { $0 } }
}

private func withServer(_ body: @escaping @Sendable (String, SeenIDs) async throws -> Void) async throws {
    let seenIDs = SeenIDs()
    let router = Router()
    router.get("secure") { request, _ -> Response in
        seenIDs.append(request.headers[HTTPField.Name("X-Request-Id")!] ?? "")
        guard request.headers[.authorization] == "Bearer fresh" else {
            return Response(status: .unauthorized, headers: [.contentType: "application/json"],
                            body: .init(byteBuffer: ByteBuffer(string: #"{"detail":"Token expired"}"#)))
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"ok":true}"#)))
    }
    router.get("slow") { _, _ -> Response in
        try await Task.sleep(for: .seconds(5))
        return Response(status: .ok)
    }
    router.get("drip") { _, _ -> Response in
        // Headers at once, then one byte a second: only a deadline on the body ends it.
        Response(status: .ok, headers: [.contentLength: "60"], body: ResponseBody { writer in
            for _ in 0..<60 {
                try await writer.write(ByteBuffer(string: "x"))
                try await Task.sleep(for: .seconds(1))
            }
            try await writer.finish(nil)
        })
    }
    router.get("drip-events") { _, _ -> Response in
        // A whole event, then one that never ends: a byte every 0.3 s for two minutes.
        Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "data: first\n\ndata: {"))
            for _ in 0..<400 {
                try await Task.sleep(for: .milliseconds(300))
                try await writer.write(ByteBuffer(string: "x"))
            }
            try await writer.finish(nil)
        })
    }
    router.get("keepalive-events") { _, _ -> Response in
        // Slow but whole: a keepalive every 0.5 s for 15 s (past the test's 10 s limit), then the answer.
        Response(status: .ok, headers: [.contentType: "text/event-stream"], body: ResponseBody { writer in
            for _ in 0..<30 {
                try await writer.write(ByteBuffer(string: ": ping\n\n"))
                try await Task.sleep(for: .milliseconds(500))
            }
            try await writer.write(ByteBuffer(string: "data: done\n\n"))
            try await writer.finish(nil)
        })
    }
    router.get("big") { _, _ -> Response in
        Response(status: .ok, body: .init(byteBuffer: ByteBuffer(repeating: 0x41, count: 300_000)))
    }
    router.get("events") { request, _ -> Response in
        let last = request.headers[HTTPField.Name("Last-Event-ID")!] ?? "none"
        let text = ": hello\n\nid: 8\ndata: resumed after \(last)\n\n"
        return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
    let refusals = Mutex(0)
    router.post("busy-events") { request, _ -> Response in
        // Refused twice (once with a wait, once without), then the posted body comes back as an event.
        let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
        let count = refusals.withLock { $0 += 1; return $0 }
        if count == 1 { return Response(status: .tooManyRequests, headers: [.retryAfter: "0"]) }
        if count == 2 { return Response(status: .serviceUnavailable) }
        return Response(status: .ok, headers: [.contentType: "text/event-stream"], body: .init(byteBuffer: ByteBuffer(string: "data: \(body)\n\n")))
    }
    let gatewayErrors = Mutex(0)
    router.get("flaky") { _, _ -> Response in
        // A gateway that fails twice, then lets the call through.
        let count = gatewayErrors.withLock { $0 += 1; return $0 }
        return count <= 2 ? Response(status: .badGateway) : Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "\(count)")))
    }
    let postErrors = Mutex(0)
    router.post("flaky-post") { _, _ -> Response in
        postErrors.withLock { $0 += 1 }
        return Response(status: .serviceUnavailable)
    }
    router.get("post-count") { _, _ -> Response in
        Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "\(postErrors.withLock { $0 })")))
    }
    router.post("very-busy") { _, _ -> Response in
        Response(status: .tooManyRequests, headers: [.retryAfter: "3600", .contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"message":"Quota exceeded"}}"#)))
    }
    router.post("absurdly-busy") { _, _ -> Response in
        Response(status: .tooManyRequests, headers: [.retryAfter: "1e300", .contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"message":"Quota exceeded"}}"#)))
    }
    try await serving(router) { port in try await body("http://127.0.0.1:\(port)", seenIDs) }
}

private final class TokenStore: Sendable {
    let token = Mutex("stale")
    let refreshes = Mutex(0)
}

@Suite("Shared HTTP transport")
struct HTTPTransportTests {
    @Test func aRefreshedBearerTokenIsRetriedOnceAndEveryCallHasItsOwnRequestID() async throws {
        try await withServer { base, seenIDs in
            let store = TokenStore()
            let auth = BearerAuthentication(token: { store.token.withLock { $0 } }, refresh: {
                store.refreshes.withLock { $0 += 1 }
                store.token.withLock { $0 = "fresh" }
                return true
            })
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base + "/", authentication: auth))
            let answer = try await transport.json(JSONValue.self, .GET, "/secure", auth: .required)
            #expect(answer["ok"] == .bool(true))
            #expect(store.refreshes.withLock { $0 } == 1)
            let ids = seenIDs.all
            #expect(ids.count == 2 && Set(ids).count == 2 && ids.allSatisfy { UUID(uuidString: $0) != nil }, "\(ids)")
            await transport.shutdown()
        }
    }

    @Test func aTokenThatCannotBeRefreshedIsA401WithTheServersWords() async throws {
        try await withServer { base, _ in
            let auth = BearerAuthentication(token: { "stale" })
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base, authentication: auth))
            await #expect(throws: BackendError.http(status: 401, detail: "Token expired")) {
                _ = try await transport.json(JSONValue.self, .GET, "/secure", auth: .required)
            }
            await transport.shutdown()
        }
    }

    @Test func aBodyOverTheLimitIsAnErrorNotMemory() async throws {
        try await withServer { base, _ in
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base, maxBodyBytes: 100_000))
            await #expect(throws: BackendError.self) { _ = try await transport.send(.GET, "/big", auth: .none) }
            let roomy = keptTransport(HTTPTransportConfiguration(baseURL: base, maxBodyBytes: 1_000_000))
            let body = try await roomy.send(.GET, "/big", auth: .none).body
            #expect(body.count == 300_000)
            await transport.shutdown()
            await roomy.shutdown()
        }
    }

    @Test func anEventStreamSendsLastEventIDAndYieldsCommentsAndEvents() async throws {
        try await withServer { base, _ in
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base))
            var frames: [SSEFrame] = []
            for try await frame in transport.eventStream("/events", lastEventID: "41") { frames.append(frame) }
            #expect(frames == [.comment("hello"), .event(data: "resumed after 41", name: nil, id: "8")])
            await #expect(throws: BackendError.self, "not an event stream") {
                for try await _ in transport.eventStream("/secure") {}
            }
            await transport.shutdown()
        }
    }

    @Test func aPostedEventStreamIsRetriedWhenRefusedForLoadAndSaysSoFirst() async throws {
        try await withServer { base, _ in
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base))
            let notices = Mutex<[String]>([])
            var frames: [SSEFrame] = []
            let stream = transport.eventStream("/busy-events", method: .POST, body: Data(#"{"q":1}"#.utf8),
                                               retry: HTTPRetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10)),
                                               onRetry: { notice in notices.withLock { $0.append(notice.message) } })
            for try await frame in stream { frames.append(frame) }
            #expect(frames == [.event(data: #"{"q":1}"#, name: nil, id: nil)], "the same body was sent again")
            let heard = notices.withLock { $0 }
            #expect(heard.count == 2)
            #expect(heard.first?.hasPrefix("The server is busy (HTTP 429: Too Many Requests); trying again in 0.0 s (attempt 2 of 3)") == true, "\(heard)")
            #expect(heard.last?.contains("HTTP 503") == true)
            await transport.shutdown()
        }
    }

    @Test func aRefusalAskingForALongWaitIsReportedWithTheWaitNotWaitedOut() async throws {
        try await withServer { base, _ in
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base))
            let start = ContinuousClock.now
            do {
                for try await _ in transport.eventStream("/very-busy", method: .POST, body: Data("{}".utf8), retry: HTTPRetryPolicy()) {}
                Issue.record("a refusal must end the stream")
            } catch {
                #expect("\(error)" == "HTTP 429: Quota exceeded (the server asks to wait 3600 s before trying again)")
            }
            // Not a speed bound: waiting it out would take an hour.
            #expect(start.duration(to: .now) < .seconds(60))
            // A wait no Int holds in milliseconds is reported too (converting it trapped).
            do {
                for try await _ in transport.eventStream("/absurdly-busy", method: .POST, body: Data("{}".utf8), retry: HTTPRetryPolicy()) {}
                Issue.record("a refusal must end the stream")
            } catch {
                #expect("\(error)".hasPrefix("HTTP 429: Quota exceeded (the server asks to wait 9223372036854775807 s"), "\(error)")
            }
            await transport.shutdown()
        }
    }

    /// An idempotent call a gateway refused is sent again; one that changes
    /// something never is; a refused connection fails at once.
    @Test func idempotentCallsAreRetriedAfterGatewayErrorsAndPostsNever() async throws {
        try await withServer { base, _ in
            var configuration = HTTPTransportConfiguration(baseURL: base)
            configuration.retry = HTTPRetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), retriedStatuses: [502, 503])
            let transport = keptTransport(configuration)
            let got = try await transport.send(.GET, "/flaky", auth: .none)
            #expect(got.status == 200 && String(decoding: got.body, as: UTF8.self) == "3", "third attempt")
            let posted = try await transport.send(.POST, "/flaky-post", body: Data("{}".utf8), auth: .none)
            #expect(posted.status == 503)
            let count = try await transport.send(.GET, "/post-count", auth: .none)
            #expect(String(decoding: count.body, as: UTF8.self) == "1", "a POST is sent once")
            await transport.shutdown()
        }
        // A 120 s first retry delay: a retried refusal would take at least that long, so the
        // bound can be wide enough for a loaded machine and still tell the two apart.
        var nowhereConfiguration = HTTPTransportConfiguration(baseURL: refusingLoopbackURL())
        nowhereConfiguration.retry.baseDelay = .seconds(120)
        nowhereConfiguration.retry.maxDelay = .seconds(120)
        let nowhere = keptTransport(nowhereConfiguration)
        let start = ContinuousClock.now
        await #expect(throws: BackendError.self) { _ = try await nowhere.send(.GET, "/x", auth: .none) }
        #expect(start.duration(to: .now) < .seconds(60), "refused at once, not retried")
        await nowhere.shutdown()
    }

    @Test func aSlowServerIsATimeoutNotUnreachable() async throws {
        try await withServer { base, _ in
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base, requestTimeout: .milliseconds(500)))
            do {
                _ = try await transport.send(.GET, "/slow", auth: .none)
                Issue.record("a 5 s answer must time out after 0.5 s")
            } catch let error as BackendError {
                guard case .timedOut = error else { Issue.record("expected a timeout, got \(error)"); return }
                #expect(error.description.hasPrefix("No answer from \(base)/slow in time"), "\(error)")
            }
            await transport.shutdown()
        }
    }

    @Test func aBodyThatDripsTimesOutLikeASlowHead() async throws {
        try await withServer { base, _ in
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base, requestTimeout: .seconds(2)))
            let started = ContinuousClock.now
            do {
                _ = try await transport.send(.GET, "/drip", auth: .none)
                Issue.record("a body dripping for 60 s must time out after 2 s")
            } catch let error as BackendError {
                guard case .timedOut = error else { Issue.record("expected a timeout, got \(error)"); return }
            }
            #expect(started.duration(to: .now) < .seconds(30), "timed out, not read for the whole 60 s")
            await transport.shutdown()
        }
    }

    /// Every byte resets the read timeout, so a dripped event would hold an answer for ever:
    /// an event gets the read timeout to arrive whole. Keepalives, slow but whole, are not that.
    @Test func anEventThatTricklesInEndsAtTheReadTimeoutButKeepalivesDoNot() async throws {
        try await withServer { base, _ in
            // 10 s, not less: the limit also bounds the first bytes, slow when the suite starts.
            let transport = keptTransport(HTTPTransportConfiguration(baseURL: base, readTimeout: .seconds(10)))
            let started = ContinuousClock.now
            var frames: [SSEFrame] = []
            do {
                for try await frame in transport.eventStream("/drip-events") { frames.append(frame) }
                Issue.record("an event dripped for two minutes must end the stream")
            } catch let error as BackendError {
                guard case .timedOut = error else { Issue.record("expected a timeout, got \(error)"); return }
                // (A machine too loaded to send the first event in 10 s ends with the plain read timeout.)
                if !frames.isEmpty {
                    #expect(error.description.hasPrefix("No answer from \(base)/drip-events in time: an event began"), "\(error)")
                }
            }
            #expect(frames.allSatisfy { $0 == .event(data: "first", name: nil, id: nil) }, "the whole event before it is kept: \(frames)")
            #expect(started.duration(to: .now) < .seconds(100), "not the whole two minutes")
            var slow: [SSEFrame] = []
            for try await frame in transport.eventStream("/keepalive-events") { slow.append(frame) }
            #expect(slow.last == .event(data: "done", name: nil, id: nil) && slow.count == 31, "\(slow)")
            await transport.shutdown()
        }
    }

    @Test func anUnreachableServerSaysWhere() async throws {
        let transport = keptTransport(HTTPTransportConfiguration(baseURL: refusingLoopbackURL(), connectTimeout: .seconds(2)))
        do {
            _ = try await transport.send(.GET, "/anything", auth: .none)
            Issue.record("nothing listens on port \(refusingLoopbackPort)")
        } catch let error as BackendError {
            guard case .unreachable(let url, let reason) = error else { Issue.record("\(error)"); return }
            #expect(url == refusingLoopbackURL() + "/anything")
            #expect(reason == "connection refused (nothing listens there)", "plain words, not NIO's: \(reason)")
        }
        await transport.shutdown()
    }
}

@Suite("Shared HTTP transport: nothing leaked")
struct HTTPTransportSecretTests {
    @Test func aRedirectIsReportedAndNeverFollowedWithTheKey() async throws {
        let captured = SeenIDs()
        let router = Router()
        router.get("moved") { _, _ -> Response in
            Response(status: .found, headers: [.location: "http://user:hunter2@127.0.0.1:1/capture"])
        }
        router.get("capture") { request, _ -> Response in
            captured.append(request.headers[HTTPField.Name("X-Api-Key")!] ?? "no key")
            return Response(status: .ok)
        }
        try await serving(router) { port in
            let transport = keptTransport(HTTPTransportConfiguration(
                baseURL: "http://127.0.0.1:\(port)", authentication: HeaderAuthentication([("X-Api-Key", "sk-secret-key")])))
            do {
                _ = try await transport.json(JSONValue.self, .GET, "/moved", auth: .required)
                Issue.record("a redirect must not be followed")
            } catch let error as BackendError {
                let text = error.description
                #expect(text.contains("redirects to http://user:•••@127.0.0.1:1/capture") && text.contains("does not follow redirects"), "\(text)")
                #expect(!text.contains("hunter2") && !text.contains("sk-secret-key"))
            }
            // An event stream (OpenAI-compatible answers) says the same, not a bare "307".
            do {
                for try await _ in transport.eventStream("/moved", auth: .required) {}
                Issue.record("a redirect must not be followed")
            } catch let error as BackendError {
                #expect(error.description.contains("does not follow redirects"), "\(error)")
            }
            #expect(captured.all.isEmpty, "the key went nowhere")
            await transport.shutdown()
        }
    }

    @Test func passwordsInURLsAreMaskedWhereverTheyAreShown() {
        #expect(RedactedURL.display("https://matt:s3cret@loop.example.com/api?x=1") == "https://matt:•••@loop.example.com/api?x=1")
        #expect(RedactedURL.display("https://token@loop.example.com") == "https://•••@loop.example.com")
        #expect(RedactedURL.display("http://127.0.0.1:8765/a@b") == "http://127.0.0.1:8765/a@b", "an @ in the path is no credential")
        #expect(ProfileValue.string("https://a:b@x.example").display == "https://a:•••@x.example")
    }

    @Test func aKeyWithAControlCharacterIsRefusedByNameNeverShown() throws {
        let profile = BackendProfile(name: "p", kind: "k", values: ["api_key": .secretFromEnvironment("BAD_KEY")])
        let environment = PluginEnvironment.standard(["HOME": "/nonexistent", "BAD_KEY": "sk-abc\ndef\u{1B}[2J"])
        do {
            _ = try profile.secret("api_key", environment: environment)
            Issue.record("a key with a newline inside must be refused")
        } catch {
            let text = "\(error)"
            #expect(text.contains("api_key (from $BAD_KEY) holds a character that cannot be sent"), "\(text)")
            #expect(!text.contains("sk-abc") && !text.contains("def"), "\(text)")
        }
    }
}
