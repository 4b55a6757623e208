import Foundation
import ReceptionCore

/// One Server-Sent Events frame.
public enum SSEFrame: Sendable, Hashable {
    /// A dispatched event: the joined `data:` lines (`\n` between them), plus `event:`/`id:` if a server sends them.
    case event(data: String, name: String?, id: String?)
    /// A comment line (`: keepalive`), without the colon and the one optional space.
    case comment(String)
}

/// Incremental SSE parser (WHATWG event-stream rules) fed with arbitrary byte chunks.
///
/// Handles LF, CRLF and CR line ends, a CRLF split across chunks, multi-line `data:`, comments,
/// fields without a colon, and the optional space after the colon. A line may be split across
/// any number of chunks; nothing is dispatched until its blank line arrives. Broken UTF-8 is
/// reported as an error rather than silently repaired, and a line longer than `maxLineBytes`
/// (a server that never ends its frame) is an error too.
public struct SSEParser: Sendable {
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var reason: String
        public var description: String { "Broken SSE stream: \(reason)" }
    }

    public var maxLineBytes: Int
    private var line: [UInt8] = []
    private var lastWasCR = false
    private var data: [String] = []
    private var hasData = false
    private var eventName: String?
    private var lastID: String?

    public init(maxLineBytes: Int = 4 << 20) { self.maxLineBytes = maxLineBytes }

    /// Feeds a chunk and returns the frames it completed.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws -> [SSEFrame] where Bytes.Element == UInt8 {
        var frames: [SSEFrame] = []
        for byte in bytes {
            if lastWasCR {
                lastWasCR = false
                if byte == 0x0A { continue }  // the LF of a CRLF
            }
            switch byte {
            case 0x0D:
                lastWasCR = true
                if let frame = try endLine() { frames.append(frame) }
            case 0x0A:
                if let frame = try endLine() { frames.append(frame) }
            default:
                line.append(byte)
                if line.count > maxLineBytes { throw Failure(reason: "a line exceeded \(maxLineBytes) bytes without ending") }
            }
        }
        return frames
    }

    /// Call at end of stream: an unterminated frame is dropped, as the spec says; returns true
    /// when something was left incomplete so callers can report a truncated stream.
    public mutating func finish() -> Bool {
        let incomplete = !line.isEmpty || hasData
        line.removeAll()
        data.removeAll()
        hasData = false
        eventName = nil
        return incomplete
    }

    private mutating func endLine() throws -> SSEFrame? {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty {
            // Blank line: dispatch.
            guard hasData else { eventName = nil; return nil }
            let frame = SSEFrame.event(data: data.joined(separator: "\n"), name: eventName, id: lastID)
            data.removeAll()
            hasData = false
            eventName = nil
            return frame
        }
        guard let text = String(validating: line, as: UTF8.self) else {
            throw Failure(reason: "a line is not valid UTF-8")
        }
        if text.hasPrefix(":") {
            var comment = text.dropFirst()
            if comment.hasPrefix(" ") { comment = comment.dropFirst() }
            return .comment(String(comment))
        }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "data":
            data.append(String(value))
            hasData = true
        case "event": eventName = String(value)
        case "id": if !value.contains("\0") { lastID = String(value) }
        default: break  // `retry` and unknown fields are ignored
        }
        return nil
    }
}

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
            durationMS = (try? c.decodeIfPresent(Int.self, forKey: .durationMS)) ?? (try? c.decodeIfPresent(Double.self, forKey: .durationMS)).flatMap { $0.map { Int($0) } }
            outcome = try? c.decodeIfPresent(String.self, forKey: .outcome)
            summary = try? c.decodeIfPresent(String.self, forKey: .summary)
            confidence = try? c.decodeIfPresent(Double.self, forKey: .confidence)
            error = try? c.decodeIfPresent(String.self, forKey: .error)
        }
    }
}
