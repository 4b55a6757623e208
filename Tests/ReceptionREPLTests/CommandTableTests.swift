import ReceptionCore
import Testing
@testable import ReceptionREPL

@Suite("Slash command table and completion")
struct CommandTableTests {
    @Test func completesCommandNamesAtTheStartOfTheLine() {
        let words = REPL.completions(line: "/so", backends: ["local"], souls: ["default"], extensions: ["/knowledge"])
        #expect(words.filter { $0.hasPrefix("/so") } == ["/soul"])
        #expect(words.contains("/knowledge"))
    }

    @Test func completesSoulAndBackendNamesAndIntentLabels() {
        #expect(REPL.completions(line: "/soul ", backends: [], souls: ["default", "butler"], extensions: []).contains("butler"))
        #expect(REPL.completions(line: "/backend l", backends: ["local", "loop-symphony"], souls: [], extensions: []) == ["local", "loop-symphony"])
        #expect(REPL.completions(line: "/intent set ", backends: [], souls: [], extensions: []).contains("decision"))
        #expect(REPL.completions(line: "/intent set decision ", backends: [], souls: [], extensions: []).contains("planning"))
    }

    /// A backend's command completes its own arguments (`/model` the server's model names),
    /// from what the backend holds in memory, for the word being typed.
    @Test func aBackendCommandCompletesItsArguments() {
        let words = CompletionWords()
        words.use([BackendCommand(name: "/model", summary: "s", usage: "u",
                                  completions: { $0.isEmpty ? ["small-chat", "large-chat"] : [] }) { _ in "" }])
        func complete(_ line: String) -> [String] {
            REPL.completions(line: line, backends: [], souls: [], extensions: words.extensionCommands,
                             extensionArguments: words.arguments(for:_:))
        }
        #expect(complete("/model ") == ["small-chat", "large-chat"])
        #expect(complete("/model sm") == ["small-chat", "large-chat"], "readline keeps those starting with the word")
        #expect(complete("/model small-chat ").isEmpty, "one name only")
        #expect(complete("/mo").contains("/model"))
    }

    @Test func quotedArgumentsStayTogether() {
        #expect(CommandLineWords.split(#"/save "my notes.md" --force"#) == ["/save", "my notes.md", "--force"])
    }

    @Test func everyCommandHasHelp() {
        for command in SlashCommand.all { #expect(!command.summary.isEmpty && !command.details.isEmpty, "\(command.name)") }
        #expect(SlashCommand.named("exit")?.name == "/quit")
    }
}

@Suite("Terminal text")
struct TerminalTextTests {
    @Test func wrapsAtWordsCountingOnlyVisibleCharactersAndKeepsListIndent() {
        let styled = "  • " + Style.bold("alpha") + " beta gamma delta epsilon zeta eta theta"
        let wrapped = TextWrap.wrap(styled, width: 24).components(separatedBy: "\n")
        #expect(wrapped.count > 1)
        #expect(wrapped.allSatisfy { TextWrap.visibleLength($0) <= 24 })
        #expect(wrapped.dropFirst().allSatisfy { $0.hasPrefix("    ") && !$0.hasPrefix("     ") }, "continuations align with the item text")
        #expect(TextWrap.stripANSI(wrapped.joined(separator: " ")).split(separator: " ").joined(separator: " ")
                == "• alpha beta gamma delta epsilon zeta eta theta")
    }

    /// Some wrapped list lines lost their indent (the first line of a
    /// nested item), and a card's continuation lines lost its bar.
    @Test func aNestedItemKeepsItsIndentAndACardItsBarWhenWrapped() {
        let nested = "      • " + "one two three four five six seven eight"
        let lines = TextWrap.wrap(nested, width: 24).components(separatedBy: "\n")
        #expect(lines.first?.hasPrefix("      • one") == true, "\(lines)")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("        ") && !$0.hasPrefix("         ") }, "\(lines)")
        let card = Style.yellow("┃ ") + "This request is very broad; consider focusing on one part of it."
        let cardLines = TextWrap.wrap(card, width: 30).components(separatedBy: "\n")
        #expect(cardLines.count > 2)
        #expect(cardLines.allSatisfy { TextWrap.stripANSI($0).hasPrefix("┃ ") && TextWrap.visibleLength($0) <= 30 }, "\(cardLines)")
        #expect(TextWrap.stripANSI(cardLines.joined(separator: "\n")).replacingOccurrences(of: "\n┃ ", with: " ")
                == "┃ This request is very broad; consider focusing on one part of it.")
    }

    @Test func markdownStylesOnATerminalAndStripsToPlainText() {
        let markdown = "# Title\nUse **bold**, *em*, `snake_case_code` and a_b_c.\n- item"
        #expect(MarkdownText.render(markdown, styled: false) == "Title\nUse bold, em, snake_case_code and a_b_c.\n  - item")
        // A code span with a space keeps its backticks in plain text: its end would be lost.
        #expect(MarkdownText.render("Run `wsdot ferries --route sea-bi` to check.", styled: false) == "Run `wsdot ferries --route sea-bi` to check.")
        let styled = MarkdownText.render(markdown, styled: true)
        #expect(styled.contains("\u{1B}[1m"))
        #expect(TextWrap.stripANSI(styled).contains("snake_case_code and a_b_c."))
    }

    /// A finding of several lines (a list, a code block) stays under its bullet, not back at
    /// the margin where it reads as the next part of the answer.
    @Test func aFindingOfSeveralLinesStaysUnderItsBullet() {
        let finding = DisplayBlock(role: .finding, title: "What I found", markdown: "Then run:\n\n```\nmake\nmake install\n```\n\nDone.")
        #expect(BlockPrinter(styled: false).text(for: finding) == "What I found\n  - Then run:\n\n        make\n        make install\n\n    Done.")
    }
}
