import Foundation

/// Which labelled messages a training run uses. The human-written corpus in
/// `../shared/corpora/human-train/` is one file for every purpose, so a run picks its part of
/// it here: the id-hash split (as `CorpusSplit`, so a random held-out part never trains), and
/// whole sources left out, for the leave-one-source-out test of how far the classifier
/// carries to a kind of writer it never saw.
public struct TrainingSelection: Sendable, Hashable {
    /// Keep only messages whose id falls in one of these parts; nil keeps every message.
    /// A message without an id has no part, so a split leaves it out.
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
            guard let id = message.id, splits.contains(CorpusSplit(id: id)) else { return false }
        }
        if let source = message.source {
            let dataset = source.split(separator: ":", maxSplits: 1).first.map(String.init) ?? source
            if excludedSources.contains(where: { $0 == source || $0 == dataset }) { return false }
        }
        return true
    }

    public func apply(_ messages: [LabelledMessage]) -> [LabelledMessage] { messages.filter(contains) }

    /// Why `--split` kept none of the messages read, when that is why nothing is left (read, then
    /// all left out): `eval` and `train` say it in the same words, not "no labelled messages".
    public static func whyNoneKept(read: [LabelledMessage], splits: [String]) -> String? {
        let parts = Set(splits.compactMap(CorpusSplit.init(rawValue:)))
        guard !read.isEmpty, !parts.isEmpty, TrainingSelection(splits: parts).apply(read).isEmpty else { return nil }
        let withoutID = read.filter { $0.id == nil }.count
        let why = withoutID == read.count ? "none of them has an id (an id column or field)" : "no id among them falls in that part"
        return "--split \(splits.joined(separator: ", ")) kept none of the \(read.count) message\(read.count == 1 ? "" : "s") read: the split goes by each message's id, and \(why)"
    }
}
