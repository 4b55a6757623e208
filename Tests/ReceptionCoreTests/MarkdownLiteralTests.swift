import Testing
import ReceptionCore

/// Text placed into Reception's Markdown documents reads as it was typed or shown.
@Suite("Markdown literal text")
struct MarkdownLiteralTests {
    @Test(arguments: [
        ("# title", "\\# title"), ("> quoted", "\\> quoted"), ("- item", "\\- item"), ("* item", "\\* item"),
        ("+ item", "\\+ item"), ("1. first", "1\\. first"), ("12) twelfth", "12\\) twelfth"), ("```swift", "\\```swift"),
        ("---", "\\---"), ("===", "\\==="), ("   # indented", "   \\# indented"),
        ("plain words", "plain words"), ("-5 degrees", "-5 degrees"), ("3.5 kg", "3.5 kg"), ("#hashtag", "\\#hashtag"),
        ("    # four spaces is code", "    # four spaces is code"),
    ])
    func aLineThatWouldOpenABlockIsEscaped(_ typed: String, _ written: String) {
        #expect(MarkdownLiteral.plain(typed) == written)
    }

    @Test func typedLinesStayLinesAndParagraphsStayParagraphs() {
        #expect(MarkdownLiteral.plain("one\ntwo\n\nthree") == "one  \ntwo\n\nthree")
    }

    @Test func anAnswerKeepsItsMarkdownButNotAHeadingOfItsOwn() {
        let answer = "## Steps\n1. **Open** it\n2. Close it\n\n```sh\n# a comment\nls\n```\nDone."
        #expect(MarkdownLiteral.nested(answer) == "\\## Steps  \n1. **Open** it  \n2. Close it\n\n```sh\n# a comment\nls\n```\nDone.")
    }
}
