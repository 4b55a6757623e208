import Foundation

/// An entry of `suggested_followups`: a plain follow-up question, or an intervention
/// carried as a `[type] message` prefix (seed 000 §5).
public enum SuggestedFollowup: Sendable, Hashable, Codable {
    case plain(String)
    case intervention(Intervention)

    /// Reads a `[proactive]`, `[pushback]`, `[scoping]` or `[education]` prefix (any case,
    /// optional spaces inside the brackets). Any other bracketed lowercase word becomes an
    /// intervention of `.unknown(word)` type, so a new server-side type still reads as a card.
    public init(parsing text: String) {
        if let parsed = Self.parseASCII(text) {
            self = parsed
            return
        }
        let trimmed = text.drop { $0 == " " }
        guard trimmed.first == "[", let close = trimmed.firstIndex(of: "]") else {
            self = .plain(text)
            return
        }
        let tag = trimmed[trimmed.index(after: trimmed.startIndex)..<close].trimmingSpaces.lowercased()
        guard !tag.isEmpty, tag.count <= 24, tag.allSatisfy({ $0.isLetter || $0 == "_" || $0 == "-" }) else {
            self = .plain(text)
            return
        }
        let message = String(trimmed[trimmed.index(after: close)...]).trimmingSpaces
        self = .intervention(Intervention(type: InterventionType(wire: tag), message: message))
    }

    /// The common case on bytes: ASCII up to the closing bracket; nil to take the general path.
    private static func parseASCII(_ text: String) -> SuggestedFollowup? {
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index < utf8.endIndex, utf8[index] == 0x20 { index = utf8.index(after: index) }
        guard index < utf8.endIndex else { return .plain(text) }
        guard utf8[index] == UInt8(ascii: "[") else { return .plain(text) }
        var tag: [UInt8] = []
        var cursor = utf8.index(after: index)
        while cursor < utf8.endIndex, utf8[cursor] != UInt8(ascii: "]") {
            let byte = utf8[cursor]
            if byte >= 0x80 { return nil }
            tag.append(byte >= 0x41 && byte <= 0x5A ? byte + 32 : byte)
            cursor = utf8.index(after: cursor)
        }
        guard cursor < utf8.endIndex else { return .plain(text) }
        while tag.last == 0x20 || tag.last == 0x09 { tag.removeLast() }
        while tag.first == 0x20 || tag.first == 0x09 { tag.removeFirst() }
        guard !tag.isEmpty, tag.count <= 24,
              tag.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) else { return .plain(text) }
        var start = utf8.index(after: cursor)
        var end = utf8.endIndex
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 { start = utf8.index(after: start) }
        while end > start, utf8[utf8.index(before: end)] == 0x20 || utf8[utf8.index(before: end)] == 0x09 { end = utf8.index(before: end) }
        if start < end, utf8[start] >= 0x80 || utf8[utf8.index(before: end)] >= 0x80 { return nil }  // Unicode spaces: general path
        let message = String(Substring(utf8[start..<end]))
        let type: InterventionType
        switch tag {
        case Array("proactive".utf8): type = .proactive
        case Array("pushback".utf8): type = .pushback
        case Array("scoping".utf8): type = .scoping
        case Array("education".utf8): type = .education
        default: type = InterventionType(wire: String(decoding: tag, as: UTF8.self))
        }
        return .intervention(Intervention(type: type, message: message))
    }

    public init(from decoder: any Decoder) throws {
        self.init(parsing: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wireText)
    }

    /// The text as it travels on the wire.
    public var wireText: String {
        switch self {
        case .plain(let text): text
        case .intervention(let intervention): "[\(intervention.type.rawValue)] \(intervention.message)"
        }
    }
}

/// A system-generated suggestion, presented as a card rather than a plain follow-up.
public struct Intervention: Sendable, Hashable, Codable {
    public var type: InterventionType
    public var message: String

    public init(type: InterventionType, message: String) {
        self.type = type
        self.message = message
    }

    /// The server's trust-level gating (seed 000 §5), applied again on the client so a
    /// backend that does not gate (or gates differently) still shows the right cards:
    /// level 0 shows all four types, level 1 drops education, level 2 keeps only
    /// proactive and pushback. Types this client does not know are never hidden:
    /// the rule cannot say whether they are meant for this level.
    public func isVisible(atTrustLevel level: Int) -> Bool {
        switch (type, level) {
        case (.unknown, _): true
        case (_, ...0): true
        case (.education, 1): false
        case (_, 1): true
        default: type == .proactive || type == .pushback
        }
    }
}

extension Array where Element == SuggestedFollowup {
    /// Drops the interventions the trust level does not show; plain follow-ups always stay.
    public func gated(forTrustLevel level: Int) -> [SuggestedFollowup] {
        filter {
            if case .intervention(let intervention) = $0 { return intervention.isVisible(atTrustLevel: level) }
            return true
        }
    }

    public var plainFollowups: [String] {
        compactMap { if case .plain(let text) = $0 { text } else { nil } }
    }

    public var interventions: [Intervention] {
        compactMap { if case .intervention(let intervention) = $0 { intervention } else { nil } }
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(self).trimmingCharacters(in: .whitespaces)
    }
}
