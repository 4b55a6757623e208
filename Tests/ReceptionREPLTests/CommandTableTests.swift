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

    @Test func quotedArgumentsStayTogether() {
        #expect(CommandLineWords.split(#"/save "my notes.md" --force"#) == ["/save", "my notes.md", "--force"])
    }

    @Test func everyCommandHasHelp() {
        for command in SlashCommand.all { #expect(!command.summary.isEmpty && !command.details.isEmpty, "\(command.name)") }
        #expect(SlashCommand.named("exit")?.name == "/quit")
    }
}
