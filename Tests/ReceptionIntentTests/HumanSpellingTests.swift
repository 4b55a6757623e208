import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionIntent

/// How people type, read as they meant it: a word with digits in it is one word, a chat
/// ending after the question leaves it a question, a contraction without its apostrophe is
/// still a contraction.
@Suite("Human spelling", .onTheCPULane)
struct HumanSpellingTests {
    let extractor = FeatureExtractor(lexicon: .shipped, vocabulary: ["401k", "eli5", "ps5", "q1"])

    /// "401k" was read as "401" and "k", so the feature was `k`: now it is the word itself;
    /// a time or an ordinal after a number stays two tokens, for the time features.
    @Test func digitsAndLettersTogetherAreOneWordButTimesStayApart() {
        #expect(extractor.words("should i roll my 401k into an ira") == ["should", "i", "roll", "my", "401k", "into", "an", "ira"])
        #expect(extractor.words("eli5 how a ps5 works") == ["eli5", "how", "a", "ps5", "works"])
        #expect(extractor.words("meet at 3pm on the 15th for 5min") == ["meet", "at", "3", "pm", "on", "the", "15", "th", "for", "5", "minutes"])
        let names = extractor.featureNames("should i roll my 401k into an ira")
        #expect(names.contains("word:\"401k\"") && !names.contains("word:\"k\""), "\(names)")
        let times = extractor.featureNames("meet at 3pm on the 15th")
        #expect(times.contains("time:clock") && times.contains("time:ordinal-date"), "\(times)")
    }

    /// "r" and "u" are chat for "are" and "you", but not in an order id or a line's name:
    /// "#R1042" gave the features `are` and `1042`, "U6" `you`.
    @Test func aChatSpellingFollowedByDigitsIsOneWordAsTyped() {
        #expect(extractor.words("where is my order #R1042") == ["where", "is", "my", "order", "r1042"])
        #expect(extractor.words("take the U6, r u there") == ["take", "the", "u6", "are", "you", "there"])
        let names = extractor.featureNames("where is my order #R1042")
        #expect(!names.contains("word:\"are\""), "\(names)")
        // A longer rewrite with digits after it is still the word it stands for: a time unit.
        #expect(extractor.words("back in 1hr30") == ["back", "in", "1", "hour", "30"])
    }

    /// A lexicon phrase with digits in it is matched as messages are read ("q1", "2nite").
    @Test func lexiconPhrasesWithDigitsMatchAsMessagesAreRead() {
        #expect(extractor.featureNames("can we finish it by q1").contains("phrase:\"q1\""))
        #expect(extractor.featureNames("can u help me 2nite").contains("phrase:\"2nite\""))
    }

    @Test func aChatEndingAfterTheQuestionLeavesItAQuestion() {
        #expect(extractor.featureNames("is this photo of a shark real? lol").contains("struct:question-mark"))
        #expect(extractor.featureNames("can anyone help? thanks").contains("struct:question-mark"))
        #expect(!extractor.featureNames("is this photo of a shark real lol").contains("struct:question-mark"), "no question mark typed")
    }

    @Test func contractionsWithoutTheirApostropheAreExpanded() {
        #expect(extractor.words("youve got to tell me if its worth it, yall") == ["you", "have", "got", "to", "tell", "me", "if", "its", "worth", "it", "you", "all"])
        #expect(extractor.words("shouldve asked, whys it broken") == ["should", "have", "asked", "why", "is", "it", "broken"])
    }
}
