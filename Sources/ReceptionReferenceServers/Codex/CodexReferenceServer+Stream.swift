import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceptionCore

extension CodexReferenceServer {
    /// `GET …/stream?cursor=&tail_ms=` (or `Last-Event-ID`): the events after the cursor, then
    /// whatever arrives until `tail_ms` has passed, then the end of the response (a long poll).
    /// Each frame is `id:`, `event: codex.worker.event`, `data:` with the camelCase payload and,
    /// like the runtime at 562314f4e8, a single newline (no blank line) unless
    /// `unterminatedFrames` is off. Faults from the plan: a cut at a random point, the whole
    /// batch sent again (duplicates), or a 502/503 before anything (a gateway burst).
    func stream(_ worker: CodexReferenceState.Worker, query: [String: String], lastEventID: String?) async -> Response {
        var tail = options.defaultTailMS
        if let text = query["tail_ms"] {
            guard let value = Int(text), (1...120_000).contains(value) else {
                return Self.validation(["tail_ms": "The tail ms field must be between 1 and 120000."])
            }
            tail = value
        }
        var cursor: Int?
        if let text = query["cursor"] {
            guard let value = Int(text), value >= 0 else { return Self.validation(["cursor": "The cursor field must be at least 0."]) }
            cursor = value
        }
        if let lastEventID {
            guard let value = Int(lastEventID.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                return Self.runtimeError(400, "invalid_request", "Last-Event-ID must be a non-negative integer")
            }
            if let cursor, cursor != value { return Self.runtimeError(400, "invalid_request", "cursor query and Last-Event-ID must match") }
            cursor = value
        }
        if let status = await state.takeGatewayError() {
            return Self.runtimeError(status, status == 502 ? "bad_gateway" : "service_unavailable", "the Codex runtime is restarting")
        }
        let latest = await state.latestSeq(worker.id)
        let start = cursor ?? latest
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
        if let garbage = await state.takeGarbage() { return Self.garbage(garbage, headers: headers) }
        guard await state.events(worker.id, after: start, limit: 1) != nil else {
            if options.staleAsStatus { return Self.runtimeError(410, "stale_cursor", "cursor is older than retention floor") }
            // Laravel has already answered 200; it retries the runtime, then says so in a frame.
            let frame = "event: error\ndata: {\"error\":{\"code\":\"runtime_codex_stream_failed\",\"message\":\"runtime codex stream returned HTTP 410\"}}\n\n"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: frame)))
        }
        let plan = await state.planStream()
        let state = state
        let terminator = options.unterminatedFrames ? "\n" : "\n\n"
        let deadline = ContinuousClock.now + .milliseconds(tail)
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            var position = start
            var written: [String] = []
            var replayed = false
            while true {
                let batch = await state.events(worker.id, after: position) ?? []
                for event in batch {
                    let payload = JSONValue.object([
                        "workerId": .string(worker.id), "seq": .number(Double(event.seq)), "eventType": .string(event.type),
                        "payload": event.payload, "occurredAt": .string(event.occurredAt),
                    ])
                    let frame = "id: \(event.seq)\nevent: codex.worker.event\ndata: \(Wire.jsonString(payload))\(terminator)"
                    if let cut = plan.cut, written.count == cut.frames {
                        // Cut: part of this frame (perhaps none of it), then the connection breaks.
                        let bytes = Array(frame.utf8)
                        try await writer.write(ByteBuffer(bytes: bytes.prefix(min(cut.bytes, bytes.count - 1))))
                        await state.didCut()
                        throw CancellationError()
                    }
                    await state.didWriteFrame()
                    try await writer.write(ByteBuffer(string: frame))
                    written.append(frame)
                    position = event.seq
                }
                if plan.replay, !replayed, !written.isEmpty {
                    // The proxy retried the GET with the same cursor: everything again.
                    replayed = true
                    await state.didReplay()
                    for frame in written { try await writer.write(ByteBuffer(string: frame)) }
                }
                if ContinuousClock.now >= deadline { break }
                try await Task.sleep(for: min(.milliseconds(20), deadline - ContinuousClock.now))
            }
            await state.didEndStream()
            try await writer.finish(nil)
        })
    }
}

extension CodexReferenceServer {
    /// A stream answered with garbage (`garbageStreams`), no event id, then its end.
    static func garbage(_ garbage: CodexStreamGarbage, headers: HTTPFields) -> Response {
        var body = ByteBuffer()
        switch garbage {
        case .notJSON:
            body.writeString("event: codex.worker.event\ndata: <html><body>502 Bad Gateway</body></html>\n\n")
        case .notUTF8:
            body.writeString("event: codex.worker.event\ndata: {\"workerId\":\"caf")
            body.writeBytes([0xC3, 0x28, 0xFF, 0xFE])
            body.writeString("\"}\n\n")
        case .htmlPage:
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: "<!DOCTYPE html><html><head><title>Sign in to the network</title></head><body><h1>Welcome</h1></body></html>")))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}

/// A Codex reference server running in the background (tests).
public typealias RunningCodexServer = RunningReferenceServer<CodexReferenceServer>

extension CodexReferenceServer: ReferenceServer {}

extension RunningReferenceServer where Server == CodexReferenceServer {
    /// The site's base URL, as clients take it (`/api/runtime/codex/workers` is theirs to add).
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on 127.0.0.1 (ephemeral port) and returns once it accepts connections.
    public static func start(_ options: CodexReferenceOptions = CodexReferenceOptions(port: 0)) async throws -> RunningCodexServer {
        var options = options
        options.port = 0
        return try await launch(options)
    }
}
