import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceptionCore

extension CodexReferenceServer {
    /// `POST …/requests`: `{"request": {"request_id", "method", "params"}}`. The reference
    /// worker answers at once (`ok` and a `response`), and its ledger gets
    /// `worker.request.received` and `worker.response` (or `worker.error`). Words in the text
    /// of `params.input` script it: "fail" (ok false), "slow" (3 s), "unusual" (fields this
    /// client does not know), "drop" (the connection closes without an answer), "escapes"
    /// (every text it sends back carries its words between escape sequences, `HostileText`:
    /// the answer or, with "fail", the error, and a `worker.event` whose method and note are
    /// such; with "refuse", a runtime error whose message is).
    func workerRequest(_ worker: CodexReferenceState.Worker, _ body: Data) async -> Response {
        guard let value = try? Wire.decode(JSONValue.self, from: body), case .object(let request)? = value["request"] else {
            return Self.validation(["request": "The request field is required."])
        }
        await state.recordPosted(value)
        guard worker.status == "running" else { return Self.runtimeError(409, "conflict", "worker is stopped; create or reattach to resume") }
        guard let method = request["method"]?.stringValue, !method.isEmpty else {
            return Self.runtimeError(400, "invalid_request", "request.method is required")
        }
        let requestID = request["request_id"]?.stringValue ?? request["id"]?.stringValue ?? "req_\(UUID().uuidString.prefix(8).lowercased())"
        let params = request["params"] ?? .object([:])
        let text: String = {
            if case .array(let items)? = params["input"] { return items.compactMap { $0["text"]?.stringValue }.joined(separator: " ") }
            return ""
        }()
        let words = text.lowercased()
        let hostile = words.contains("escapes")
        func wrap(_ text: String) -> String { hostile ? HostileText.around(text) : text }
        if hostile, words.contains("refuse") { return Self.runtimeError(409, "conflict", HostileText.around("Refusalwords")) }
        await state.append(worker.id, "worker.request.received", .object(["request_id": .string(requestID), "method": .string(method)]))
        if hostile {
            await state.append(worker.id, "worker.event", .object(["source": .string("autopilot-desktop"),
                                                                   "method": .string(HostileText.around("Methodwords")),
                                                                   "note": .string(HostileText.around("Notewords"))]))
        }
        if words.contains("drop") {
            return Response(status: .ok, body: ResponseBody { _ in throw CancellationError() })
        }
        if words.contains("slow") { try? await Task.sleep(for: .seconds(3)) }
        let ok = !words.contains("fail")
        var response: [String: JSONValue] = ok
            ? ["handled_by": .string("reception-reference"), "method": .string(method),
               "text": .string(wrap(text.isEmpty ? "\(method) accepted" : "\(method) accepted: \(text)"))]
            : ["error": .string(wrap("the reference worker was asked to fail")), "method": .string(method)]
        if words.contains("unusual") { response["mood"] = .string("curious"); response["phase"] = .object(["next": .string("unknown_value")]) }
        await state.append(worker.id, ok ? "worker.response" : "worker.error",
                           .object(["request_id": .string(requestID), "response": .object(response)]))
        var data: [String: JSONValue] = ["worker_id": .string(worker.id), "request_id": .string(requestID), "ok": .bool(ok), "response": .object(response)]
        if words.contains("unusual") { data["trace"] = .object(["hops": .number(3)]) }
        return Self.data(200, .object(data))
    }

    /// `POST …/events`: `{"event": {"event_type": "worker.…", "payload": {…}}}` → 202 with the
    /// stored event. An `ios/handshake` from the accepted source on a desktop worker is
    /// answered with `desktop/handshake_ack` after `ackDelay`.
    func ingest(_ worker: CodexReferenceState.Worker, _ body: Data) async -> Response {
        guard let value = try? Wire.decode(JSONValue.self, from: body), case .object(let event)? = value["event"] else {
            return Self.validation(["event": "The event field is required."])
        }
        guard let type = event["event_type"]?.stringValue, type.hasPrefix("worker.") else {
            return Self.validation(["event.event_type": "The event.event type field format is invalid."])
        }
        guard worker.status == "running" else { return Self.runtimeError(409, "conflict", "worker is not running") }
        let payload = event["payload"] ?? .object([:])
        await state.recordPosted(value)
        guard let stored = await state.append(worker.id, type, payload) else { return Self.runtimeError(404, "not_found", "worker not found") }
        if worker.desktop, payload["method"]?.stringValue == "ios/handshake",
           payload["source"]?.stringValue == options.acceptedHandshakeSource, let handshakeID = payload["handshake_id"]?.stringValue {
            let state = state
            let delay = options.ackDelay
            Task {
                try? await Task.sleep(for: delay)
                await state.append(worker.id, "worker.event", .object([
                    "source": .string("autopilot-desktop"), "method": .string("desktop/handshake_ack"),
                    "handshake_id": .string(handshakeID), "desktop_session_id": .string("desk_ref_1"),
                    "occurred_at": .string(Wire.timestamp()),
                ]))
            }
        }
        return Self.data(202, .object(["worker_id": .string(worker.id), "seq": .number(Double(stored.seq)), "event_type": .string(type),
                                       "payload": stored.payload, "occurred_at": .string(stored.occurredAt)]))
    }

    /// `POST …/stop` with an optional `reason`: 202 when it stops now, 200 and
    /// `idempotent_replay: true` when it already was stopped.
    func stop(_ worker: CodexReferenceState.Worker, _ body: Data) async -> Response {
        let value = try? Wire.decode(JSONValue.self, from: body)
        let reason = value?["reason"]?.stringValue
        if let reason, reason.count > 255 { return Self.validation(["reason": "The reason field must not be greater than 255 characters."]) }
        if worker.status == "stopped" {
            return Self.data(200, .object(["worker_id": .string(worker.id), "status": .string("stopped"), "idempotent_replay": .bool(true)]))
        }
        await state.setStatus(worker.id, "stopped")
        await state.append(worker.id, "worker.stopped", .object(["reason": .string(reason ?? "stopped")]))
        return Self.data(202, .object(["worker_id": .string(worker.id), "status": .string("stopped"), "idempotent_replay": .bool(false)]))
    }

    // MARK: bodies

    /// `{"data": …}` as Laravel writes it: slashes escaped.
    static func data(_ status: Int, _ value: JSONValue) -> Response {
        let text = Wire.jsonString(JSONValue.object(["data": value])).replacingOccurrences(of: "/", with: "\\/")
        return Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The runtime's error body, passed through by Laravel.
    static func runtimeError(_ status: Int, _ code: String, _ message: String) -> Response {
        let text = Wire.jsonString(JSONValue.object(["error": .object(["code": .string(code), "message": .string(message)])]))
        return Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// Laravel's own answers (auth, routing): `{"message": …}`.
    static func laravel(_ status: Int, _ message: String) -> Response {
        runtimeBody(status, .object(["message": .string(message)]))
    }

    /// Laravel's 422: `{"message", "errors": {field: [message]}}`.
    static func validation(_ errors: [String: String]) -> Response {
        let first = errors.keys.sorted().first.flatMap { errors[$0] } ?? "The given data was invalid."
        let more = errors.count > 1 ? " (and \(errors.count - 1) more error\(errors.count > 2 ? "s" : ""))" : ""
        return runtimeBody(422, .object(["message": .string(first + more),
                                         "errors": .object(errors.mapValues { .array([.string($0)]) })]))
    }

    static func runtimeBody(_ status: Int, _ value: JSONValue) -> Response {
        Response(status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: Wire.jsonString(value))))
    }
}
