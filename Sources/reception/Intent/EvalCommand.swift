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
        corpus's held-out part: --split test). --min-accuracy fails (exit 1) when either head is below the bar.
        """)

    @Argument(help: "Corpus files.")
    var files: [String]

    @Flag(name: .long, help: "Print the full report as JSON.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Exit with status 1 if intent or urgency accuracy is below this (0...1).", valueName: "x"))
    var minAccuracy: Double?

    @Option(name: .long, help: ArgumentHelp("Write a self-contained HTML report (index.html with SVG charts) into this directory.", valueName: "dir"))
    var report: String?

    @Flag(name: .long, help: "Stop at the first malformed line.")
    var strict = false

    @Option(name: .long, help: ArgumentHelp("How many of the most confident errors to list.", valueName: "n"))
    var worst = 10

    @Option(name: .long, help: ArgumentHelp("Evaluate only messages whose id falls in this part of the id-hash split (train, dev, test), as `train --split` picks them; repeatable.", valueName: "part"))
    var split: [String] = []

    @OptionGroup var model: IntentModelOptions

    func validate() throws {
        if let minAccuracy, !(0...1).contains(minAccuracy) { throw ValidationError("--min-accuracy must be between 0 and 1") }
        if worst < 0 { throw ValidationError("--worst must be 0 or more") }
        for part in split where CorpusSplit(rawValue: part) == nil { throw ValidationError("unknown split \"\(part)\" (expected train, dev, test)") }
    }

    func run() throws {
        let classifier: IntentClassifier
        do { classifier = try model.classifier() } catch { printError("error: \(error)"); throw ExitCode.failure }
        if let report {
            do { _ = try ReportHTML.checkedTarget(URL(fileURLWithPath: report)) } catch { printError("error: \(error)"); throw ExitCode.failure }
        }
        let readBar = ProgressBar(label: "reading   ")
        let reader = CorpusReader(strict: strict, progress: { done, total in readBar.update(done, total) })
        var corpus: CorpusReader.Result
        do { corpus = try reader.read(paths: files) } catch {
            readBar.finish()
            printError("error: \(error)")
            throw ExitCode.failure
        }
        readBar.finish()
        let read = corpus.messages.count
        let withoutID = corpus.messages.filter { $0.id == nil }.count
        if !split.isEmpty {
            // The held-out part of a corpus that also trains (the human-written one): the same
            // selection `train --split` makes, so the two never overlap.
            corpus.messages = TrainingSelection(splits: Set(split.compactMap(CorpusSplit.init(rawValue:)))).apply(corpus.messages)
        }
        for issue in corpus.issues { printError("warning: \(issue) (skipped)") }
        guard !corpus.messages.isEmpty else {
            if read > 0 {
                // Read, then all left out by --split: say why, not "no labelled messages".
                let why = withoutID == read ? "none of them has an id (an id column or field)" : "no id among them falls in that part"
                printError("error: --split \(split.joined(separator: ", ")) kept none of the \(read) message\(read == 1 ? "" : "s") read: the split goes by each message's id, and \(why)")
            } else {
                printError("error: no labelled messages in \(files.joined(separator: ", "))")
            }
            throw ExitCode.failure
        }
        if !split.isEmpty { printError("--split \(split.joined(separator: ", ")): evaluating \(corpus.messages.count) of the \(read) messages read") }
        let bar = ProgressBar(label: "classifying")
        var progress: (@Sendable (Int, Int) -> Void)? = nil
        if corpus.messages.count >= 20_000 { progress = { done, total in bar.update(done, total) } }
        let result = EvaluationReport.evaluate(corpus.messages, classifier: classifier, files: files, issues: corpus.issues,
                                               worst: worst, progress: progress)
        bar.finish()
        if json { print(try result.json()) } else { print(ReportText.evaluation(result), terminator: "") }
        if let report {
            do {
                let file = try ReportHTML.write(result, to: URL(fileURLWithPath: report))
                printError("report written to \(file.path)")
            } catch {
                printError("error: cannot write the report into \(report): \(PlainFile.reason(of: error))")
                throw ExitCode.failure
            }
        }
        if let minAccuracy, !result.meets(minAccuracy: minAccuracy) {
            printError("error: accuracy below \(minAccuracy): intent \(String(format: "%.3f", result.intent.accuracy)), urgency \(String(format: "%.3f", result.urgency.accuracy))")
            throw ExitCode.failure
        }
    }
}

