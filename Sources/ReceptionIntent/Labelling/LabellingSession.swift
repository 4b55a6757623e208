import Foundation
import ReceptionCore

/// The model's guess for a message being labelled, with how sure it is.
public struct LabellingGuess: Sendable, Hashable {
    public var intent: IntentType
    public var urgency: UrgencyLevel
    public var intentConfidence: Double
    public var urgencyConfidence: Double
    /// Each head's top probability less its runner-up's.
    public var intentMargin: Double
    public var urgencyMargin: Double

    /// How sure the model is of the message as a whole: the smaller of the two heads' margins
    /// (a message is only as settled as its less certain head).
    public var margin: Double { min(intentMargin, urgencyMargin) }

    public init(_ classifier: IntentClassifier, text: String, goal: String?) {
        let p = classifier.probabilities(text, goal: goal)
        func top(_ values: [Double]) -> (index: Int, margin: Double) {
            var best = 0
            for k in values.indices where values[k] > values[best] { best = k }
            let second = values.indices.filter { $0 != best }.map { values[$0] }.max() ?? 0
            return (best, values[best] - second)
        }
        let i = top(p.intent), u = top(p.urgency)
        intent = IntentType.knownCases[i.index]
        urgency = UrgencyLevel.knownCases[u.index]
        intentConfidence = p.intent[i.index]
        urgencyConfidence = p.urgency[u.index]
        intentMargin = i.margin
        urgencyMargin = u.margin
    }

    public func disagrees(with item: LabellingItem) -> Bool {
        (item.intent.map { $0 != intent } ?? false) || (item.urgency.map { $0 != urgency } ?? false)
    }
}

/// The order messages are shown in.
public enum LabellingOrder: String, Sendable, CaseIterable {
    /// The messages the model is least sure of first (smallest margin between its top two
    /// labels, on the less certain head): each label then teaches it the most.
    case uncertain
    /// As they come in the file.
    case input
    /// Only messages whose existing label the model disagrees with, the model's surest
    /// disagreements first (to review a corpus: those are the likeliest mislabels).
    case disagreements

    public var summary: String {
        switch self {
        case .uncertain: "least sure first"
        case .input: "as they come"
        case .disagreements: "where the model disagrees with the label"
        }
    }
}

/// A labelling session without a terminal: the queue in its order, what is left of it after
/// the labels file's earlier lines, and each decision written to the file as it is made.
/// `reception label` draws it and reads the keys.
public final class LabellingSession {
    public struct Queued: Sendable, Hashable {
        public var item: LabellingItem
        public var guess: LabellingGuess
    }

    public let file: LabelFile
    public let order: LabellingOrder
    /// What is left to label, in order (messages the file already had are not in it).
    public let queue: [Queued]
    /// Messages of the input the file had already labelled or skipped when the session began.
    public let alreadyDone: Int
    /// The position in `queue` of the message on screen (`queue.count`: none left).
    public private(set) var position = 0

    public init(items: [LabellingItem], classifier: IntentClassifier, order: LabellingOrder, file: LabelFile) {
        self.file = file
        self.order = order
        let done = file.labelled(items)
        let open = zip(items, done).filter { !$0.1 }.map(\.0)
        alreadyDone = items.count - open.count
        queue = Self.ordered(open, by: order, classifier: classifier)
    }

    /// The messages in the session's order, each with the model's guess.
    public static func ordered(_ items: [LabellingItem], by order: LabellingOrder, classifier: IntentClassifier) -> [Queued] {
        let guessed = items.map { Queued(item: $0, guess: LabellingGuess(classifier, text: $0.text, goal: $0.goal)) }
        switch order {
        case .input:
            return guessed
        case .uncertain:
            // Stable: equal margins keep the file's order.
            return guessed.enumerated().sorted { ($0.element.guess.margin, $0.offset) < ($1.element.guess.margin, $1.offset) }.map(\.element)
        case .disagreements:
            func sureness(_ queued: Queued) -> Double {
                var sure = 0.0
                if let intent = queued.item.intent, intent != queued.guess.intent { sure = max(sure, queued.guess.intentConfidence) }
                if let urgency = queued.item.urgency, urgency != queued.guess.urgency { sure = max(sure, queued.guess.urgencyConfidence) }
                return sure
            }
            return guessed.enumerated().filter { $0.element.guess.disagrees(with: $0.element.item) }
                .sorted { (-sureness($0.element), $0.offset) < (-sureness($1.element), $1.offset) }.map(\.element)
        }
    }

    /// The message to decide on now; nil when the queue is done.
    public var current: Queued? { position < queue.count ? queue[position] : nil }

    /// Writes the label for the message on screen and moves on.
    public func label(intent: IntentType, urgency: UrgencyLevel) throws {
        guard let current else { return }
        try file.append(.labelled(current.item, intent: intent, urgency: urgency, guess: current.guess))
        position += 1
    }

    /// Passes over the message on screen (written down, so the next session does too).
    public func skip() throws {
        guard let current else { return }
        try file.append(.skipped(current.item))
        position += 1
    }

    /// Takes back this session's last decision (returned) and shows its message again; nil
    /// when there is none to take back.
    public func undo() throws -> LabelEntry? {
        guard position > 0, let entry = try file.undo() else { return nil }
        position -= 1
        return entry
    }

    /// What the session did, and how often the model's guess was the label given.
    public struct Summary: Sendable, Hashable {
        public var labelled = 0
        public var skipped = 0
        public var intentRight = 0
        public var urgencyRight = 0
        public var bothRight = 0
        public var left = 0
    }

    public var summary: Summary {
        var summary = Summary()
        for entry in file.sessionEntries {
            if entry.skipped { summary.skipped += 1; continue }
            summary.labelled += 1
            if entry.intent == entry.modelIntent { summary.intentRight += 1 }
            if entry.urgency == entry.modelUrgency { summary.urgencyRight += 1 }
            if entry.intent == entry.modelIntent && entry.urgency == entry.modelUrgency { summary.bothRight += 1 }
        }
        summary.left = queue.count - position
        return summary
    }
}
