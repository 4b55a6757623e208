import Foundation

/// An entry of `suggested_followups`: a plain follow-up question, or an intervention
/// carried as a `[type] message` prefix (seed 000 §5).
public enum SuggestedFollowup: Sendable, Hashable {
    case plain(String)
    case intervention(Intervention)

    /// Reads a `[proactive]`, `[pushback]`, `[scoping]` or `[education]` prefix (any case,
    /// optional spaces inside the brackets). Any other bracketed lowercase word becomes an
    /// intervention of `.unknown(word)` type, so a new server-side type still reads as a card.
    public init(parsing text: String) {
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
