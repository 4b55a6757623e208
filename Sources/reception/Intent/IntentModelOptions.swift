import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionIntent

/// `--lexicon` and `--weights`, shared by classify, eval, label and bench.
struct IntentModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A cue lexicon file to use instead of the built-in one (the one the weights were trained with).", valueName: "file"))
    var lexicon: String?

    @Option(name: .long, help: ArgumentHelp("A weights file (from `reception train`) to use instead of the built-in model; `built-in` names the built-in one.", valueName: "file"))
    var weights: String?

    /// `--weights built-in` is the built-in model (for symmetry with `eval --against built-in`).
    var weightsPath: String? { IntentModelOptions.path(weights) }

    static let builtIn = "built-in"

    /// A weights argument as a path: nil for none or for `built-in`.
    static func path(_ argument: String?) -> String? { argument == builtIn ? nil : argument }

    /// The model asked for; a file that cannot be used is an error (figures must come from the
    /// model they are said to come from).
    func classifier() throws -> IntentClassifier {
        try Self.classifier(weights: weightsPath, lexicon: lexicon)
    }

    static func classifier(weights: String?, lexicon: String?) throws -> IntentClassifier {
        if lexicon == nil && weights == nil { return IntentClassifier() }
        do {
            return try IntentClassifier(lexiconURL: lexicon.map { URL(fileURLWithPath: $0) },
                                        weightsURL: weights.map { URL(fileURLWithPath: $0) })
        } catch {
            throw IntentCommandError("\(error)")
        }
    }

    /// The model asked for, or the built-in one with a warning when its file cannot be used
    /// (`label`, whose guesses only help a person decide; its screen says which model guessed).
    func classifierOrBuiltIn(doing what: String) -> IntentClassifier {
        let (classifier, refusal) = IntentClassifier.choosing(weights: weightsPath, lexicon: lexicon)
        if let refusal { printError("warning: \(refusal); \(what) with the built-in model instead") }
        return classifier
    }
}

/// A failure the intent commands report as `error: …` with exit status 1.
struct IntentCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What the intent commands say on standard error, cleaned of escape sequences in one place:
/// messages quote file names and errors that carry them (`eval corpora/*` on someone else's
/// files), which a terminal would obey.
func printError(_ message: String) {
    StandardStreams.writeError(TerminalText.clean(message) + "\n")
}
