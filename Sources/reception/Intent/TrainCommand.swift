import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionIntent

/// `reception train CORPUS... --out FILE`: fits the weights (deterministically).
struct TrainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Fit the intent classifier's weights on labelled corpora.",
        discussion: """
        L2-regularised multinomial logistic regression for each head, then a calibration \
        temperature fitted on cross-validated predictions. The same corpus and options always \
        give the same bytes. --split keeps the messages whose id hashes to that part (repeat \
        for several); --exclude-source leaves out a dataset of the human-written corpus; \
        --labels adds labels kept apart from their texts, such as the project's adjudication \
        of the human corpus's disagreements (--labels Tests/Corpora/human-adjudicated.jsonl \
        --texts ../shared/corpora/human-train/messages.jsonl; not in the shipped model). Two or \
        more --labels files are independent annotators' passes over the same messages, as the \
        shipped model reads the human-written batches (--labels labels_a.jsonl --labels \
        labels_b.jsonl --texts messages.jsonl): what they agree on trains in full, and a \
        message they label differently trains each label with an equal share.

        Your own labels (such as `reception label`'s file) train a model alone, or beside the \
        corpora the built-in model was trained on with --with-shipped-corpora (from a checkout \
        of Reception with ../shared beside it), where each of your messages counts --own-weight \
        times. The shipped weights are:

          reception train --with-shipped-corpora \\
            --lexicon Sources/ReceptionIntent/Model/lexicon.txt \\
            --out Sources/ReceptionIntent/Model/weights.json \\
            --swift Sources/ReceptionIntent/ShippedModel.swift --force
        """)

    @Argument(help: "Training corpora (JSONL, CSV or TSV), such as the labels file of `reception label`; - reads standard input (with --format).")
    var corpora: [String] = []

    @OptionGroup var format: CorpusFormatOption

    @Flag(name: .long, help: "Also train on the corpora the built-in model was trained on (the train and dev splits in Tests/Corpora, and the train and dev parts of both human-written batches in ../shared/corpora/human-train/ as both annotators' passes, read from the checkout --corpora-root names; the test parts stay held out).")
    var withShippedCorpora = false

    @Option(name: .long, help: ArgumentHelp("The checkout of Reception --with-shipped-corpora reads from (. is the current folder).", valueName: "dir"))
    var corporaRoot = "."

    @Option(name: .long, help: "With --with-shipped-corpora: how many times each message of your own corpora (the CORPORA arguments) counts, against once for a model-written one (default 2).")
    var ownWeight: Double?

    @Option(name: .long, help: ArgumentHelp("Where to write the weights file.", valueName: "file"))
    var out: String

    @Option(name: .long, help: ArgumentHelp("Cue lexicon to train with (default: the built-in one).", valueName: "file"))
    var lexicon: String?

    @Option(name: .long, help: ArgumentHelp("Also regenerate the embedded-model Swift source (for the shipped model).", valueName: "file"))
    var swift: String?

    @Option(name: .long, help: ArgumentHelp("Write the built-in lexicon to this file first (a starting point to extend), and train with it.", valueName: "file"))
    var exportLexicon: String?

    @Option(name: .long, help: "L2 strength on cue, structural and time features.")
    var l2 = TrainingOptions().l2

    @Option(name: .long, help: "L2 strength on word features.")
    var l2Words = TrainingOptions().l2Words

    @Option(name: .long, help: "Minimum number of messages a word (or word pair) needs to become a feature; 0 turns word features off.")
    var minWordCount = TrainingOptions().minWordCount

    @Flag(name: .long, help: "No word-pair features.")
    var noBigrams = false

    @Option(name: .long, help: "Class balancing exponent (0 none, 1 fully balanced).")
    var balance = TrainingOptions().balance

    @Option(name: .long, help: "Cross-validation folds for the calibration temperature (0 or 1: no calibration).")
    var folds = TrainingOptions().folds

    @Option(name: .long, help: ArgumentHelp("Train only on messages whose id falls in this part of the id-hash split (train, dev, test); a message without an id goes by the id `label` gives it (a hash of its text); repeatable.", valueName: "part"))
    var split: [String] = []

    @Option(name: .long, help: ArgumentHelp("Leave out messages from this source (a dataset such as clinc150, or dataset:subset); repeatable.", valueName: "source"))
    var excludeSource: [String] = []

    @Option(name: .long, help: ArgumentHelp("Labels without texts ({\"id\", \"intent\", \"urgency\"} lines, such as an adjudication of the human corpus's disagreements), joined by id to the messages of --texts; --split and --exclude-source apply to them too. Given twice or more, each file is one annotator's pass over the same messages: a message they label alike trains once; one they label differently trains on each label with an equal share of its weight, and is left out of the calibration.", valueName: "file"))
    var labels: [String] = []

    @Option(name: .long, help: ArgumentHelp("The messages ({\"id\", \"text\", \"source\"} lines) that --labels label.", valueName: "file"))
    var texts: String?

    @Option(name: .long, help: "Weight of a message with a source (human-written) against one of the project's corpus.")
    var sourceWeight = TrainingOptions().sourceWeight

    @Option(name: .long, help: "Weight of a message with a source in the fit of the calibration temperature.")
    var calibrationSourceWeight = TrainingOptions().calibrationSourceWeight

    @Flag(name: .long, help: "Stop at the first malformed line.")
    var strict = false

    @Flag(name: .long, help: "Replace --out, --swift and --export-lexicon files that already exist.")
    var force = false

    func validate() throws {
        if corpora.isEmpty && !withShippedCorpora && labels.isEmpty {
            throw ValidationError("Give the corpora to train on (such as your labels file), --labels with --texts, or --with-shipped-corpora.")
        }
        try format.validate(files: corpora)
        if let ownWeight {
            guard ownWeight > 0 else { throw ValidationError("--own-weight must be greater than 0.") }
            // Alone, your messages have nothing to be weighed against: the option would do nothing.
            guard withShippedCorpora else { throw ValidationError("--own-weight weighs your corpora against the shipped ones: it goes with --with-shipped-corpora.") }
        }
        if labels.isEmpty != (texts == nil) { throw ValidationError("--labels and --texts go together: the labels file holds ids, the texts file their messages") }
        // Past 1 (1e308, inf) every weight is regularised away and the model written has no
        // feature with any weight: refused, not trained and saved as if it were a model.
        guard l2 > 0, l2Words > 0, l2 <= 1, l2Words <= 1 else {
            throw ValidationError("--l2 and --l2-words must be greater than 0 and at most 1 (the defaults are \(TrainingOptions().l2) and \(TrainingOptions().l2Words)).")
        }
        guard minWordCount >= 0 else { throw ValidationError("--min-word-count must be 0 (no word features) or more.") }
        guard (0...1).contains(balance) else { throw ValidationError("--balance must be from 0 (none) to 1 (fully balanced).") }
        guard (0...20).contains(folds) else { throw ValidationError("--folds must be from 0 to 20 (0 or 1: no calibration).") }
        guard sourceWeight > 0, calibrationSourceWeight >= 0 else {
            throw ValidationError("--source-weight must be greater than 0 and --calibration-source-weight 0 or more.")
        }
        // Two outputs to one file: the second would replace the first without a word.
        let outputs = [("--out", out), ("--swift", swift), ("--export-lexicon", exportLexicon)].compactMap { name, path in path.map { (name, $0) } }
        for (index, (name, path)) in outputs.enumerated() {
            if let other = outputs[..<index].first(where: { URL(fileURLWithPath: $0.1).standardizedFileURL == URL(fileURLWithPath: path).standardizedFileURL }) {
                throw ValidationError("\(other.0) and \(name) both name \(path); each writes a different file.")
            }
        }
        // --force replaces an output; it must not replace what training reads (a corpus named
        // as --out lost its labels to the weights).
        let inputs = corpora.filter { $0 != "-" } + labels + [texts, lexicon].compactMap { $0 }
        for (name, path) in outputs {
            if let input = inputs.first(where: { FileIdentity.same($0, path) }) {
                throw ValidationError("\(name) \(path) is \(input == path ? "" : "\(input), ")one of the files training reads; write to a file of its own.")
            }
        }
        try Self.checkWritable(out, option: "--out", force: force)
        if let swift { try Self.checkWritable(swift, option: "--swift", force: force) }
        if let exportLexicon { try Self.checkWritable(exportLexicon, option: "--export-lexicon", force: force) }
    }

    /// Where a file will be written, checked before minutes of training: a folder that does
    /// not exist, a folder given for a file, or a file that would be lost (weights someone
    /// trained for an hour, a lexicon they edited) without `--force`, is said now in plain words.
    static func checkWritable(_ path: String, option: String, force: Bool) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            let example = ["--swift": "ShippedModel.swift", "--export-lexicon": "lexicon.txt"][option] ?? "weights.json"
            if isDirectory.boolValue { throw ValidationError("\(option) \(path) is a folder; give a file name, such as \(path)/\(example).") }
            if !force { throw ValidationError("\(option) \(path) already exists; add --force to replace it.") }
        }
        let folder = (path as NSString).deletingLastPathComponent
        guard folder.isEmpty || FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), folder.isEmpty || isDirectory.boolValue else {
            throw ValidationError("\(option) \(path): the folder \(folder) does not exist.")
        }
    }

    /// How many messages the lines are, and how many of those the passes split: a message the
    /// passes labelled differently is a line per label, and one message.
    static func messageCount(_ lines: [LabelledMessage]) -> (messages: Int, split: Int) {
        let shared = lines.filter { $0.share != nil }
        let split = Set(shared.map(\.messageKey)).count
        return (lines.count - shared.count + split, split)
    }

    /// Fewer than this, and the calibration's folds hold one or two messages each.
    static let minimumMessages = 20

    func run() throws {
        var lexiconText = ShippedModelSource.shippedLexiconText
        if let exportLexicon {
            try lexiconText.write(toFile: exportLexicon, atomically: true, encoding: .utf8)
            printError("wrote the built-in lexicon to \(exportLexicon)")
        }
        let lexicon: Lexicon
        do {
            if let path = self.lexicon {
                do { lexiconText = try PlainFile.readText(path) } catch let problem as PlainFile.Problem {
                    throw IntentCommandError("cannot read the lexicon \(problem.path): \(problem.reason)")
                }
                lexicon = try Lexicon(text: lexiconText, source: path)
            } else {
                lexicon = .shipped
            }
        } catch { printError("error: \(error)"); throw ExitCode.failure }
        var corpus: CorpusReader.Result
        do {
            corpus = try CorpusReader(strict: strict).read(paths: corpora, format: format.corpusFormat)
            if withShippedCorpora {
                // Beside thousands of shipped messages, a person's few hundred would hardly move
                // the model: they count `ownWeight` times.
                for index in corpus.messages.indices { corpus.messages[index].weight = ownWeight ?? 2 }
                let (shipped, heldOut) = try ShippedCorpora.read(root: corporaRoot, strict: strict)
                let shared = ShippedCorpora.overlap(of: corpus.messages, training: shipped.messages, heldOut: heldOut)
                if shared.heldOut > 0 {
                    printError("note: \(shared.heldOut) of your messages \(shared.heldOut == 1 ? "is" : "are") also in the shipped corpora's held-out test parts: "
                               + "`eval --split test` on them now scores this model on messages it was trained on, and the built-in model on ones it never saw")
                }
                if shared.training > 0 {
                    printError("note: \(shared.training) of your messages \(shared.training == 1 ? "is" : "are") also in the shipped corpora, which train on them as well")
                }
                corpus.messages += shipped.messages
                corpus.issues += shipped.issues
                corpus.notes += shipped.notes
            }
            if let texts, !labels.isEmpty {
                let reader = CorpusReader(strict: strict)
                let joined = labels.count == 1 ? try reader.read(labels: labels[0], texts: texts) : try reader.read(passes: labels, texts: texts)
                corpus.messages += joined.messages
                corpus.issues += joined.issues
                corpus.notes += joined.notes
            }
        } catch { printError("error: \(error)"); throw ExitCode.failure }
        // A few lines of each kind of problem per file, then how many more: a file of thousands
        // of bad lines (a labels file given as a corpus) buried everything else said here.
        for warning in corpus.skippedLineWarnings { printError(warning) }
        for warning in corpus.repeatedIDWarnings { printError(warning) }
        for note in corpus.conflictingLabelNotes { printError(note) }
        for note in corpus.notes { printError("note: \(TerminalText.clean(note, singleLine: true))") }
        if !corpus.issues.isEmpty { printError("skipped \(Counted.phrase(corpus.issues.count, "malformed line"))") }
        var splits: Set<CorpusSplit>? = nil
        if !split.isEmpty {
            splits = []
            for name in split {
                guard let part = CorpusSplit(rawValue: name) else { printError("error: unknown split \"\(name)\" (expected train, dev, test)"); throw ExitCode.failure }
                splits?.insert(part)
            }
        }
        let messages = TrainingSelection(splits: splits, excludedSources: excludeSource).apply(corpus.messages)
        for source in excludeSource where !corpus.messages.contains(where: { $0.source == source || $0.source?.hasPrefix(source + ":") == true }) {
            printError("warning: --exclude-source \(source): no message has that source, so it leaves nothing out")
        }
        if messages.count != corpus.messages.count {
            printError("training on \(Self.messageCount(messages).messages) of \(Self.messageCount(corpus.messages).messages) messages")
        }
        guard !messages.isEmpty else {
            if let why = TrainingSelection.whyNoneKept(read: corpus.messages, splits: split) {
                printError("error: \(why)")
            } else {
                printError("error: no labelled messages in \((corpora + labels + [texts].compactMap { $0 }).joined(separator: ", "))")
            }
            throw ExitCode.failure
        }
        // A head needs two labels to tell apart, and calibration a few messages per fold: a
        // model fitted on less says 1.00 to everything, which no one should mistake for a model.
        let intents = Set(messages.map(\.intent)), urgencies = Set(messages.map(\.urgency))
        if intents.count < 2 || urgencies.count < 2 || messages.count < Self.minimumMessages {
            var problems: [String] = []
            if messages.count < Self.minimumMessages { problems.append("\(messages.count) message\(messages.count == 1 ? "" : "s") (at least \(Self.minimumMessages))") }
            if intents.count < 2 { problems.append("one intent label (\(intents.map(\.rawValue).sorted().joined())) where two or more are needed") }
            if urgencies.count < 2 { problems.append("one urgency label (\(urgencies.map(\.rawValue).sorted().joined())) where two or more are needed") }
            printError("error: too little to train on: \(problems.joined(separator: "; "))")
            throw ExitCode.failure
        }
        var options = TrainingOptions()
        options.l2 = l2
        options.l2Words = l2Words
        options.minWordCount = minWordCount
        options.bigrams = !noBigrams
        options.balance = balance
        options.folds = folds
        options.sourceWeight = sourceWeight
        options.calibrationSourceWeight = calibrationSourceWeight
        let start = Date()
        let weights = Trainer.train(messages, lexicon: lexicon, options: options, log: { printError($0) })
        let json = weights.serialized()
        do {
            // Readable by the owner only (0600), as the labels it was trained on: a weights file
            // holds their words as features.
            try PrivateFile.write(Data(json.utf8), to: URL(fileURLWithPath: out), existing: force ? .replaceRegularFile : .refuse)
            if let swift {
                try ShippedModelSource.render(lexicon: lexiconText, weights: json).write(toFile: swift, atomically: true, encoding: .utf8)
            }
        } catch {
            printError("error: cannot write the weights: \(PlainFile.reason(of: error))")
            throw ExitCode.failure
        }
        let (count, split) = Self.messageCount(messages)
        let splitNote = split == 0 ? "" : " (\(split) of them labelled differently by the passes: each label trains with its share)"
        print("trained on \(count) message\(count == 1 ? "" : "s")\(splitNote) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s: \(weights.features.count) weighted features → \(TerminalText.clean(out, singleLine: true))")
    }
}
