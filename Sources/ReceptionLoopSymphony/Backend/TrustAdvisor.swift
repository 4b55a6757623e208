import Foundation
import ReceptionCore

/// Turns the server's trust suggestion into a question for the person. It never changes the
/// level by itself: `accept` is only called when the person says yes, and downgrades are
/// never proposed (the server's rules only suggest upgrades; anything else is ignored here).
public struct TrustAdvisor: Sendable {
    public struct Offer: Sendable, Hashable {
        public var currentLevel: Int
        public var suggestedLevel: Int
        /// e.g. "8 successful tasks in a row. Enable semi-autonomous mode?"
        public var question: String
        public var reason: String
    }

    public let client: LoopSymphonyClient
    public init(client: LoopSymphonyClient) { self.client = client }

    public static func levelName(_ level: Int) -> String {
        switch level {
        case ...0: "supervised"
        case 1: "semi-autonomous"
        default: "autonomous"
        }
    }

    /// Nil when there is nothing to offer (no suggestion, no API key, or not an upgrade).
    public func offer() async throws -> Offer? {
        guard client.configuration.apiKey != nil else { return nil }
        guard let suggestion = try await client.trust.suggestion(),
              suggestion.suggestedLevel > suggestion.currentLevel else { return nil }
        let streak = suggestion.metrics?.consecutiveSuccesses
        let lead = streak.map { "\($0) successful task\($0 == 1 ? "" : "s") in a row." } ?? suggestion.reason
        return Offer(currentLevel: suggestion.currentLevel, suggestedLevel: suggestion.suggestedLevel,
                     question: "\(lead) Enable \(Self.levelName(suggestion.suggestedLevel)) mode?",
                     reason: suggestion.reason)
    }

    /// The person said yes: `PUT /trust/level`.
    public func accept(_ offer: Offer) async throws -> TrustMetrics {
        try await client.trust.setLevel(offer.suggestedLevel)
    }
}
