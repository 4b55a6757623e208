import Foundation
import ReceptionCore

/// The server's explanation in an error body: `{"error": "...", "detail": null}` (the real
/// server), `{"detail": "..."}` (the guide, and FastAPI's own 404/405), or FastAPI's 422 list.
struct ErrorWords {
    var text: String
    var fields: [TimepointError.FieldProblem] = []

    init(_ body: Data) {
        let value = try? Wire.decode(JSONValue.self, from: body)
        var text = value?["error"]?.stringValue ?? value?["detail"]?.stringValue
        if text == nil, case .array(let items)? = value?["detail"] {
            fields = items.map { item in
                var parts: [String] = []
                if case .array(let location)? = item["loc"] {
                    parts = location.map { $0.stringValue ?? $0.intValue.map(String.init) ?? "?" }
                }
                if parts.first == "body" && parts.count > 1 { parts.removeFirst() }
                let field = parts.isEmpty ? "request" : parts.joined(separator: ".")
                return .init(field: String(field.prefix(80)), message: String((item["msg"]?.stringValue ?? "invalid").prefix(200)))
            }
            text = fields.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
        }
        if text == nil || text?.isEmpty == true {
            let raw = String(decoding: body.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            text = raw.isEmpty ? "no explanation given" : raw
        }
        if let detail = value?["detail"]?.stringValue, value?["error"]?.stringValue == "Internal server error" {
            text = detail  // upstream's 500 handler puts the exception's words in `detail`
        }
        self.text = String(text!.prefix(300))
    }

    /// "This operation costs 5 credits." → 5.
    var cost: Int? { Self.number(after: "costs ", in: text) }

    /// "Insufficient credits: have 5, need 10" → (10, 5).
    var need: (cost: Int, have: Int)? {
        guard text.localizedCaseInsensitiveContains("insufficient credits"),
              let need = Self.number(after: "need ", in: text), let have = Self.number(after: "have ", in: text) else { return nil }
        return (need, have)
    }

    static func number(after marker: String, in text: String) -> Int? {
        guard let range = text.range(of: marker) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}
