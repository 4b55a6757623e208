import Foundation
import ReceptionCore

/// The events Loop Symphony puts on `GET /task/{id}/stream` (api/events.py).
public enum LoopSymphonyStreamEvent: Sendable, Hashable {
    case started(taskID: String, timestamp: Double?)
    case iteration(taskID: String, iterationNum: Int, phase: String, data: JSONValue?, durationMS: Int?, timestamp: Double?)
    case complete(taskID: String, outcome: Outcome, summary: String, confidence: Double?, timestamp: Double?)
    case error(taskID: String, error: String, timestamp: Double?)
    /// An `event` value this client does not know; kept so nothing is lost.
    case other(name: String, payload: JSONValue)
    /// `: keepalive` (any comment).
    case keepalive

    public var isTerminal: Bool {
        switch self {
        case .complete, .error: true
        default: false
        }
    }

    /// Decodes one `data:` payload. The timestamp is a float of Unix seconds on the real server
    /// and an int in the guide; both read. A payload that is not a JSON object with a string
    /// `event` is a protocol violation with the payload quoted.
    public init(data: String, fallbackTaskID: String) throws {
        // A typed decode of the known keys (much cheaper than decoding arbitrary JSON first);
        // `data` of iterations stays free-form.
        let frame: Frame
        do {
            frame = try JSONDecoder().decode(Frame.self, from: Data(data.utf8))
        } catch {
            guard let value = try? Wire.decode(JSONValue.self, from: Data(data.utf8)), case .object = value else {
                throw BackendError.protocolViolation("SSE frame is not a JSON object: \(data.prefix(200))")
            }
            throw BackendError.protocolViolation("SSE frame has no \"event\" field: \(data.prefix(200))")
        }
        let taskID = frame.taskID ?? fallbackTaskID
        let timestamp = frame.timestamp
        switch frame.event {
        case "started":
            self = .started(taskID: taskID, timestamp: timestamp)
        case "iteration":
            self = .iteration(taskID: taskID, iterationNum: frame.iterationNum ?? 0, phase: frame.phase ?? "iteration",
                              data: frame.data, durationMS: frame.durationMS, timestamp: timestamp)
        case "complete":
            self = .complete(taskID: taskID, outcome: Outcome(wire: frame.outcome ?? "complete"), summary: frame.summary ?? "",
                             confidence: frame.confidence, timestamp: timestamp)
        case "error":
            self = .error(taskID: taskID, error: frame.error ?? "unknown error", timestamp: timestamp)
        default:
            self = .other(name: frame.event, payload: (try? Wire.decode(JSONValue.self, from: Data(data.utf8))) ?? .null)
        }
    }

    /// The keys Loop Symphony events carry. Numbers are read leniently (the guide sends int
    /// timestamps, the server floats).
    struct Frame: Decodable {
        var event: String
        var taskID: String?
        var timestamp: Double?
        var iterationNum: Int?
        var phase: String?
        var data: JSONValue?
        var durationMS: Int?
        var outcome: String?
        var summary: String?
        var confidence: Double?
        var error: String?
        enum CodingKeys: String, CodingKey {
            case event, taskID = "task_id", timestamp, iterationNum = "iteration_num", phase, data
            case durationMS = "duration_ms", outcome, summary, confidence, error
        }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            event = try c.decode(String.self, forKey: .event)
            taskID = try? c.decodeIfPresent(String.self, forKey: .taskID)
            timestamp = try? c.decodeIfPresent(Double.self, forKey: .timestamp)
            iterationNum = try? c.decodeIfPresent(Int.self, forKey: .iterationNum)
            phase = try? c.decodeIfPresent(String.self, forKey: .phase)
            data = try c.decodeIfPresent(JSONValue.self, forKey: .data)
            durationMS = (try? c.decodeIfPresent(Int.self, forKey: .durationMS)) ?? (try? c.decodeIfPresent(Double.self, forKey: .durationMS)).flatMap { $0.map { Int(saturating: $0) } }
            outcome = try? c.decodeIfPresent(String.self, forKey: .outcome)
            summary = try? c.decodeIfPresent(String.self, forKey: .summary)
            confidence = try? c.decodeIfPresent(Double.self, forKey: .confidence)
            error = try? c.decodeIfPresent(String.self, forKey: .error)
        }
    }
}
