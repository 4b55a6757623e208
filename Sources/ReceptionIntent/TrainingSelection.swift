import Foundation

/// Which labelled messages a training run uses. The human-written corpus in
/// `../shared/corpora/human-train/` is one file for every purpose, so a run picks its part of
/// it here: the id-hash split (as `CorpusSplit`, so a random held-out part never trains), and
/// whole sources left out, for the leave-one-source-out test of how far the classifier
/// carries to a kind of writer it never saw.
public struct TrainingSelection: Sendable, Hashable {
    /// Keep only messages whose id falls in one of these parts; nil keeps every message.
    /// A message without an id falls where the id `label` gives it (a hash of its text) does:
    /// it was left out without a word, and the same file split one way in `label`'s training
    /// hint and another in `train` and `eval`.
    public var splits: Set<CorpusSplit>?
    /// Leave out messages whose `source` is this dataset (the part before ':') or this
    /// `dataset:subset` exactly.
    public var excludedSources: [String]

    public init(splits: Set<CorpusSplit>? = nil, excludedSources: [String] = []) {
        self.splits = splits
        self.excludedSources = excludedSources
    }

    public func contains(_ message: LabelledMessage) -> Bool {
        if let splits {
            guard splits.contains(Self.part(of: message)) else { return false }
        }
        if let source = message.source {
            let dataset = source.split(separator: ":", maxSplits: 1).first.map(String.init) ?? source
            if excludedSources.contains(where: { $0 == source || $0 == dataset }) { return false }
        }
        return true
    }

    public func apply(_ messages: [LabelledMessage]) -> [LabelledMessage] { messages.filter(contains) }

    /// The part of the id-hash split a message is in: by its id, else by the id `label` gives it.
    public static func part(of message: LabelledMessage) -> CorpusSplit {
        CorpusSplit(id: message.id ?? LabellingInput.textID(message.text))
    }

    /// Why `--split` kept none of the messages read, when that is why nothing is left (read, then
    /// all left out): `eval` and `train` say it in the same words, not "no labelled messages".
    public static func whyNoneKept(read: [LabelledMessage], splits: [String]) -> String? {
        let parts = Set(splits.compactMap(CorpusSplit.init(rawValue:)))
        guard !read.isEmpty, !parts.isEmpty, TrainingSelection(splits: parts).apply(read).isEmpty else { return nil }
        let withoutID = read.contains { $0.id == nil }
        return "--split \(splits.joined(separator: ", ")) kept none of the \(read.count) message\(read.count == 1 ? "" : "s") read: the split goes by each message's id"
            + (withoutID ? " (a message without one by a hash of its text, as `label` names it)" : "") + ", and none falls in that part"
    }
}
