import Foundation

extension IntentClassifier {
    /// Whether a short message reads as a follow-up to the turn before, and so inherits its
    /// labels: it goes on from it ("and tomorrow?", "what about the night boat") or points back
    /// at it ("is that true?", "compare them", "the red one"). A short message that stands on
    /// its own ("what can you do?", "why is the sky blue", "good morning") is classified by
    /// its own words: carried over, the turn before outweighed them and read a new question
    /// as the last one's kind (`action` at 85 % for "good morning" after "hi there").
    ///
    /// Only read when there is a turn before, so the hot path of a lone message never pays it.
    static func readsAsFollowUp(_ text: String) -> Bool {
        let words = text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }
        guard let first = words.first else { return false }
        if continuations.contains(first) { return true }
        if words.count > 1, openers.contains(first + " " + words[1]) { return true }
        return words.contains(where: pointers.contains)
    }

    /// First words that go on from the turn before ("same" and "instead" are pointers, anywhere).
    private static let continuations: Set<Substring> = ["and", "or", "but", "also", "so", "then", "plus", "else"]
    private static let openers: Set<String> = ["what about", "how about", "what if", "and if", "why not"]
    private static let pointers: Set<Substring> = [
        "it", "it's", "its", "that", "that's", "this", "these", "those", "them", "they", "they're", "one", "ones",
        "another", "other", "others", "same", "instead", "either", "neither", "both",
    ]
}
