import ReceptionCore

/// How a classification reads for people: one line after each message, and the full
/// explanation for `/intent`.
public enum ClassificationText {
    public static func line(_ c: IntentClassification) -> String {
        let how = c.source == .manual ? " · set by you" : ""
        return "\(c.intent.rawValue) / \(c.urgency.rawValue) · confidence \(percent(c.intentConfidence)) / \(percent(c.urgencyConfidence))\(how)"
    }

    public static func explanation(_ c: IntentClassification) -> String {
        var lines = ["**intent** " + line(c)]
        let explained = c.intentExplanation != nil || c.urgencyExplanation != nil
        // Labels set by hand: what follows is the model's reading they replaced, said as such.
        if c.source == .manual, explained { lines += ["", "The model's reading, which your labels replace:"] }
        if let intent = c.intentExplanation { lines += head("intent", intent) }
        if let urgency = c.urgencyExplanation { lines += head("urgency", urgency) }
        if !explained { lines.append("(no feature breakdown: the labels were set by hand)") }
        if let model = c.model, c.source == .classifier || explained { lines += ["", "model: \(TerminalText.clean(model, singleLine: true))"] }
        return lines.joined(separator: "\n")
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
