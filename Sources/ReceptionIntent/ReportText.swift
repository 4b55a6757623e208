import Foundation
import ReceptionCore

/// Plain-text renderings for the terminal: `reception eval` and `classify --explain`.
public enum ReportText {
    /// Corpus text (messages, ids, the skipped lines' descriptions) is foreign: the report is
    /// cleaned of escape sequences as a whole, and each message is shown on one clipped line.
    public static func evaluation(_ report: EvaluationReport) -> String {
        TerminalText.clean(evaluationText(report))
    }

    private static func evaluationText(_ report: EvaluationReport) -> String {
        var out = ""
        out += "Evaluated \(report.count) message\(report.count == 1 ? "" : "s") from \(report.files.isEmpty ? "memory" : report.files.joined(separator: ", "))"
        out += " in \(String(format: "%.3f", report.seconds)) s"
        if let model = report.model { out += " with the \(model == IntentClassifier.builtInName ? "built-in model" : "model \(model)")" }
        out += report.skipped > 0 ? "; skipped \(Counted.phrase(report.skipped, "malformed line"))\n" : "\n"
        for (name, head) in [("intent", report.intent), ("urgency", report.urgency)] {
            out += "\n== \(name) ==\n"
            out += "accuracy \(f3(head.accuracy))   macro-F1 \(f3(head.macroF1))   ECE \(f3(head.ece))\n\n"
            let width = max(12, (head.labels.map(\.count).max() ?? 0) + 2)
            out += pad("label", width) + pad("precision", 11) + pad("recall", 9) + pad("F1", 8) + "support\n"
            for (index, label) in head.perLabel.enumerated() {
                let shown = head.shownFigures(index, f3)
                out += pad(label.label, width) + pad(shown.precision, 11) + pad(shown.recall, 9) + pad(shown.f1, 8) + "\(label.support)\n"
            }
            out += "\nconfusion (rows: truth, columns: predicted)\n"
            let short = head.labels.map { String($0.prefix(5)) }
            out += pad("", width) + short.map { pad($0, 7) }.joined() + "\n"
            for (i, row) in head.confusion.enumerated() {
                out += pad(head.labels[i], width) + row.map { pad(String($0), 7) }.joined() + "\n"
            }
            out += "\nreliability (confidence bin: count, mean confidence, accuracy)\n"
            for bin in head.reliability where bin.count > 0 {
                out += "  \(f1(bin.lower))-\(f1(bin.upper))  " + pad(String(bin.count), 7) + pad(f3(bin.meanConfidence), 8) + f3(bin.accuracy) + "\n"
            }
        }
        if !report.worstErrors.isEmpty {
            out += "\n== most confident errors ==\n"
            for error in report.worstErrors {
                let c = error.classification
                out += "\n\(error.location)\(error.id.map { " [\($0)]" } ?? ""): \(TerminalText.line(error.text, limit: messageLimit))\n"
                if let repeats = error.repeatedAt { out += "  \(repeatedLine(repeats, of: error.repeatedLines ?? repeats.count))\n" }
                out += "  expected \(error.expectedIntent)/\(error.expectedUrgency), got \(c.intent.rawValue) \(f2(c.intentConfidence)) / \(c.urgency.rawValue) \(f2(c.urgencyConfidence))\n"
                // Each head's block under its name, as `classify --explain` shows them: both
                // heads' blocks list "chosen" and "runner-up", so unnamed they read alike.
                if c.intent.rawValue != error.expectedIntent, let e = c.intentExplanation { out += "  intent:\n" + explanation(e, indent: "    ") }
                if c.urgency.rawValue != error.expectedUrgency, let e = c.urgencyExplanation { out += "  urgency:\n" + explanation(e, indent: "    ") }
            }
        }
        if !report.issues.isEmpty {
            out += "\n== skipped lines ==\n"
            for issue in report.issues.prefix(20) { out += "  \(issue)\n" }
            if report.issues.count > 20 { out += "  … and \(report.issues.count - 20) more\n" }
        }
        return out
    }

    /// Where else a worst error's message is, labelled alike: the first five of the `count`
    /// other places, then how many more.
    public static func repeatedLine(_ locations: [String], of count: Int) -> String {
        let shown = locations.prefix(5).map { TerminalText.line($0, limit: 200) }.joined(separator: ", ")
        let more = count > 5 ? " and \(count - 5) more" : ""
        return "the same message, labelled alike, is also at \(shown)\(more) (\(count + 1) lines in all)"
    }

    /// The chosen label and the runner-up of one head, with their feature contributions.
    public static func explanation(_ head: HeadExplanation, indent: String = "  ", limit: Int = 12) -> String {
        var out = ""
        for (role, score) in [("chosen", head.chosen), ("runner-up", head.runnerUp)] {
            guard let score else { continue }
            out += "\(indent)\(role) \(score.label) (p=\(f2(score.probability))):"
            let shown = score.contributions.prefix(limit)
            out += shown.isEmpty ? " no features\n" : "\n"
            for contribution in shown {
                out += "\(indent)  \(contribution.weight >= 0 ? "+" : "")\(String(format: "%.3f", contribution.weight))  \(contribution.feature)\n"
            }
            if score.contributions.count > limit { out += "\(indent)  … \(score.contributions.count - limit) smaller\n" }
        }
        return out
    }

    /// How much of a message a report line shows: the labels stay on one screen line's worth,
    /// and a pasted 200 KB message is not echoed whole (`--json` has it all).
    static let messageLimit = 240

    /// One classified message, as `classify` prints it (with `--explain`, the features). The
    /// message is the user's or a corpus's text: cleaned of escape sequences, on one line.
    public static func classification(_ text: String, _ c: IntentClassification, explain: Bool) -> String {
        var out = "\(c.intent.rawValue) (\(f2(c.intentConfidence)))  \(c.urgency.rawValue) (\(f2(c.urgencyConfidence)))  \(TerminalText.line(text, limit: messageLimit))\n"
        if explain {
            if let e = c.intentExplanation { out += "  intent:\n" + explanation(e, indent: "    ") }
            if let e = c.urgencyExplanation { out += "  urgency:\n" + explanation(e, indent: "    ") }
        }
        return out
    }

    static func f1(_ value: Double) -> String { String(format: "%.1f", value) }
    static func f2(_ value: Double) -> String { String(format: "%.2f", value) }
    static func f3(_ value: Double) -> String { String(format: "%.3f", value) }
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
