import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionIntent

/// `reception eval FILE...`: accuracy, macro-F1, per-label scores, confusion matrices,
/// reliability and ECE, the worst errors; JSON for machines, an HTML report for people.
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Evaluate the intent classifier on labelled corpora (JSONL, CSV or TSV).",
        discussion: """
        Each FILE is read by its extension (.jsonl, .csv, .tsv; CSV and TSV need a header with \
        text, intent and urgency columns). A malformed line is reported as file:line and skipped; \
        --strict makes it fatal. --split keeps one part of the id-hash split (the human \
        corpus's held-out part: --split test). --min-accuracy fails (exit 1) when either head is below the bar, \
        or when any line was skipped (unless --allow-skipped).
        """)

    @Argument(help: "Corpus files; - reads standard input (with --format).")
    var files: [String]

    @OptionGroup var format: CorpusFormatOption

    @Flag(name: .long, help: "Print the full report as JSON.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Exit with status 1 if intent or urgency accuracy is below this (0...1).", valueName: "x"))
    var minAccuracy: Double?

    @Option(name: .long, help: ArgumentHelp("Write a self-contained HTML report (index.html with SVG charts) into this directory; an earlier report there is replaced, any other index.html refused.", valueName: "dir"))
    var report: String?

    @Flag(name: .long, help: "Stop at the first malformed line.")
    var strict = false

    @Flag(name: .long, help: "Let --min-accuracy pass although lines were skipped (by default a skipped line fails it).")
    var allowSkipped = false

    @Option(name: .long, help: ArgumentHelp("How many of the most confident errors to list (a message on several lines, labelled alike, is one).", valueName: "n"))
    var worst = 10

    @Option(name: .long, help: ArgumentHelp("Evaluate only messages whose id falls in this part of the id-hash split (train, dev, test), as `train --split` picks them; a message without an id goes by the id `label` gives it (a hash of its text); repeatable.", valueName: "part"))
    var split: [String] = []

    @OptionGroup var model: IntentModelOptions

    @Option(name: .long, help: ArgumentHelp("Compare with this model on the same messages: a weights file, or built-in. Prints both side by side and a paired test (McNemar's) of whether the difference is more than chance.", valueName: "weights|built-in"))
    var against: String?

    @Option(name: .long, help: ArgumentHelp("The lexicon --against was trained with, when not the built-in one.", valueName: "file"))
    var againstLexicon: String?

    func validate() throws {
        if let minAccuracy, !(0...1).contains(minAccuracy) { throw ValidationError("--min-accuracy must be between 0 and 1") }
        if worst < 0 { throw ValidationError("--worst must be 0 or more") }
        try format.validate(files: files)
        for part in split where CorpusSplit(rawValue: part) == nil { throw ValidationError("unknown split \"\(part)\" (expected train, dev, test)") }
        if againstLexicon != nil && against == nil { throw ValidationError("--against-lexicon goes with --against (the model it belongs to)") }
        if against != nil && report != nil { throw ValidationError("--report describes one model; run eval once per model for reports, and --against for the comparison") }
    }

    /// An accuracy to three places, or more when three would round it up to the bar it missed
    /// ("below 0.9: intent 0.8995", not "0.900").
    static func shown(_ value: Double, against bar: Double) -> String {
        var digits = 3
        while digits < 8, value < bar, (Double(String(format: "%.\(digits)f", value)) ?? 0) >= bar { digits += 1 }
        return String(format: "%.\(digits)f", value)
    }

    func run() throws {
        let classifier: IntentClassifier
        var other: IntentClassifier?
        do {
            classifier = try model.classifier()
            if let against {
                other = try IntentModelOptions.classifier(weights: IntentModelOptions.path(against), lexicon: againstLexicon)
                func file(_ path: String?) -> String? { path.map { URL(fileURLWithPath: $0).standardizedFileURL.path } }
                if file(IntentModelOptions.path(against)) == file(model.weightsPath), file(againstLexicon) == file(model.lexicon) {
                    printError("note: --against \(against) is the model being evaluated: both columns are the same model")
                }
            }
        } catch { printError("error: \(error)"); throw ExitCode.failure }
        if let report {
            do { _ = try ReportHTML.checkedTarget(URL(fileURLWithPath: report)) } catch { printError("error: \(error)"); throw ExitCode.failure }
        }
        let readBar = ProgressBar(label: "reading   ")
        let reader = CorpusReader(strict: strict, progress: { done, total in readBar.update(done, total) })
        var corpus: CorpusReader.Result
        do { corpus = try reader.read(paths: files, format: format.corpusFormat) } catch {
            readBar.finish()
            printError("error: \(error)")
            throw ExitCode.failure
        }
        readBar.finish()
        let all = corpus.messages
        let read = all.count
        if !split.isEmpty {
            // The held-out part of a corpus that also trains (the human-written one): the same
            // selection `train --split` makes, so the two never overlap.
            corpus.messages = TrainingSelection(splits: Set(split.compactMap(CorpusSplit.init(rawValue:)))).apply(corpus.messages)
        }
        // A few lines of each kind of problem per file, then how many more: a file of thousands
        // of bad lines (a labels file given as a corpus) buried everything else said here.
        for warning in corpus.skippedLineWarnings { printError(warning) }
        for warning in corpus.repeatedIDWarnings { printError(warning) }
        for note in corpus.conflictingLabelNotes { printError(note) }
        guard !corpus.messages.isEmpty else {
            if let why = TrainingSelection.whyNoneKept(read: all, splits: split) {
                printError("error: \(why)")
            } else {
                printError("error: no labelled messages in \(files.joined(separator: ", "))")
            }
            throw ExitCode.failure
        }
        if !split.isEmpty { printError("--split \(split.joined(separator: ", ")): evaluating \(corpus.messages.count) of the \(read) messages read") }
        let bar = ProgressBar(label: "classifying")
        var progress: (@Sendable (Int, Int) -> Void)? = nil
        if corpus.messages.count >= 20_000 { progress = { done, total in bar.update(done, total) } }
        let shownFiles = files.map { $0 == "-" ? "standard input" : $0 }
        let (result, outcomes) = EvaluationReport.evaluateWithOutcomes(corpus.messages, classifier: classifier, files: shownFiles, issues: corpus.issues,
                                                                       worst: worst, progress: progress)
        if let other {
            // The same messages, the same labels: only the model differs.
            let (otherResult, otherOutcomes) = EvaluationReport.evaluateWithOutcomes(corpus.messages, classifier: other, files: shownFiles,
                                                                                     issues: corpus.issues, worst: worst)
            bar.finish()
            let comparison = ModelComparison(a: result, b: otherResult, nameA: classifier.modelName, nameB: other.modelName,
                                             paired: PairedComparison(intent: PairedComparison.head(a: outcomes.intentRight, b: otherOutcomes.intentRight),
                                                                      urgency: PairedComparison.head(a: outcomes.urgencyRight, b: otherOutcomes.urgencyRight)))
            if json { print(try comparison.json()) } else { print(comparison.text, terminator: "") }
        } else {
            bar.finish()
            if json { print(try result.json()) } else { print(ReportText.evaluation(result), terminator: "") }
        }
        if let report {
            do {
                // Re-running refreshes a report, so an earlier one is replaced without --force;
                // it is said, so a report kept for comparison is not lost unnoticed.
                let replaced = FileManager.default.fileExists(atPath: URL(fileURLWithPath: report).appendingPathComponent("index.html").path)
                let file = try ReportHTML.write(result, to: URL(fileURLWithPath: report))
                printError("report written to \(file.path)\(replaced ? " (it replaced the earlier report there)" : "")")
            } catch {
                printError("error: cannot write the report into \(report): \(PlainFile.reason(of: error))")
                throw ExitCode.failure
            }
        }
        if let minAccuracy, !result.meets(minAccuracy: minAccuracy) {
            printError("error: accuracy below \(minAccuracy): intent \(Self.shown(result.intent.accuracy, against: minAccuracy)), urgency \(Self.shown(result.urgency.accuracy, against: minAccuracy))")
            throw ExitCode.failure
        }
        // A bar met on the lines that could be read says nothing of those that could not: a CSV
        // exported with the wrong quoting passed on one line in two hundred.
        if let minAccuracy, !corpus.issues.isEmpty, !allowSkipped {
            printError("error: --min-accuracy \(minAccuracy) is checked only on a whole corpus: \(corpus.issues.count) line\(corpus.issues.count == 1 ? " was" : "s were") skipped (the warnings above say why) and \(corpus.messages.count) evaluated; mend them, or add --allow-skipped to check the bar on what was read")
            throw ExitCode.failure
        }
    }
}

