import Foundation
import ReceptionTestSupport
import Testing

/// A newcomer with a model server running on this machine: the first screen names it with the
/// command that switches to it, and that command reaches it. The servers' usual ports are
/// replaced by the reference server's port through RECEPTION_LOCAL_SERVERS, as a person whose
/// Ollama listens elsewhere would set it.
@Suite("Model servers on this machine, at a terminal", .serialized)
struct LocalModelServerTerminalTests {
    static let prompt = "› "

    @Test func theFirstScreenNamesARunningServerAndItsCommandReachesIt() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first)
        let terminal = try TerminalSession(arguments: ["--local-step-ms", "0"],
                                           // A loaded machine may take longer than 50 ms to answer.
                                           environment: ["RECEPTION_LOCAL_SERVERS=llama.cpp=\(port),ollama=1", "RECEPTION_LOCAL_SERVERS_WAIT_MS=10000"])
        var at = try await terminal.waitFor(Self.prompt)
        let firstScreen = String(terminal.screen[..<at])
        #expect(firstScreen.contains("llama.cpp's server answers at http://127.0.0.1:\(port)/v1 (model reference-model): /backend llama.cpp talks to it."),
                "\(firstScreen)")
        #expect(!firstScreen.contains("Ollama"), "nothing listens on port 1: not named")
        terminal.enter("/backend llama.cpp")
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("hello")
        try await terminal.waitFor("You said: hello.", after: at)
    }

    /// A backend chosen on the command line is what the person asked for: no look, no line.
    @Test func aChosenBackendStartsWithoutTheLook() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first)
        let terminal = try TerminalSession(arguments: ["--backend", "local", "--local-step-ms", "0"],
                                           environment: ["RECEPTION_LOCAL_SERVERS=llama.cpp=\(port)", "RECEPTION_LOCAL_SERVERS_WAIT_MS=10000"])
        let at = try await terminal.waitFor(Self.prompt)
        #expect(!terminal.screen[..<at].contains("answers at"), "\(terminal.screen)")
    }

    /// `/backend openai` with nothing configured would ask api.openai.com without a key: it says
    /// how to point it at a server instead, naming the local one running now.
    @Test func anUnconfiguredOpenAIBackendSaysHowToPointItAtAServer() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first)
        let terminal = try TerminalSession(arguments: ["--backend", "local", "--local-step-ms", "0"],
                                           environment: ["RECEPTION_LOCAL_SERVERS=llama.cpp=\(port)", "RECEPTION_LOCAL_SERVERS_WAIT_MS=10000"])
        var at = try await terminal.waitFor(Self.prompt)
        terminal.enter("/backend openai")
        at = try await terminal.waitFor("OPENAI_BASE_URL=http://", after: at)
        try await terminal.waitFor(Self.prompt, after: at)
        let shown = terminal.screen
        #expect(shown.contains("The openai backend is not set up"), "\(shown)")
        #expect(shown.contains("(/backend llama.cpp)"), "the running server is offered: \(shown)")
        #expect(!shown.contains("resolve"), "not a DNS failure: \(shown)")
    }
}
