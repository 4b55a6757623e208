import Foundation
import ReceptionCore
import ReceptionTransport

/// What a generation reports while it runs.
public enum GenerationUpdate: Sendable, Hashable {
    /// The stream started on this query.
    case started(String)
    /// A background generation was accepted as this scene id; it is polled from now on.
    case accepted(id: String)
    /// A pipeline step finished (stream), with the overall progress in percent.
    case step(name: String, progress: Double?, latencyMS: Int?)
    /// A step failed; the pipeline may still go on.
    case stepFailed(name: String, error: String)
    /// A poll of a background generation saw this status.
    case polled(status: String)
}

extension TimepointClient {
    /// Generates a scene the configured way and returns it in full once it is `completed` or
    /// `failed` (a failed scene is returned, not thrown: the server saved it and may have
    /// charged for it, and its `error` says why).
    public func generate(_ request: GenerateRequest, mode: TimepointConfiguration.GenerationMode,
                         onUpdate: @escaping @Sendable (GenerationUpdate) -> Void = { _ in }) async throws -> Timepoint {
        switch mode {
        case .sync:
            return try await call(Timepoint.self, .POST, "/timepoints/generate/sync", body: request)
        case .background:
            let started = try await call(GenerationStarted.self, .POST, "/timepoints/generate", body: request)
            onUpdate(.accepted(id: started.id))
            return try await poll(started.id, onUpdate: onUpdate)
        case .stream:
            return try await stream(request, onUpdate: onUpdate)
        }
    }

    /// Polls `GET /timepoints/{id}` every `pollInterval` until the scene is finished.
    public func poll(_ id: String, onUpdate: @escaping @Sendable (GenerationUpdate) -> Void = { _ in }) async throws -> Timepoint {
        let deadline = ContinuousClock.now + configuration.generationTimeout
        while true {
            try await Task.sleep(for: configuration.pollInterval)
            let scene = try await self.scene(id, full: true)
            let status = scene.status ?? "unknown"
            onUpdate(.polled(status: status))
            if scene.isFinished { return scene }
            guard ContinuousClock.now < deadline else {
                throw TimepointError.server(status: 200, detail: "the scene \(id) was still \(status) after \(configuration.generationTimeout); /scene \(id) looks again later")
            }
        }
    }

    /// `POST /timepoints/generate/stream`: each step as it completes, then the whole scene.
    func stream(_ request: GenerateRequest, onUpdate: @escaping @Sendable (GenerationUpdate) -> Void) async throws -> Timepoint {
        let body = try Wire.encode(request)
        let retry = HTTPRetryPolicy(maxAttempts: configuration.rateLimitAttempts, baseDelay: configuration.backoffStart,
                                    maxDelay: configuration.backoffLimit, retriedStatuses: [429])
        var retriedServerError = false
        while true {
            do {
                return try await Self.$sentToken.withValue(SentToken()) {
                    try await readStream(body: body, retry: retry, onUpdate: onUpdate)
                }
            } catch BackendError.http(let status, let detail) {
                if (500...599).contains(status), !retriedServerError {
                    retriedServerError = true
                    Self.onWait?("The server failed (HTTP \(status)); trying once more.")
                    try await Task.sleep(for: configuration.serverErrorRetryDelay)
                    continue
                }
                // The transport kept the server's words; a 429 it gave up on says how long it was asked to wait.
                throw await failure(status: status, body: Data(Wire.jsonString(JSONValue.object(["error": .string(detail)])).utf8), retryAfter: nil)
            }
        }
    }

    private func readStream(body: Data, retry: HTTPRetryPolicy, onUpdate: @escaping @Sendable (GenerationUpdate) -> Void) async throws -> Timepoint {
        let onWait = Self.onWait
        let frames = transport.eventStream("/api/v1/timepoints/generate/stream", method: .POST, body: body, auth: .required,
                                           parser: SSEParser(maxLineBytes: 1 << 20, maxEventBytes: 1 << 20), retry: retry,
                                           onRetry: { notice in onWait?(notice.message) })
        for try await frame in frames {
            guard case .event(let data, _, _) = frame else { continue }
            let event: GenerationStreamEvent
            do {
                event = try Wire.decode(GenerationStreamEvent.self, from: Data(data.utf8))
            } catch {
                throw BackendError.protocolViolation("a generation event is not the expected JSON: \(data.prefix(120))")
            }
            switch event.event {
            case "start":
                onUpdate(.started(event.data?["query"]?.stringValue ?? event.step ?? "initialization"))
            case "step_complete":
                onUpdate(.step(name: event.step ?? "step", progress: event.progress, latencyMS: event.data?["latency_ms"]?.intValue))
            case "step_error":
                onUpdate(.stepFailed(name: event.step ?? "step", error: String((event.error ?? "failed").prefix(300))))
            case "done":
                guard let id = event.timepointID else { throw BackendError.protocolViolation("the generation ended without a timepoint_id") }
                return try await scene(id, full: true)
            case "error":
                throw TimepointError.server(status: 200, detail: "the generation failed: \(String((event.error ?? "no reason given").prefix(300)))")
            default:
                continue  // an event this client does not know
            }
        }
        // A stream cut by cancellation ends quietly: that is a stop, not a broken server.
        try Task.checkCancellation()
        throw BackendError.protocolViolation("the generation stream ended before its done event")
    }
}
