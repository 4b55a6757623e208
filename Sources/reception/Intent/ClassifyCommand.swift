import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionIntent

/// `reception classify "message"` or one message per line on standard input.
struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Classify messages by intent and urgency with the local classifier.",
        discussion: """
        With MESSAGE words, classifies them as one message (`reception classify should i buy it` \
        is one message); without, classifies each line of standard input (a line over 1 MB by \
        its first megabyte; one that is not UTF-8 with its bad bytes replaced, and named). \
        Prints the intent and urgency with their calibrated confidences; --explain adds, for the \
        chosen label and the runner-up of each head, the features that contributed and their weights; \
        --features lists every feature the message turns on, weighted or not (what a model trained \
        outside Reception, such as scripts/intent-replica.py, learns from).

        Intents: decision (help choosing), research (understand in depth), action (get something \
        done), curiosity (a quick fact), validation (confirm or challenge a belief). Urgencies: \
        immediate (now), soon (today or tomorrow), planning (days or weeks ahead), exploratory \
        (no time pressure). Each is defined, with examples and how ties are broken, in the \
        repository's docs/intents.md.
        """)

    @Argument(help: "The message; several words are joined by spaces into one message. Omit to read one message per line from standard input.")
    var message: [String] = []

    @Option(name: .long, help: ArgumentHelp("The conversation goal (TaskContext.goal).", valueName: "text"))
    var goal: String?

    @Flag(name: .long, help: "List the contributing features and weights for the chosen label and the runner-up.")
    var explain = false

    @Flag(name: .long, help: "One JSON object per message (with the explanations).")
    var json = false

    @Flag(name: .long, help: "Also list every feature the message turns on, in extraction order (a \"features\" array with --json).")
    var features = false

    @Flag(name: .long, help: "Standard input is JSON lines, each an object with a \"text\" string, an optional \"goal\" and an optional \"id\" (echoed in the answer); a corpus line is one. For messages that span lines. Implies --json.")
    var jsonlInput = false

    @OptionGroup var model: IntentModelOptions

    func validate() throws {
        if jsonlInput && !message.isEmpty { throw ValidationError("--jsonl-input reads standard input: give no MESSAGE") }
        // A blank message has nothing to classify (blank lines of standard input are skipped
        // for the same reason); a label for it would only be the prior.
        if !message.isEmpty, message.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("The message is empty: there is nothing to classify.")
        }
    }

    func run() throws {
        // A file named on the command line that cannot be used stops the command: answers a
        // script takes for its model's must be that model's (the REPL falls back instead).
        let classifier: IntentClassifier
        do { classifier = try model.classifier() } catch { printError("error: \(error)"); throw ExitCode.failure }
        let json = self.json || jsonlInput
        func emit(_ text: String, goal: String? = self.goal, id: String? = nil) throws {
            var c = classifier.classify(text, goal: goal, explain: explain || json)
            c.model = classifier.modelName
            let active = features ? classifier.extractor.featureNames(text, goal: goal) : nil
            if json { print(try c.jsonLine(text: text, features: active, id: id)); return }
            print(ReportText.classification(text, c, explain: explain), terminator: "")
            if let active { print("  features: \(active.joined(separator: " "))") }
        }
        if !message.isEmpty {
            // `classify inbox.txt` classified the words "inbox.txt": one word that names a file
            // is said to be taken as a message, with how to classify the file's lines.
            if message.count == 1, message[0].contains("."), !message[0].contains(" "),
               FileManager.default.fileExists(atPath: UserPath.expand(message[0])) {
                printError("note: \(TerminalText.line(message[0], limit: 200)) is a file, classified here as a message of one word; "
                           + "to classify its lines: reception classify < \(TerminalText.line(message[0], limit: 200)) (a corpus with labels: reception eval)")
            }
            try emit(message.joined(separator: " "))
            return
        }
        var lineNumber = 0, malformed = 0, notUTF8 = 0
        var restOfALongLine = false
        // At a terminal, `reception classify` alone waited without a word.
        if isatty(STDIN_FILENO) == 1 {
            printError("note: classifying each line you type; Ctrl-D ends (or give the message itself: reception classify \"book a table\")")
        }
        var lines = InputLines()
        while let input = lines.next() {
            // A line past the limit: its first megabyte is the message, the rest is dropped.
            if restOfALongLine { restOfALongLine = input.cut; continue }
            lineNumber += 1
            if input.cut {
                restOfALongLine = true
                // A JSON line cut short is no JSON: said so, not "malformed".
                if jsonlInput {
                    printError("error: standard input line \(lineNumber) is longer than \(InputLines.defaultLimit >> 20) MB (skipped)")
                    malformed += 1
                    continue
                }
                printError("warning: standard input line \(lineNumber) is longer than \(InputLines.defaultLimit >> 20) MB: its first megabyte is classified")
            }
            // Bytes in another encoding (a Windows-1252 export) would be replaced without a
            // sign: the message is still classified, one answer a line, and the line is named.
            var line: String
            if let text = String(validating: input.bytes, as: UTF8.self) {
                line = text
            } else {
                line = String(decoding: input.bytes, as: UTF8.self)
                notUTF8 += 1
                if notUTF8 <= 5 { printError("warning: standard input line \(lineNumber) is \(CorpusText.notUTF8): classified with its bad bytes as \u{FFFD}") }
            }
            // A byte-order mark (Notepad, a PowerShell pipe) is no part of the first message:
            // left in, it hid the first word from the classifier.
            if lineNumber == 1, line.unicodeScalars.first == "\u{FEFF}" { line.unicodeScalars.removeFirst() }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            // A corpus piped in (`classify < labels.csv`) has its header and each row classified
            // as words: said once, with what reads a corpus.
            if lineNumber == 1, !jsonlInput, Self.looksLikeACorpus(line) {
                printError("note: the first line looks like a corpus (a CSV or TSV header, or a JSON object); classify reads each line as a message. "
                           + "For a corpus: reception eval FILE, or classify --jsonl-input for JSON lines")
            }
            guard jsonlInput else { try emit(line); continue }
            // The corpus reader's own line format: what `eval` reads, this reads the same way.
            switch CorpusReader.inputLine(line) {
            case .success(let input):
                try emit(input.text, goal: input.goal ?? goal, id: input.id)
            case .failure(let problem):
                printError("error: standard input line \(lineNumber): \(problem.message) (skipped)")
                malformed += 1
            }
        }
        if notUTF8 > 5 { printError("warning: \(notUTF8 - 5) more lines not valid UTF-8 (\(notUTF8) in all)") }
        // Standard input a directory (`classify < folder`) or closed reads as no line at all: a
        // script took the silence and status 0 for "nothing to classify".
        if let failure = lines.failure {
            printError("error: standard input: \(CorpusReader.unreadable(errno: failure))")
            throw ExitCode.failure
        }
        if malformed > 0 {
            printError("skipped \(Counted.phrase(malformed, "malformed line"))")
            throw ExitCode.failure
        }
    }

    /// "id,text,intent,urgency", "text\tintent", or `{"text": …}`: a corpus, not a message.
    static func looksLikeACorpus(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("{"), trimmed.hasSuffix("}"), trimmed.contains("\"text\"") { return true }
        let fields = trimmed.lowercased().split(whereSeparator: { $0 == "," || $0 == "\t" }).map { $0.trimmingCharacters(in: .whitespaces) }
        return fields.count >= 2 && fields.contains("text") && fields.allSatisfy { !$0.contains(" ") }
    }
}
