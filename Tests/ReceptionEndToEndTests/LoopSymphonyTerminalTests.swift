import Foundation
import Testing

/// `reception serve loop-symphony` and the REPL on a pseudo-terminal talking to it over
/// 127.0.0.1, through a backend profile in the session's XDG config directory.
@Suite("Loop Symphony through the REPL", .serialized)
struct LoopSymphonyTerminalTests {
    static let prompt = "› "

    /// Starts the reference server on a free port; returns the process and its URL.
    func startServer() throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Binary.reception())
        process.arguments = ["serve", "loop-symphony", "--port", "0", "--step-ms", "20", "--keepalive", "1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
            process.terminate()
            throw HarnessError("the server did not report its URL: \(text)")
        }
        return (process, String(text[range]))
    }

    /// A home directory whose backends.json names the server, with the key in a 0600 file.
    func home(for url: String) throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("reception-ls-e2e-\(UUID().uuidString)")
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let key = config.appendingPathComponent("ls.key")
        try "dev-key\n".write(to: key, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key.path)
        let profiles = #"{"profiles":[{"name":"ls-e2e","kind":"loop-symphony","url":"\#(url)","api_key_file":"\#(key.path)","user_id":"e2e"}]}"#
        try profiles.write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        return home
    }

    @Test func planApproveStreamsInterventionCardsAndTrustOffer() async throws {
        let (server, url) = try startServer()
        defer { server.terminate(); server.waitUntilExit() }
        let terminal = try TerminalSession(arguments: ["--backend", "ls-e2e"], home: try home(for: url))
        var at = try await terminal.waitFor(Self.prompt)

        // Trust 0: the plan comes first; /approve streams the iterations, then the result.
        terminal.enter("research the best hiking trails near Portland")
        at = try await terminal.waitFor("Multi-iteration research with web search and analysis", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        #expect(!terminal.screen[at...].contains("Reference research answer"), "nothing runs before approval")
        terminal.enter("/approve")
        at = try await terminal.waitFor("iteration 1: 4 new findings", after: at)
        at = try await terminal.waitFor("iteration 3:", after: at)
        at = try await terminal.waitFor("Reference research answer to: research the best hiking trails near Portland", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)

        // Interventions arrive as cards, not as plain follow-ups.
        terminal.enter("tell me everything about rust")
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/approve")
        at = try await terminal.waitFor("This request is very broad. Consider focusing on a specific aspect for better results.", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)

        // Three more successes make five: the REPL offers the upgrade and changes nothing until yes.
        terminal.enter("/trust 1")
        at = try await terminal.waitFor(Self.prompt, after: at)
        for n in 1...3 {
            terminal.enter("hello number \(n)")
            at = try await terminal.waitFor("Reference note answer to: hello number \(n)", after: at)
        }
        at = try await terminal.waitFor("5 successful tasks in a row. Enable semi-autonomous mode?", after: at)
        terminal.enter("y")
        at = try await terminal.waitFor("Trust level on the server is now", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/trust-metrics")
        at = try await terminal.waitFor("1 (semi-autonomous)", after: at)
        at = try await terminal.waitFor(Self.prompt, after: at)
        terminal.enter("/rooms")
        try await terminal.waitFor("(this session)", after: at)
    }
}
