import Foundation
import ReceptionCore

/// Turns backend events into display blocks in a soul's voice. Deterministic and local.
public struct SoulRenderer: Sendable {
    public let soul: Soul

    public init(soul: Soul) {
        self.soul = soul
    }

    /// Blocks for one event; `trustLevel` gates interventions the way the engine does.
    public func render(_ event: BackendEvent, trustLevel: Int) -> [DisplayBlock] {
        switch event {
        case .planAwaitingApproval(let plan):
            return [DisplayBlock(role: .plan, title: "Plan", markdown: plan.description,
                                 items: ["instrument: \(plan.instrument)", "about \(plan.estimatedIterations) iteration(s)",
                                         "/approve to run it, /reject to drop it"])]
        case .progress(let progress):
            return [DisplayBlock(role: .progress, markdown: progress.message)]
        case .failure(let failure):
            return [DisplayBlock(role: .error, markdown: failure.cancelled ? "Cancelled." : failure.message)]
        case .result(let response):
            return render(response, trustLevel: trustLevel)
        case .textDelta(let text):
            return [DisplayBlock(role: .text, markdown: applyVocabulary(text))]
        case .accepted, .status, .toolUse, .permissionRequest:
            return []
        }
    }

    public func render(_ response: TaskResponse, trustLevel: Int) -> [DisplayBlock] {
        var blocks: [DisplayBlock] = []
        let framing = soul.outcomeFraming[response.outcome.rawValue] ?? defaultFraming(response.outcome)
        let summary = [framing, applyVocabulary(response.summary)].filter { !$0.isEmpty }.joined(separator: " ")
        blocks.append(DisplayBlock(role: .summary, markdown: summary))
        if response.outcome == .inconclusive || response.outcome == .bounded || response.findings.count > 1 {
            for finding in response.findings {
                let source = finding.source.map { " (\($0))" } ?? ""
                blocks.append(DisplayBlock(role: .finding, markdown: finding.content + source))
            }
        }
        if let discrepancy = response.discrepancy {
            blocks.append(DisplayBlock(role: .discrepancy, title: "Where the sources disagree", markdown: discrepancy))
        }
        let followups = response.followups.gated(forTrustLevel: trustLevel)
        for intervention in followups.interventions {
            let label = soul.interventionLabels[intervention.type.rawValue] ?? intervention.type.rawValue.capitalized
            blocks.append(DisplayBlock(role: .intervention, title: label, markdown: intervention.message, interventionType: intervention.type))
        }
        if !followups.plainFollowups.isEmpty {
            blocks.append(DisplayBlock(role: .followups, title: soul.followupsTitle, items: followups.plainFollowups))
        }
        if let signOff = soul.signOff { blocks.append(DisplayBlock(role: .signoff, markdown: signOff)) }
        return blocks
    }

    private func defaultFraming(_ outcome: Outcome) -> String {
        switch outcome {
        case .complete: ""
        case .saturated: "This is the best answer available:"
        case .bounded: "A partial answer — I hit my limits:"
        case .inconclusive: "The evidence is mixed."
        case .unknown: ""
        }
    }

    /// Replaces avoided words with preferred ones, whole words only.
    func applyVocabulary(_ text: String) -> String {
        guard !soul.vocabulary.isEmpty else { return text }
        var output = ""
        var word = ""
        func flush() {
            if let replacement = soul.vocabulary[word.lowercased()] { output += replacement } else { output += word }
            word = ""
        }
        for character in text {
            if character.isLetter || character == "'" { word.append(character) } else { flush(); output.append(character) }
        }
        flush()
        return output
    }
}
