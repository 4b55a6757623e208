import Foundation
import ReceptionCore

/// Two models evaluated on the same messages (`reception eval CORPUS --weights A --against B`):
/// their figures side by side and the paired test of each head.
public struct ModelComparison: Sendable, Hashable, Codable {
    public var a: EvaluationReport
    public var b: EvaluationReport
    public var nameA: String
    public var nameB: String
    public var paired: PairedComparison

    public init(a: EvaluationReport, b: EvaluationReport, nameA: String, nameB: String, paired: PairedComparison) {
        self.a = a
        self.b = b
        self.nameA = nameA
        self.nameB = nameB
        self.paired = paired
    }

    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// For the terminal: the corpus and model names are foreign text, so the whole is cleaned
    /// of escape sequences.
    public var text: String { TerminalText.clean(plainText) }

    private var plainText: String {
        let count = a.count
        var out = "Compared two models on the same \(Counted.phrase(count, "message")) from \(a.files.isEmpty ? "memory" : a.files.joined(separator: ", "))"
        out += a.skipped > 0 ? "; skipped \(Counted.phrase(a.skipped, "malformed line"))\n" : "\n"
        out += "  A  \(nameA)\n  B  \(nameB)\n\n"
        let width = 18
        func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count) }
        func f3(_ value: Double) -> String { String(format: "%.3f", value) }
        func signed(_ value: Double) -> String { (value >= 0 ? "+" : "−") + String(format: "%.3f", abs(value)) }
        out += pad("", width) + pad("A", 9) + pad("B", 9) + "A − B\n"
        for (name, headA, headB) in [("intent", a.intent, b.intent), ("urgency", a.urgency, b.urgency)] {
            out += pad("\(name) accuracy", width) + pad(f3(headA.accuracy), 9) + pad(f3(headB.accuracy), 9) + signed(headA.accuracy - headB.accuracy) + "\n"
            out += pad("\(name) macro-F1", width) + pad(f3(headA.macroF1), 9) + pad(f3(headB.macroF1), 9) + signed(headA.macroF1 - headB.macroF1) + "\n"
            out += pad("\(name) ECE", width) + pad(f3(headA.ece), 9) + pad(f3(headB.ece), 9) + signed(headA.ece - headB.ece) + "\n"
        }
        out += "\nIs the difference in accuracy more than chance? McNemar's test on the messages one model got right and the other wrong (two-sided):\n"
        for (name, head) in [("intent", paired.intent), ("urgency", paired.urgency)] {
            out += "  \(pad(name, 8)) only A right \(head.onlyA), only B right \(head.onlyB): "
            out += "p \(Self.pValue(head.p)) (\(head.method == "exact" ? "exact binomial" : "chi-square, continuity-corrected")); "
            out += Self.verdict(head) + "\n"
        }
        return out
    }

    /// "< 0.0001", or "= 0.0123": what follows "p".
    static func pValue(_ p: Double) -> String {
        p < 0.0001 ? "< 0.0001" : p >= 0.9995 ? "= 1.000" : "= " + String(format: p < 0.01 ? "%.4f" : "%.3f", p)
    }

    static func verdict(_ head: PairedComparison.Head) -> String {
        if head.discordant == 0 { return "the two models agree on every message's correctness" }
        if !head.isSignificant { return "no difference beyond chance at the 5% level" }
        return "\(head.onlyA > head.onlyB ? "A" : "B") is better, more than chance at the 5% level"
    }
}
