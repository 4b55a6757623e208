import Foundation
import ReceptionCore
import ReceptionLoopSymphony

/// JSON with ordered object keys, serialised the way the Python server does:
/// `.spaced` is `json.dumps` default (`", "`, `": "`, non-ASCII as `\uXXXX`), used on SSE;
/// `.compact` is FastAPI's response rendering (`","`, `":"`, UTF-8 kept).
public indirect enum PyJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([PyJSON])
    case object([(String, PyJSON)])

    public enum Style: Sendable { case spaced, compact }

    public static func == (lhs: PyJSON, rhs: PyJSON) -> Bool { lhs.render(.compact) == rhs.render(.compact) }
    public func hash(into hasher: inout Hasher) { hasher.combine(render(.compact)) }

    public func render(_ style: Style) -> String {
        var out = ""
        write(into: &out, style)
        return out
    }

    private func write(into out: inout String, _ style: Style) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += Self.pythonFloat(d)
        case .string(let s): Self.quote(s, ascii: style == .spaced, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += style == .spaced ? ", " : "," }
                item.write(into: &out, style)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, pair) in pairs.enumerated() {
                if i > 0 { out += style == .spaced ? ", " : "," }
                Self.quote(pair.0, ascii: style == .spaced, into: &out)
                out += style == .spaced ? ": " : ":"
                pair.1.write(into: &out, style)
            }
            out += "}"
        }
    }

    static func pythonFloat(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d > 0 ? "Infinity" : "-Infinity" }
        let text = "\(d)"  // shortest round-trip, like Python's repr
        return text
    }

    static func quote(_ s: String, ascii: Bool, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || (ascii && scalar.value > 0x7E) {
                    if scalar.value > 0xFFFF {
                        let v = scalar.value - 0x10000
                        out += String(format: "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF))
                    } else {
                        out += String(format: "\\u%04x", scalar.value)
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// From arbitrary JSON (object keys sorted, as the source has no order).
    public init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = (n.rounded() == n && abs(n) < 1e15) ? .int(Int(n)) : .double(n)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(PyJSON.init))
        case .object(let o): self = .object(o.keys.sorted().map { ($0, PyJSON(o[$0]!)) })
        }
    }

    public static func str(_ s: String?) -> PyJSON { s.map(PyJSON.string) ?? .null }
    public static func strings(_ list: [String]) -> PyJSON { .array(list.map(PyJSON.string)) }

    public subscript(key: String) -> PyJSON? {
        if case .object(let pairs) = self { return pairs.first { $0.0 == key }?.1 }
        return nil
    }
}

/// Timestamps as the Python server writes them.
enum PyTime {
    /// Pydantic datetime: `2026-11-22T03:52:32.968737Z`.
    static func pydantic(_ date: Date) -> String { format(date) + "Z" }
    /// `datetime.isoformat()` of an aware UTC datetime: `2026-11-22T03:52:45.271800+00:00`.
    static func iso(_ date: Date) -> String { format(date) + "+00:00" }
    static func unix(_ date: Date) -> Double { date.timeIntervalSince1970 }

    private static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = floor(seconds)
        let micros = Int(((seconds - whole) * 1_000_000).rounded(.down))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: whole))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!, micros)
    }
}
