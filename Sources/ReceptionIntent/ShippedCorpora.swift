import Foundation
import ReceptionCore

/// The corpora the built-in model is trained on, as they lie in a checkout of Reception: the
/// project's model-written train and dev splits, and the `train` and `dev` parts (by id hash)
/// of the human-written corpora in `../shared` beside the checkout (third-party data, read in
/// place, never copied). The options were chosen on the dev parts with the model trained on the
/// train parts; the shipped model is then fitted on both, and the `test` parts stay held out.
/// `reception train --with-shipped-corpora` reads them, to train a person's own labels beside
/// them, or to regenerate the built-in weights; the test that checks those weights reads the
/// same list.
public enum ShippedCorpora {
    /// The model-written train and dev splits, relative to the checkout.
    public static let modelWritten = ["Tests/Corpora/train.jsonl", "Tests/Corpora/dev.jsonl"]
    /// The human-written batches, relative to the checkout: each a folder of messages and two
    /// independent annotators' passes over them. Read as passes (`CorpusReader.read(passes:texts:)`),
    /// not as the agreed file beside them: the messages the annotators agreed on are the same, and
    /// the ones they disagreed on still teach the head they agreed on, and the split on the other
    /// (docs/intent-human-text.md).
    public static let humanWritten = ["../shared/corpora/human-train", "../shared/corpora/human-train/batch-2"]
    /// A batch's files: its messages, then each annotator's pass.
    public static let humanTexts = "messages.jsonl"
    public static let humanPasses = ["labels_a.jsonl", "labels_b.jsonl"]
    /// The parts of the human-written corpora that train; `test` is held out.
    public static let humanParts: Set<CorpusSplit> = [.train, .dev]

    /// The messages, read from the checkout at `root`; any corpus missing is an error that says
    /// which and where it was looked for.
    public static func messages(root: String, strict: Bool = false) throws -> CorpusReader.Result {
        try read(root: root, strict: strict).training
    }

    /// The messages the shipped model trains on, and those it never was: the project's test
    /// split and the `test` parts of the human-written batches, where `eval --split test`
    /// measures it. One read of each batch serves both.
    public static func read(root: String, strict: Bool = false) throws -> (training: CorpusReader.Result, heldOut: [LabelledMessage]) {
        let reader = CorpusReader(strict: strict)
        func path(_ relative: String) -> String { (root as NSString).appendingPathComponent(relative) }
        let humanFiles = humanWritten.flatMap { batch in ([humanTexts] + humanPasses).map { (batch as NSString).appendingPathComponent($0) } }
        for file in modelWritten + humanFiles where !FileManager.default.fileExists(atPath: path(file)) {
            throw CorpusIssue(file: path(file), line: 0, message: "not found: the shipped corpora are read from a checkout of Reception (Tests/Corpora) with the shared corpora beside it (../shared); give the checkout with --corpora-root")
        }
        var result = try reader.read(paths: modelWritten.map(path))
        var heldOut = (try? CorpusReader(strict: false).read(paths: [path("Tests/Corpora/test.jsonl")]).messages) ?? []
        for batch in humanWritten {
            let folder = path(batch)
            let human = try reader.read(passes: humanPasses.map { (folder as NSString).appendingPathComponent($0) },
                                        texts: (folder as NSString).appendingPathComponent(humanTexts))
            result.messages += TrainingSelection(splits: humanParts).apply(human.messages)
            heldOut += TrainingSelection(splits: [.test]).apply(human.messages)
            result.issues += human.issues
            result.notes += human.notes
        }
        return (result, heldOut)
    }

    /// How many of `own` (a person's labels) are messages of the shipped corpora too, by their
    /// words (case and spacing aside): in the ones the shipped model trains on, and in the ones
    /// held out from it. Labels taken from a public corpus repeat its messages; trained beside
    /// the shipped corpora, such a model is then scored on the held-out parts with messages it
    /// learned, and `eval --against` the built-in model says it is better when it only remembers.
    public static func overlap(of own: [LabelledMessage], training: [LabelledMessage], heldOut: [LabelledMessage]) -> (training: Int, heldOut: Int) {
        func key(_ text: String) -> String { text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let trained = Set(training.map { key($0.text) }), held = Set(heldOut.map { key($0.text) })
        let keys = own.map { key($0.text) }
        return (keys.filter(trained.contains).count, keys.filter(held.contains).count)
    }
}
