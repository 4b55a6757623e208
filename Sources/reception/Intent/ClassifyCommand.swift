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
        With a MESSAGE argument, classifies it; without, classifies each line of standard input. \
        Prints the intent and urgency with their calibrated confidences; --explain adds, for the \
        chosen label and the runner-up of each head, the features that contributed and their weights.
        """)

    @Argument(help: "The message; omit to read one message per line from standard input.")
    var message: [String] = []

    @Option(name: .long, help: ArgumentHelp("The conversation goal (TaskContext.goal).", valueName: "text"))
    var goal: String?

    @Flag(name: .long, help: "List the contributing features and weights for the chosen label and the runner-up.")
    var explain = false

    @Flag(name: .long, help: "One JSON object per message (with the explanations).")
    var json = false

    @OptionGroup var model: IntentModelOptions

    func run() throws {
        let classifier: IntentClassifier
        do { classifier = try model.classifier() } catch { printError("error: \(error)"); throw ExitCode.failure }
        func emit(_ text: String) throws {
            let c = classifier.classify(text, goal: goal, explain: explain || json)
            if json { print(try c.jsonLine(text: text)) } else { print(ReportText.classification(text, c, explain: explain), terminator: "") }
        }
        if !message.isEmpty {
            try emit(message.joined(separator: " "))
            return
        }
        while let line = readLine(strippingNewline: true) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            try emit(line)
        }
    }
}
