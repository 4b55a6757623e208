import Foundation
import ReceptionCore
import ReceptionIntent

/// Which model the REPL classifies with: `reception chat --intent-weights FILE`, else the
/// `weights` (and `lexicon`) of the intent settings file, else the built-in model. A file that
/// cannot be used is refused with a located warning and the built-in model classifies: the
/// chat starts either way, and `/intent` says which model classified.
enum ChatIntentModel {
    static func classifier(option: String?, configDirectory: String, warn: (String) -> Void) -> IntentClassifier {
        if option == IntentModelOptions.builtIn { return IntentClassifier() }
        var weights = option, lexicon: String? = nil
        if option == nil {
            let path = IntentSettings.standardPath(configDirectory: configDirectory)
            do {
                let settings = try IntentSettings.load(path: path)
                weights = settings.weights
                lexicon = settings.lexicon
            } catch {
                warn("warning: \(error); classifying with the built-in model")
                return IntentClassifier()
            }
        }
        let (classifier, refusal) = IntentClassifier.choosing(weights: weights, lexicon: lexicon)
        if let refusal { warn("warning: \(refusal); classifying with the built-in model instead") }
        return classifier
    }
}
