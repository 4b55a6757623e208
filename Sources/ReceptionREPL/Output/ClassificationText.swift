import ReceptionCore

/// How a classification reads for people: one line after each message, and the full
/// explanation for `/intent`.
public enum ClassificationText {
    public static func line(_ c: IntentClassification) -> String {
        // With one head set by hand, say which: "set by you" alone would claim both, and
        // saying nothing passed the label off as the model's.
        let how = c.intentByHand && c.urgencyByHand ? " · set by you"
            : c.intentByHand ? " · intent set by you" : c.urgencyByHand ? " · urgency set by you" : ""
        return "\(c.intent.rawValue) / \(c.urgency.rawValue) · confidence \(percent(c.intentConfidence)) / \(percent(c.urgencyConfidence))\(how)"
    }

    public static func explanation(_ c: IntentClassification) -> String {
        var lines = ["**intent** " + line(c)]
        let explained = c.intentExplanation != nil || c.urgencyExplanation != nil
        // Labels set by hand: what follows is the model's reading they replaced, said as such.
        // With one set by hand, each head says whose it is: the model's reading of that one
        // was replaced, the other's is the label that went out.
        let oneByHand = c.intentByHand != c.urgencyByHand
        if c.source == .manual, explained { lines += ["", "The model's reading, which your labels replace:"] }
        if let intent = c.intentExplanation {
            if oneByHand { lines += ["", heading("intent", byHand: c.intentByHand)] }
            lines += head("intent", intent)
        }
        if let urgency = c.urgencyExplanation {
            if oneByHand { lines += ["", heading("urgency", byHand: c.urgencyByHand)] }
            lines += head("urgency", urgency)
        }
        if !explained { lines.append("(no feature breakdown: the labels were set by hand)") }
        if let model = c.model, c.source == .classifier || explained { lines += ["", "model: \(TerminalText.clean(model, singleLine: true))"] }
        return lines.joined(separator: "\n")
    }

    /// Whose label a head's breakdown stands behind, when only one head was set by hand.
    static func heading(_ name: String, byHand: Bool) -> String {
        byHand ? "The model's reading of the \(name), which your label replaces:" : "The model's reading of the \(name), which is sent:"
    }

    static func head(_ name: String, _ explanation: HeadExplanation) -> [String] {
        var lines = ["", "**\(name): \(explanation.chosen.label)** \(percent(explanation.chosen.probability))"]
        lines += contributions(explanation.chosen)
        if let runnerUp = explanation.runnerUp {
            lines.append("runner-up **\(runnerUp.label)** \(percent(runnerUp.probability))")
            lines += contributions(runnerUp)
        }
        return lines
    }

    static func contributions(_ score: LabelScore) -> [String] {
        guard !score.contributions.isEmpty else { return ["  (no features fired)"] }
        return score.contributions.prefix(8).map { contribution in
            let sign = contribution.weight >= 0 ? "+" : "−"
            return "  \(sign)\(String(format: "%.2f", abs(contribution.weight)))  `\(contribution.feature)`"
        }
    }

    static func percent(_ value: Double) -> String { "\(Int((value * 100).rounded()))%" }
}

import Foundation
