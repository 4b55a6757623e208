import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionIntent

/// `reception label FILE`: label messages in the terminal, one at a time, with the model's
/// guess, its confidences and the features behind it beside each.
struct LabelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label",
        abstract: "Label your own messages in the terminal, one key per decision.",
        discussion: """
        Reads JSON lines, CSV or TSV (a "text" field or column; optional id, goal, intent, \
        urgency) or plain text (one message a line; any other extension, or --format text). A \
        message without an id gets one from a hash of its text. Each label is appended to the \
        labels file and flushed to the disk as it is made; run the same command again to go \
        on where you stopped. The labels file is a corpus: `reception train LABELS --out \
        WEIGHTS` trains on it.

        Keys: Enter accepts the label shown (at first, the model's guess); d r a c v set the \
        intent (decision, research, action, curiosity, validation); 1 2 3 4 set the urgency \
        (immediate, soon, planning, exploratory); k writes the file's own label; s skips; u \
        takes the last decision back; q (or Ctrl-C, Ctrl-D) stops; ? shows the keys.

        Each intent and urgency is defined, with examples and how ties are broken, in the \
        repository's docs/intents.md; the whole loop (label, train, compare, use) is in \
        docs/intent-labelling.md.
        """)

    @Argument(help: "The messages to label (JSONL, CSV, TSV or plain text).")
    var file: String

    @Option(name: .long, help: ArgumentHelp("The labels file (default: FILE's name with .labels.jsonl).", valueName: "file"))
    var out: String?

    @Option(name: .long, help: ArgumentHelp("uncertain (the model's least sure first), input (as they come), disagreements (only where the file's label and the model disagree).", valueName: "order"))
    var order: String = LabellingOrder.uncertain.rawValue

    @Option(name: .long, help: ArgumentHelp("Read FILE as jsonl, csv, tsv or text whatever its name.", valueName: "format"))
    var format: String?

    @OptionGroup var model: IntentModelOptions

    func validate() throws {
        guard LabellingOrder(rawValue: order) != nil else {
            throw ValidationError("unknown --order \"\(order)\" (expected \(LabellingOrder.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        if let format, LabellingFormat(rawValue: format.lowercased()) == nil {
            throw ValidationError("unknown --format \"\(format)\" (expected \(LabellingFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        if file == "-" { throw ValidationError("label reads your keys from standard input, so the messages come from a file: give its path") }
    }

    /// A file's problems as warnings: the first ten, and how many more.
    static func listed(_ issues: [CorpusIssue], of file: String) -> [String] {
        issues.prefix(10).map { "warning: \($0)" } + (issues.count > 10 ? ["warning: \(issues.count - 10) more lines of \(file) with problems"] : [])
    }

    /// `msgs.txt` → `msgs.labels.jsonl`, beside it.
    static func defaultOut(for input: String) -> String {
        let base = (input as NSString).deletingPathExtension
        return (base.isEmpty ? input : base) + ".labels.jsonl"
    }

    func run() throws {
        // Keys come one at a time from a person at a terminal; a pipe or a file has no person
        // to answer, and a line of it must never be taken for an answer.
        guard isatty(STDIN_FILENO) == 1 else {
            printError("error: reception label reads one key per decision from a terminal, and standard input is not one (it is a pipe or a file). Run it in a terminal; to label without one, write the labels as JSON lines ({\"id\", \"text\", \"intent\", \"urgency\"}) and train on them.")
            throw ExitCode.failure
        }
        guard isatty(STDOUT_FILENO) == 1 else {
            printError("error: reception label draws its screen on a terminal, and standard output is not one; run it without redirecting its output.")
            throw ExitCode.failure
        }
        let outPath = out ?? Self.defaultOut(for: file)
        // printError cleans what it says; "Nothing to label" goes to standard output, where a
        // file name's escape sequences would be obeyed too.
        let shownFile = TerminalText.clean(file, singleLine: true), shownOut = TerminalText.clean(outPath, singleLine: true)
        if URL(fileURLWithPath: outPath).standardizedFileURL == URL(fileURLWithPath: file).standardizedFileURL {
            printError("error: --out \(shownOut) is the file of messages itself; the labels go to a file of their own")
            throw ExitCode.failure
        }
        let classifier = model.classifierOrBuiltIn(doing: "guessing")
        let input: LabellingInput.Result
        do { input = try LabellingInput.read(path: file, format: format.flatMap { LabellingFormat(rawValue: $0.lowercased()) }) } catch {
            printError("error: \(error)")
            throw ExitCode.failure
        }
        // Said before the screen, and again after it (which covers them).
        var warnings = Self.listed(input.issues, of: file)
        if input.repeats > 0 {
            warnings.append("note: \(Counted.phrase(input.repeats, "line")) of \(shownFile) repeat\(input.repeats == 1 ? "s" : "") a message of an earlier line: each message is offered once, and its label stands for every line it is on")
        }
        warnings.forEach(printError)
        guard !input.items.isEmpty else {
            printError("error: no messages to label in \(shownFile)")
            throw ExitCode.failure
        }
        let existed = FileManager.default.fileExists(atPath: outPath)
        let labels: LabelFile
        do { labels = try LabelFile(path: outPath) } catch {
            printError("error: \(error)")
            throw ExitCode.failure
        }
        // A labels file this run created and nothing was written to (quit at the first message,
        // nothing to label, a failed screen) is not left behind as an empty corpus; one that
        // holds a byte (another run's label meanwhile) stays.
        defer {
            if !existed, labels.entries.isEmpty, (try? FileManager.default.attributesOfItem(atPath: outPath)[.size] as? Int) == 0 {
                try? FileManager.default.removeItem(atPath: outPath)
            }
        }
        // x.jsonl and x.tsv share x.labels.jsonl by default: a labels file none of whose labels
        // is of a message here is most likely another file's.
        var fileWarnings: [String] = []
        let ids = Set(input.items.map(\.id))
        if !labels.earlier.isEmpty, !labels.earlier.contains(where: { ids.contains($0.id) }) {
            fileWarnings.append("warning: \(shownOut) holds \(Counted.phrase(labels.earlier.count, "label")), none of them of a message in \(shownFile); is it another file's? (--out names another)")
        }
        if labels.repairedTail { fileWarnings.append("note: \(shownOut) ended in a line that was never finished; it was dropped, and its message comes again") }
        fileWarnings += Self.listed(labels.issues, of: outPath)
        fileWarnings.forEach(printError)
        warnings += fileWarnings
        let order = LabellingOrder(rawValue: self.order)!
        let session = LabellingSession(items: input.items, classifier: classifier, order: order, file: labels)
        if session.queue.isEmpty {
            let why = session.alreadyDone > 0 ? "all \(Counted.phrase(session.alreadyDone, "message")) of \(shownFile) are in \(shownOut) already"
                : order == .disagreements && !input.items.contains(where: { $0.intent != nil || $0.urgency != nil })
                ? "\(shownFile) has no labels of its own to review (--order disagreements shows where they and the model differ)"
                : "the model agrees with every label in \(shownFile)"
            print("Nothing to label: \(why).")
            return
        }
        let screen = LabelScreen(session: session, classifier: classifier, input: file, out: outPath)
        let terminal: KeyboardTerminal
        do { terminal = try KeyboardTerminal() } catch {
            printError("error: \(error)")
            throw ExitCode.failure
        }
        var failure: Error?
        do { try screen.run(on: terminal) } catch { failure = error }
        terminal.restore()
        if let failure {
            printError("error: \(failure)")
            throw ExitCode.failure
        }
        warnings.forEach(printError)
        print(screen.summaryText)
    }
}
