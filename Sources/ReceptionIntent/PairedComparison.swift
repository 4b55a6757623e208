import Foundation

/// Two models on the same labelled messages (`reception eval --against`): whether the one's
/// accuracy differs from the other's by more than chance, by McNemar's test on the messages
/// only one of them got right. The messages both got right or both got wrong say nothing
/// about which is better, so only the two discordant counts enter the test.
public struct PairedComparison: Sendable, Hashable, Codable {
    /// One head's paired test.
    public struct Head: Sendable, Hashable, Codable {
        /// Messages model A got right and model B wrong.
        public var onlyA: Int
        /// Messages model B got right and model A wrong.
        public var onlyB: Int
        /// Two-sided p-value: how often a difference at least this large would arise if the two
        /// models were equally accurate on messages like these.
        public var p: Double
        /// "exact" (binomial, for fewer than `exactBelow` discordant messages) or "chi-square"
        /// (with continuity correction).
        public var method: String

        public var discordant: Int { onlyA + onlyB }
        /// Below 0.05: more than chance at the usual 5 % level.
        public var isSignificant: Bool { p < 0.05 }
    }

    public var intent: Head
    public var urgency: Head

    public init(intent: Head, urgency: Head) {
        self.intent = intent
        self.urgency = urgency
    }

    /// Discordant counts below this use the exact binomial test; from it on, the chi-square
    /// approximation (with continuity correction) is close enough.
    public static let exactBelow = 25

    /// The test on per-message correctness of two models (`a[i]`, `b[i]`: whether each got
    /// message `i` right).
    public static func head(a: [Bool], b: [Bool]) -> Head {
        precondition(a.count == b.count, "a paired test needs the same messages on both sides")
        var onlyA = 0, onlyB = 0
        for (x, y) in zip(a, b) where x != y { if x { onlyA += 1 } else { onlyB += 1 } }
        return test(onlyA: onlyA, onlyB: onlyB)
    }

    public static func test(onlyA: Int, onlyB: Int) -> Head {
        let n = onlyA + onlyB
        guard n > 0 else { return Head(onlyA: onlyA, onlyB: onlyB, p: 1, method: "exact") }
        if n < exactBelow {
            // Two-sided exact: twice the probability of a split at least as uneven, under
            // Binomial(n, 1/2).
            let k = min(onlyA, onlyB)
            var tail = 0.0
            for i in 0...k { tail += exp(logChoose(n, i) - Double(n) * log(2.0)) }
            return Head(onlyA: onlyA, onlyB: onlyB, p: min(1, 2 * tail), method: "exact")
        }
        let difference = max(0, Double(abs(onlyA - onlyB)) - 1)
        let chiSquare = difference * difference / Double(n)
        // One degree of freedom: P(X > x) = erfc(sqrt(x / 2)).
        return Head(onlyA: onlyA, onlyB: onlyB, p: min(1, erfc((chiSquare / 2).squareRoot())), method: "chi-square")
    }

    static func logChoose(_ n: Int, _ k: Int) -> Double {
        lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
    }
}
