import Foundation
import ReceptionCore

/// Local, fast intent and urgency classifier: weighted cue scoring, softmax confidences,
/// and the contributing features for `/intent` and `classify --explain`.
public struct IntentClassifier: Sendable {
    public let model: CueModel

    public init(model: CueModel = .builtIn) {
        self.model = model
    }

    public func classify(_ text: String, goal: String? = nil, previous: ConversationTurn? = nil) -> IntentClassification {
        let tokens = Tokenizer.tokens(text)
        let joined = " " + tokens.joined(separator: " ") + " "
        let intent = score(head: model.intent, labels: IntentType.knownCases.map(\.rawValue), joined: joined)
        let urgency = score(head: model.urgency, labels: UrgencyLevel.knownCases.map(\.rawValue), joined: joined)
        return IntentClassification(
            intent: IntentType(wire: intent.chosen.label), urgency: UrgencyLevel(wire: urgency.chosen.label),
            intentConfidence: intent.chosen.probability, urgencyConfidence: urgency.chosen.probability,
            intentExplanation: intent, urgencyExplanation: urgency)
    }

    private func score(head: [String: [Cue]], labels: [String], joined: String) -> HeadExplanation {
        var scored: [(label: String, score: Double, contributions: [FeatureContribution])] = labels.map { label in
            var contributions: [FeatureContribution] = []
            var total = model.bias[label] ?? 0
            if total != 0 { contributions.append(FeatureContribution(feature: "bias", weight: total)) }
            for cue in head[label] ?? [] where joined.contains(" \(cue.phrase) ") {
                total += cue.weight
                contributions.append(FeatureContribution(feature: "cue:\"\(cue.phrase)\"", weight: cue.weight))
            }
            return (label, total, contributions.sorted { abs($0.weight) > abs($1.weight) })
        }
        let maxScore = scored.map(\.score).max() ?? 0
        let exps = scored.map { exp($0.score - maxScore) }
        let sum = exps.reduce(0, +)
        scored.sort { $0.score > $1.score }
        let probability = { (label: String) in exps[labels.firstIndex(of: label)!] / sum }
        let make = { (entry: (label: String, score: Double, contributions: [FeatureContribution])) in
            LabelScore(label: entry.label, probability: probability(entry.label), contributions: entry.contributions)
        }
        return HeadExplanation(chosen: make(scored[0]), runnerUp: scored.count > 1 ? make(scored[1]) : nil)
    }
}

/// A word or phrase that pushes one label, matched as whole words.
public struct Cue: Sendable, Hashable, Codable {
    public var phrase: String
    public var weight: Double
}

/// The cue lexicon and per-label biases.
public struct CueModel: Sendable, Hashable, Codable {
    public var intent: [String: [Cue]]
    public var urgency: [String: [Cue]]
    public var bias: [String: Double]

    public static let builtIn = CueModel(
        intent: [
            "decision": cues(2.0, "should i", "or", "vs", "versus", "which", "worth it", "is it worth", "choose", "pick", "better for me", "would you"),
            "research": cues(2.0, "explain", "how does", "history of", "causes of", "deep dive", "overview", "evidence", "research"),
            "action": cues(2.0, "how do i", "steps", "write", "draft", "book", "set up", "fix", "remind me", "make", "create", "help me"),
            "curiosity": cues(1.2, "why", "what is", "what's", "how tall", "how many", "capital", "i wonder", "fun fact", "curious"),
            "validation": cues(2.2, "is it true", "right", "correct", "am i right", "fact check", "really", "i think", "pretty sure", "check my"),
        ],
        urgency: [
            "immediate": cues(2.5, "now", "right now", "asap", "urgent", "emergency", "immediately", "minutes"),
            "soon": cues(2.5, "today", "tonight", "tomorrow", "this afternoon", "this evening", "later"),
            "planning": cues(2.5, "next week", "next month", "next year", "weekend", "summer", "planning", "trip", "in june", "month"),
            "exploratory": cues(1.5, "someday", "in general", "curious", "just wondering"),
        ],
        bias: ["curiosity": 0.5, "exploratory": 1.0])

    private static func cues(_ weight: Double, _ phrases: String...) -> [Cue] {
        phrases.map { Cue(phrase: $0, weight: weight) }
    }
}

/// Lowercased whole-word tokens; apostrophes stay inside words ("what's").
public enum Tokenizer {
    public static func tokens(_ text: String) -> [String] {
        text.lowercased()
            .replacingOccurrences(of: "\u{2019}", with: "'")
            .split { !($0.isLetter || $0.isNumber || $0 == "'") }
            .map(String.init)
    }
}
