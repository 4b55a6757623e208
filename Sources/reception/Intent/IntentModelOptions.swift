import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionIntent

/// `--lexicon` and `--weights`, shared by classify, eval and bench.
struct IntentModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A cue lexicon file to use instead of the built-in one.", valueName: "file"))
    var lexicon: String?

    @Option(name: .long, help: ArgumentHelp("A weights file (from `reception train`) to use instead of the built-in one.", valueName: "file"))
    var weights: String?

    func classifier() throws -> IntentClassifier {
        if lexicon == nil && weights == nil { return IntentClassifier() }
        do {
            return try IntentClassifier(lexiconURL: lexicon.map { URL(fileURLWithPath: $0) },
                                        weightsURL: weights.map { URL(fileURLWithPath: $0) })
        } catch {
            throw IntentCommandError("\(error)")
        }
    }
}

/// A failure the intent commands report as `error: …` with exit status 1.
struct IntentCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func printError(_ message: String) {
    StandardStreams.writeError(message + "\n")
}
