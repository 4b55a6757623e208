/// A message that asks for nothing but more of the last answer ("tell me more", "go on", "the
/// rest?"). After an answer the soul cut short, the REPL shows the whole of it rather
/// than send this: the engine already sent everything it had on the question (asked, the
/// local engine answered "I found nothing"). Anything with a subject of its own ("tell me
/// more about the queue") goes to the engine.
enum MoreRequest {
    static func asksForTheRest(_ text: String) -> Bool {
        var words = text.lowercased().split { !($0.isLetter || $0 == "'") }.map(String.init)
        // Politeness and address around the ask do not change it.
        while let first = words.first, ["ok", "okay", "please", "pls", "so", "and", "then", "yes", "sure", "hm", "hmm"].contains(first) { words.removeFirst() }
        while let last = words.last, ["please", "pls", "thanks", "then", "too", "also"].contains(last) { words.removeLast() }
        return asks.contains(words.joined(separator: " "))
    }

    private static let asks: Set<String> = [
        "more", "tell me more", "say more", "more detail", "more details", "go on", "continue", "keep going",
        "the rest", "show the rest", "show me the rest", "what's the rest", "and the rest", "show more", "show me more",
        "give me more", "elaborate", "expand", "expand on that", "go into more detail",
        "all of it", "the whole answer", "the full answer", "show the whole answer", "show me the whole answer",
        "what did you leave out", "what was left out", "what else", "anything else",
    ]
}
