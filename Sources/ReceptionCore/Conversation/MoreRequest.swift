/// A message that asks for nothing but more of the last answer ("tell me more", "go on", "the
/// rest?"), read the same way by the REPL and by engines that keep a conversation. After an
/// answer the soul cut short, the REPL shows the whole of it rather than send this; the local
/// engine takes it for more on the last question's topic, where a search for the words "tell
/// me more" found nothing. Anything with a subject of its own ("tell me more about the
/// queue") is a question of its own.
public enum MoreRequest {
    public static func asksForMore(_ text: String) -> Bool {
        var words = text.lowercased().split { !($0.isLetter || $0 == "'") }.map(String.init)
        // Politeness and assent around the ask do not change it.
        while let first = words.first, leading.contains(first) { words.removeFirst() }
        while let last = words.last, trailing.contains(last) { words.removeLast() }
        return asks.contains(words.joined(separator: " "))
    }

    private static let leading: Set<String> = ["ok", "okay", "please", "pls", "so", "and", "then", "yes", "yeah", "sure", "hm", "hmm"]
    private static let trailing: Set<String> = ["please", "pls", "thanks", "then", "too", "also"]

    private static let asks: Set<String> = [
        "more", "tell me more", "say more", "more detail", "more details", "go on", "continue", "keep going", "carry on", "go ahead",
        "the rest", "show the rest", "show me the rest", "what's the rest", "the rest of it", "show more", "show me more",
        "give me more", "elaborate", "expand", "expand on that", "go into more detail",
        "all of it", "the whole answer", "the full answer", "show the whole answer", "show me the whole answer",
        "what did you leave out", "what was left out", "what else", "anything else",
    ]
}
