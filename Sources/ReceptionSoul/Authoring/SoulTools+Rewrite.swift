import ReceptionCore

/// `soul preview` and `soul diff` with `--rewrite PROFILE`: each example both ways, the
/// deterministic rendering and the language model's rewrite (or why it fell back).
extension SoulPreview {
    public static func render(_ soul: Soul, outcome: Outcome? = nil, trustLevel: Int = 0, rewriter: SoulRewriter) async -> String {
        let renderer = SoulRenderer(soul: soul)
        var sections: [String] = []
        for example in SoulExamples.all where outcome == nil || example.response.outcome == outcome {
            let confidence = example.response.confidence.map { "confidence \($0), " } ?? ""
            let header = "── \(example.title) (\(confidence)trust level \(trustLevel)) ──"
            let deterministic = DisplayBlockText.plain(renderer.render(example.response, trustLevel: trustLevel))
            let (rewritten, verdict) = await rewrite(example.response, soul: soul, trustLevel: trustLevel, rewriter: rewriter)
            sections.append([header, "deterministic:", deterministic, "", "rewritten by \(rewriter.name) — \(verdict):", rewritten].joined(separator: "\n"))
        }
        return sections.joined(separator: "\n\n")
    }

    /// A result rendered with its text rewritten, and what became of the rewrite in words.
    static func rewrite(_ response: BackendResult, soul: Soul, trustLevel: Int, rewriter: SoulRewriter) async -> (String, String) {
        let attempt = await rewriter.rewrite(response.text, soul: soul)
        var result = response
        let verdict: String
        if attempt.accepted, let rewrite = attempt.rewrite {
            result.text = rewrite
            verdict = "every fact kept"
        } else {
            verdict = "fell back to the deterministic rendering: " + (attempt.reason ?? "no rewrite")
            if let rewrite = attempt.rewrite { return (DisplayBlockText.plain(SoulRenderer(soul: soul).render(response, trustLevel: trustLevel)) + "\n(the refused rewrite: \(rewrite))", verdict) }
        }
        return (DisplayBlockText.plain(SoulRenderer(soul: soul).render(result, trustLevel: trustLevel)), verdict)
    }
}

extension SoulDiff {
    /// `report(_:_:)`, then the same example rewritten in both voices, side by side.
    public static func report(_ left: Soul, _ right: Soul, outcome: Outcome = .inconclusive, trustLevel: Int = 0, width: Int = 120,
                              rewriter: SoulRewriter) async -> String {
        var text = report(left, right, outcome: outcome, trustLevel: trustLevel, width: width)
        let example = SoulExamples.example(outcome) ?? SoulExamples.all[0]
        let (leftText, leftVerdict) = await SoulPreview.rewrite(example.response, soul: left, trustLevel: trustLevel, rewriter: rewriter)
        let (rightText, rightVerdict) = await SoulPreview.rewrite(example.response, soul: right, trustLevel: trustLevel, rewriter: rewriter)
        let column = max(20, (width - 3) / 2)
        let leftLines = wrap(leftText, width: column), rightLines = wrap(rightText, width: column)
        var lines = ["", "The \(example.title) example rewritten by \(rewriter.name):",
                     "\(left.name): \(leftVerdict)", "\(right.name): \(rightVerdict)",
                     pad(left.name, column) + " │ " + right.name,
                     String(repeating: "─", count: column) + "─┼─" + String(repeating: "─", count: column)]
        for index in 0..<max(leftLines.count, rightLines.count) {
            lines.append(pad(index < leftLines.count ? leftLines[index] : "", column) + " │ " + (index < rightLines.count ? rightLines[index] : ""))
        }
        text += "\n" + lines.joined(separator: "\n")
        return text
    }
}
