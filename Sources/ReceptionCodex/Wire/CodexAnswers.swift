import Foundation
import ReceptionCore

/// Laravel wraps every runtime answer in `{"data": ...}`.
struct CodexEnvelope<Body: Decodable & Sendable>: Decodable, Sendable {
    var data: Body
}

/// What `POST /workers/{id}/requests` answers: the runtime's verdict on the request.
public struct CodexRequestResult: Sendable, Hashable, Codable {
    public var workerID: String
    public var requestID: String
    public var ok: Bool
    public var response: JSONValue?

    public init(workerID: String, requestID: String, ok: Bool, response: JSONValue? = nil) {
        self.workerID = workerID
        self.requestID = requestID
        self.ok = ok
        self.response = response
    }

    enum CodingKeys: String, CodingKey {
        case workerID = "worker_id", requestID = "request_id", ok, response
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        workerID = try c.decodeIfPresent(String.self, forKey: .workerID) ?? ""
        requestID = try c.decodeIfPresent(String.self, forKey: .requestID) ?? ""
        ok = try c.decodeIfPresent(Bool.self, forKey: .ok) ?? false
        response = try c.decodeIfPresent(JSONValue.self, forKey: .response)
    }
}

/// What `POST /workers/{id}/stop` answers: 202 stopped now, 200 with `idempotent_replay`
/// when it already was (stopping a stopped worker is not a conflict).
public struct CodexStopResult: Sendable, Hashable, Codable {
    public var workerID: String
    public var status: CodexWorkerStatus
    public var idempotentReplay: Bool

    enum CodingKeys: String, CodingKey {
        case workerID = "worker_id", status, idempotentReplay = "idempotent_replay"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        workerID = try c.decodeIfPresent(String.self, forKey: .workerID) ?? ""
        status = try c.decodeIfPresent(CodexWorkerStatus.self, forKey: .status) ?? .stopped
        idempotentReplay = try c.decodeIfPresent(Bool.self, forKey: .idempotentReplay) ?? false
    }
}

/// A request for a worker: `{"request": {"request_id", "method", "params"}}`.
public struct CodexWorkerRequest: Sendable, Hashable, Encodable {
    public var requestID: String
    public var method: String
    public var params: JSONValue
    public var source: String?

    public init(requestID: String = "reception_" + UUID().uuidString.lowercased(), method: String,
                params: JSONValue = .object([:]), source: String? = nil) {
        self.requestID = requestID
        self.method = method
        self.params = params
        self.source = source
    }

    enum CodingKeys: String, CodingKey { case requestID = "request_id", method, params, source }
}

/// The runtime's and Laravel's error bodies: `{"error": {"code", "message"}}` from the
/// runtime, `{"message": ..., "errors": {field: [..]}}` from Laravel's validation and auth.
struct CodexErrorBody: Sendable {
    var code: String?
    var message: String?

    init(_ body: Data) {
        guard let value = try? Wire.decode(JSONValue.self, from: body) else { return }
        if let error = value["error"] {
            code = error["code"]?.stringValue
            message = error["message"]?.stringValue ?? error.stringValue
        }
        if message == nil, let text = value["message"]?.stringValue {
            message = text
            // Laravel's validation: name the fields and their first complaint.
            if case .object(let fields)? = value["errors"], !fields.isEmpty {
                let details = fields.keys.sorted().compactMap { key -> String? in
                    guard case .array(let list)? = fields[key], let first = list.first?.stringValue else { return nil }
                    return first
                }
                if !details.isEmpty, details != [text] { message = details.joined(separator: " ") }
            }
        }
    }
}
