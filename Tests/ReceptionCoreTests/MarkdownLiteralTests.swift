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
        ("    # four spaces is code", "    # four spaces is code"), ("-", "\\-"), ("==", "\\=="), ("<!-- hidden", "\\<!-- hidden"),
        ("<h2>Reception</h2>", "\\<h2>Reception</h2>"),
    ])
    func aLineThatWouldOpenABlockIsEscaped(_ typed: String, _ written: String) {
        #expect(MarkdownLiteral.plain(typed) == written)
    }

    @Test func typedLinesStayLinesAndParagraphsStayParagraphs() {
        #expect(MarkdownLiteral.plain("one\ntwo\n\nthree") == "one  \ntwo\n\nthree")
    }

    /// A heading underlined on the next line (any length), and a typed HTML comment, are text.
    @Test func anUnderlineOrAnHTMLCommentCannotMakeAHeadingOrHideTheRest() {
        #expect(MarkdownLiteral.plain("Reception · complete\n-") == "Reception · complete  \n\\-")
        #expect(MarkdownLiteral.nested("Title\n---\nText\n=") == "Title  \n\\---  \nText  \n\\=")
        #expect(MarkdownLiteral.nested("<!-- hide the rest") == "\\<!-- hide the rest")
    }

    /// Fences as CommonMark reads them: one left open is closed (the document's next headings
    /// are not swallowed), four spaces are no fence, and a longer fence is not closed by a
    /// shorter one inside it.
    @Test func codeFencesAreReadAsCommonMarkReadsThem() {
        #expect(MarkdownLiteral.nested("```\n# in code") == "```\n# in code\n```")
        #expect(MarkdownLiteral.nested("text\n    ```\n# Reception") == "text  \n    ```\n\\# Reception")
        #expect(MarkdownLiteral.nested("````\n```\n# still code\n````\n# out") == "````\n```\n# still code\n````\n\\# out")
    }

    /// A shown code block (indented four spaces) gets no hard line break: two spaces after
    /// `docker run -d \` end the shell's line continuation when the command is pasted.
    @Test func anIndentedCommandGetsNoTrailingSpaces() {
        #expect(MarkdownLiteral.nested("Run:\n\n    docker run -d \\\n      --name x \\\n      image\nDone.\nNext.")
                == "Run:\n\n    docker run -d \\\n      --name x \\\n      image\nDone.  \nNext.")
    }

    @Test func anAnswerKeepsItsMarkdownButNotAHeadingOfItsOwn() {
        let answer = "## Steps\n1. **Open** it\n2. Close it\n\n```sh\n# a comment\nls\n```\nDone."
        // No line break before a list item that starts its own line (two spaces ended every
        // item); "3." after a line of text would join it, so the break stays there.
        #expect(MarkdownLiteral.nested("Pick one\n- a\n- b\nOr\n3. c") == "Pick one\n- a\n- b  \nOr  \n3. c")
        #expect(MarkdownLiteral.nested(answer) == "\\## Steps\n1. **Open** it\n2. Close it\n\n```sh\n# a comment\nls\n```\nDone.")
    }
}
