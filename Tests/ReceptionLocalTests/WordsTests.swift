import Foundation
import Testing
import ReceptionTestSupport
@testable import ReceptionLocal

/// The index reads words by Unicode scalar, ASCII first, for speed; what it reads as a word
/// must stay what a `Character` reading gives (letters and digits, lowercased, an accent typed
/// as a combining mark kept with its letter), or notes would stop being found by their words.
@Suite("Words of a note")
struct WordsTests {
    static func byCharacter(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    @Test func wordsAreReadAsCharactersReadThem() {
        let samples = [
            "Install Tidepool: run `tidepool init --bucket=s3://x` (v2.1), then SYNC!",
            "Café naïve résumé ÉCOLE straße İstanbul ΣΟΦΙΑ σοφία 東京タワー 2024年 x²+y² ½ ⅷ ﬁle ǅ",
            "e\u{301}te\u{301} a\u{20DD} \u{301}alone 👍🏽 a_b a-b don't co-op 3.14 #R1042",
            "",
        ]
        for text in samples { #expect(Words.lowercased(text) == Self.byCharacter(text), "\(text)") }
        #expect(Words.lowercased("Café au lait") == ["café", "au", "lait"])
    }

    /// Japanese and Chinese have no spaces between words: a run is indexed as its pairs of
    /// characters, so a question finds the note by a word inside the run (the whole run was
    /// one word, and no question matched it).
    @Test func unspacedScriptsAreReadInPairsOfCharacters() throws {
        #expect(KnowledgeBase.terms("東京タワー 2024年 猫 Tidepool") == ["東京", "京タ", "タワ", "ワー", "2024", "年", "猫", "tidepool"])
        let folder = Scratch.root.appendingPathComponent("reception-cjk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "# 旅行\n\n東京タワーは夜十時まで開いています。\n\n## 猫\n\n猫の餌は朝と夜に与えてください。\n"
            .write(to: folder.appendingPathComponent("notes.md"), atomically: true, encoding: .utf8)
        let knowledge = try KnowledgeBase(directory: folder)
        #expect(knowledge.search("東京タワーは何時まで開いていますか").first?.passage.heading == "旅行")
        #expect(knowledge.search("猫の餌").first?.passage.heading == "猫")
    }
}
