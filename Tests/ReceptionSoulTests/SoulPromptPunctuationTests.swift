import Foundation
import Testing
import ReceptionTestSupport
@testable import ReceptionSoul

/// `soul prompt` and the system prompt language-model backends get.
@Suite("Prompt punctuation", .onTheCPULane)
struct SoulPromptPunctuationTests {
    @Test(arguments: [("Short and warm.", "- Tone: Short and warm.\n"), ("warm, clear", "- Tone: warm, clear.\n"),
                      ("Blunt. Specific. Kind underneath.", "- Tone: Blunt. Specific. Kind underneath.\n"),
                      // The tone's own closing mark is kept; a period is added only where there is none.
                      ("Lively!", "- Tone: Lively!\n"), ("Curious?", "- Tone: Curious?\n"), ("Dry…", "- Tone: Dry…\n"), ("calm;", "- Tone: calm.\n")])
    func aToneThatEndsASentenceGetsNoSecondMark(_ tone: String, _ expected: String) throws {
        let soul = try SoulParser.parse("---\nname: T\ntone: \"\(tone)\"\n---\n", fileName: "t.md")
        let prompt = SoulPrompts().systemPrompt(soul: soul)
        #expect(prompt.contains(expected), "\(prompt)")
        #expect(!prompt.contains(".."))
    }

    @Test func aToneReadFromTheProseGetsNoSecondMark() throws {
        let soul = try SoulParser.parse("# Pip\n\n## Tone\n\nShort and warm.\n", fileName: "pip.md")
        #expect(soul.tone == "Short and warm.")
        #expect(SoulPrompts().systemPrompt(soul: soul).contains("- Tone: Short and warm.\n"))
    }
}
