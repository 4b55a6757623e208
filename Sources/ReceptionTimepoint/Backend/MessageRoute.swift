import Foundation

/// Where a message goes, given the scene in the conversation's context.
///
/// - No scene yet: the message is the query of a new scene.
/// - A scene: a message that names someone in its cast ("ask Oppenheimer what he is
///   thinking", "Oppenheimer, why here?") goes to that character's chat; one addressed to
///   everyone ("ask everyone …") is a survey; one that names nobody but a year ("Rome, 50
///   BCE") is a new scene; anything else is answered with the cast, so a message never
///   spends credits on a scene nobody asked for.
public enum MessageRoute: Sendable, Hashable {
    case generate(query: String)
    case chat(character: String, message: String)
    case survey(question: String)
    case unaddressed

    public init(_ text: String, cast: [SceneCharacter]?) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let cast else {
            self = .generate(query: text)
            return
        }
        let words = Self.words(text)
        let lowered = words.map { $0.lowercased() }
        if let first = lowered.first, ["everyone", "everybody", "all"].contains(first) || (["ask", "tell"].contains(first) && lowered.dropFirst().first.map { ["everyone", "everybody", "all"].contains($0) } == true) {
            let skip = first == "ask" || first == "tell" ? 2 : 1
            let skipOf = lowered.count > skip && lowered[skip] == "of" ? 2 : 0  // "all of you"
            self = .survey(question: Self.rest(of: text, afterWords: skip + skipOf, fallback: text))
            return
        }
        guard let (character, nameWords, position) = Self.addressed(in: lowered, cast: cast) else {
            // A message naming nobody here but a year ("Rome, 50 BCE") is another moment.
            self = Self.namesAYear(lowered) ? .generate(query: text) : .unaddressed
            return
        }
        // "ask NAME rest" and "NAME, rest" send the rest; otherwise the whole message.
        var message = text
        if position == 0 {
            message = Self.rest(of: text, afterWords: nameWords, fallback: text)
        } else if position == 1, ["ask", "tell"].contains(lowered[0]) {
            message = Self.rest(of: text, afterWords: 1 + nameWords, fallback: text)
        }
        self = .chat(character: character, message: message)
    }

    /// The cast member named in the message: the longest run of their name's words that
    /// appears (a full name beats a surname, a surname beats a first name).
    static func addressed(in words: [String], cast: [SceneCharacter]) -> (name: String, nameWords: Int, position: Int)? {
        var best: (name: String, nameWords: Int, position: Int, score: Int)?
        for character in cast {
            let parts = Self.words(character.name).map { $0.lowercased() }.filter { $0.count >= 3 && !Self.ignored.contains($0) }
            guard !parts.isEmpty else { continue }
            // The full name in order.
            let full = Self.words(character.name).map { $0.lowercased() }
            if let position = Self.find(full, in: words) {
                let score = 100 + full.count
                if best == nil || score > best!.score { best = (character.name, full.count, position, score) }
                continue
            }
            for (index, part) in parts.enumerated().reversed() {
                if let position = words.firstIndex(of: part) {
                    let score = index == parts.count - 1 ? 10 : 5  // a surname is more telling than a first name
                    if best == nil || score > best!.score { best = (character.name, 1, position, score) }
                }
            }
        }
        return best.map { ($0.name, $0.nameWords, $0.position) }
    }

    /// True when a word is a year (three or four digits) or an era marker.
    static func namesAYear(_ words: [String]) -> Bool {
        words.contains { word in
            ["bce", "bc", "ad", "ce"].contains(word) || ((3...4).contains(word.count) && word.allSatisfy(\.isNumber))
        }
    }

    /// Words a name shares with ordinary speech, never taken as a name on their own.
    static let ignored: Set<String> = ["the", "old", "young", "mister", "mrs", "miss", "lady", "lord", "sir", "and", "von", "van", "der", "del"]

    static func find(_ needle: [String], in haystack: [String]) -> Int? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle { return start }
        return nil
    }

    /// Words without the punctuation around them ("Oppenheimer," → "Oppenheimer").
    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).map { String($0).trimmingCharacters(in: .punctuationCharacters) }.filter { !$0.isEmpty }
    }

    /// The text after its first `count` words, with a leading comma or colon dropped and the
    /// first letter capitalised; `fallback` when nothing is left.
    static func rest(of text: String, afterWords count: Int, fallback: String) -> String {
        var remainder = Substring(text)
        for _ in 0..<count {
            remainder = remainder.drop { $0.isWhitespace }
            remainder = remainder.drop { !$0.isWhitespace }
        }
        let trimmed = remainder.drop { $0.isWhitespace || $0 == "," || $0 == ":" }
        guard let first = trimmed.first else { return fallback }
        return first.uppercased() + trimmed.dropFirst()
    }
}
