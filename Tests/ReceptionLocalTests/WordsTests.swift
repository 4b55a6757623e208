import Foundation
import Testing
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
}
