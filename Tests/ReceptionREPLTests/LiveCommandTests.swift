import Foundation
import ReceptionCore
import ReceptionREPL
import ReceptionTesting
import Synchronization
import Testing

/// A backend command that prints as it goes (a live view): each line reaches the screen
/// when it is emitted, cleaned like any server text, and the command's closing words last.
@Suite("Live backend commands")
struct LiveCommandTests {
    @Test func aLiveCommandPrintsAsItGoesAndKnowsItsInputIsNotATerminal() async throws {
        let printedBeforeReturn = Mutex<String>("")
        let transcript = Transcript()
        let command = BackendCommand(name: "/watch", summary: "s", usage: "u") { arguments, output in
            output("first \u{1B}[2Jline")
            try await Task.sleep(for: .milliseconds(50))
            output("second line, interactive: \(output.interactive)")
            output.plain("server said **as is** `x` \u{1B}]52;c;aGk=\u{7}ok")
            printedBeforeReturn.withLock { $0 = transcript.all }
            return "watched \(arguments.joined(separator: " "))"
        }
        let backend = ScriptedBackend { _ in [.event(.result(BackendResult(text: "ok")))] }
        let plugin = BackendPlugin(kind: "scripted", summary: "test", connect: { _, _ in BackendConnection(backend: backend, commands: [command]) })
        let catalog = BackendCatalog(plugins: [plugin], environment: .standard(["HOME": "/nonexistent"]))
        let repl = REPL(configuration: .init(mode: .plain, trustLevel: 1, initialBackend: "scripted"),
                        reader: ScriptedLineReader(["/watch w1"]), console: Console(mode: .plain, sink: { transcript.append($0) }),
                        middleware: [], catalog: catalog, souls: nil)
        _ = await repl.run()
        let before = printedBeforeReturn.withLock { $0 }
        #expect(before.contains("first line") && before.contains("second line, interactive: false"), "printed while it ran:\n\(before)")
        #expect(!before.contains("\u{1B}"), "escape sequences from the command's text are removed")
        #expect(before.contains("server said **as is** `x` ok"), "a plain line is not read as Markdown:\n\(before)")
        let output = transcript.all
        let first = try #require(output.range(of: "first line")), last = try #require(output.range(of: "watched w1"))
        #expect(first.upperBound <= last.lowerBound)
        // Without a live output (a library caller), the command still runs, and prints nothing.
        #expect(try await command.run(["w2"]) == "watched w2")
    }
}
