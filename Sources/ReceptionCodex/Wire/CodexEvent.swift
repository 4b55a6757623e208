import Foundation
import ReceptionCore

/// One event of a worker's ledger as the stream sends it: `id: SEQ`, `event:
/// codex.worker.event`, `data: {"workerId","seq","eventType","payload","occurredAt"}`.
///
/// The stream's payload is camelCase while the REST answers are snake_case; both spellings
/// decode, so the 202 answer of `POST /events` reads with the same type.
public struct CodexEvent: Sendable, Hashable, Codable {
    public var workerID: String
    public var seq: Int
    /// `worker.started`, `worker.request.received`, `worker.response`, `worker.error`,
    /// `worker.stopped`, or a client-ingested `worker.*` (e.g. `worker.event`).
    public var eventType: String
    public var payload: JSONValue
    public var occurredAt: String?

    public init(workerID: String, seq: Int, eventType: String, payload: JSONValue = .object([:]), occurredAt: String? = nil) {
        self.workerID = workerID
        self.seq = seq
        self.eventType = eventType
        self.payload = payload
        self.occurredAt = occurredAt
    }

    enum CodingKeys: String, CodingKey {
        case workerID = "workerId", seq, eventType, payload, occurredAt
        case workerIDSnake = "worker_id", eventTypeSnake = "event_type", occurredAtSnake = "occurred_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        workerID = try c.decodeIfPresent(String.self, forKey: .workerID) ?? c.decodeIfPresent(String.self, forKey: .workerIDSnake) ?? ""
        if let number = try? c.decode(Int.self, forKey: .seq) {
            seq = number
        } else if let text = try? c.decode(String.self, forKey: .seq), let number = Int(text) {
            seq = number
        } else {
            throw DecodingError.keyNotFound(CodingKeys.seq, .init(codingPath: c.codingPath, debugDescription: "an event needs an integer seq"))
        }
        guard let type = try c.decodeIfPresent(String.self, forKey: .eventType) ?? c.decodeIfPresent(String.self, forKey: .eventTypeSnake) else {
            throw DecodingError.keyNotFound(CodingKeys.eventType, .init(codingPath: c.codingPath, debugDescription: "an event needs eventType"))
        }
        eventType = type
        payload = try c.decodeIfPresent(JSONValue.self, forKey: .payload) ?? .object([:])
        occurredAt = try c.decodeIfPresent(String.self, forKey: .occurredAt) ?? c.decodeIfPresent(String.self, forKey: .occurredAtSnake)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(workerID, forKey: .workerID)
        try c.encode(seq, forKey: .seq)
        try c.encode(eventType, forKey: .eventType)
        try c.encode(payload, forKey: .payload)
        try c.encodeIfPresent(occurredAt, forKey: .occurredAt)
    }

    /// `payload.method` (`ios/handshake`, `desktop/handshake_ack`, `turn/started`, ...), if any.
    public var method: String? { payload["method"]?.stringValue }
}
