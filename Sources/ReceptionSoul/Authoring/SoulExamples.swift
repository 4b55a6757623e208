import ReceptionCore

/// Built-in example results, one per outcome, used by `reception soul preview`, `soul diff`
/// and the benchmarks. Each carries facts (numbers, units, a URL, code, a quote) so a
/// preview also shows that the voice never touches them, and every intervention type.
public enum SoulExamples {
    public struct Example: Sendable, Hashable {
        public var title: String
        public var response: BackendResult
    }

    static let interventions = [
        "[proactive] You have asked about flight delays three times this month; I can watch your bookings and warn you.",
        "[pushback] \"Everything about Japan\" is broad; a city or a week would give a sharper answer.",
        "[scoping] This has 3 parts (route, budget, visas); we could take them one at a time.",
        "[education] You can switch to another soul with `/soul butler` to change how I talk.",
    ]

    public static let all: [Example] = [
        Example(title: "complete", response: BackendResult(
            taskID: "example-complete", outcome: .complete,
            findings: [
                Finding(content: "The Shinkansen from Tokyo to Kyoto takes about 2 h 15 min on the Nozomi.", source: "https://global.jr-central.co.jp/en/", confidence: 0.95),
                Finding(content: "A reserved seat costs ¥14,170 one way in 2026.", source: "JR Central fares", confidence: 0.9),
            ],
            text: "Take the Nozomi: it gets from Tokyo to Kyoto in about 2 h 15 min and a reserved seat costs ¥14,170. In order to save money, utilize the Hikari, which is roughly 20 min slower. Trains leave every 10 minutes from 06:00.",
            confidence: 0.92,
            followups: (["Which seats have the best view of Mount Fuji?", "Is the JR Pass worth it for 7 days?"] + interventions).map(SuggestedFollowup.init(parsing:)))),
        Example(title: "saturated", response: BackendResult(
            taskID: "example-saturated", outcome: .saturated,
            findings: [
                Finding(content: "No public record gives the exact opening date of the café; the earliest review is from 2019-04-02.", source: "https://example.org/reviews/cafe-aurora", confidence: 0.7),
                Finding(content: "The owner said \"we opened in spring\" in a 2021 interview.", source: "Lisbon Eats, issue 14", confidence: 0.65),
            ],
            text: "The café most likely opened in spring 2019. The earliest review is dated 2019-04-02, and the owner only ever said \"we opened in spring\". No registry lists an exact date.",
            confidence: 0.68,
            followups: (["Who owns Café Aurora today?"] + interventions).map(SuggestedFollowup.init(parsing:)))),
        Example(title: "bounded", response: BackendResult(
            taskID: "example-bounded", outcome: .bounded,
            findings: [
                Finding(content: "Of the 12 suppliers checked so far, 4 ship to Portugal within 5 days.", source: "supplier-sheet.csv", confidence: 0.85),
                Finding(content: "Run `make audit` to refresh the list; it read 12 of 30 pages before the limit.", confidence: 0.8),
                Finding(content: "Prices range from €3.20 to €4.75 per unit.", source: "supplier-sheet.csv", confidence: 0.8),
            ],
            text: "I checked 12 of the 30 suppliers before hitting the iteration limit. Four of them ship to Portugal within 5 days, at €3.20 to €4.75 per unit. The remaining 18 are unchecked.",
            confidence: 0.55,
            followups: (["Which of the four has the best reviews?", "Can you check the other 18?", "What about shipping to Spain?", "Do any offer samples?"] + interventions).map(SuggestedFollowup.init(parsing:)))),
        Example(title: "inconclusive", response: BackendResult(
            taskID: "example-inconclusive", outcome: .inconclusive,
            findings: [
                Finding(content: "The city's site says the museum is closed on Mondays.", source: "https://visit.example.city/museums", confidence: 0.7),
                Finding(content: "The museum's own page lists Monday hours of 10:00-18:00 since 2026-01-15.", source: "https://museum.example/hours", confidence: 0.7),
            ],
            text: "The sources disagree on whether the museum opens on Mondays.",
            confidence: 0.35,
            discrepancy: "The city's site says closed on Mondays; the museum's page says 10:00-18:00 on Mondays since 2026-01-15.",
            followups: (["Can you call the museum's number, +351 21 000 0000?", "Which page was updated more recently?"] + interventions).map(SuggestedFollowup.init(parsing:)))),
    ]

    public static func example(_ outcome: Outcome) -> Example? {
        all.first { $0.response.outcome == outcome }
    }
}
