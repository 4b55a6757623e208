import Foundation
import ReceptionTestSupport
import Testing

/// Each adapter's own fields, filled by its reference server's `escapes` script with a
/// clear-screen, an OSC 52 clipboard write, an OSC 8 hyperlink, a C1 CSI (U+009B), a bidi
/// override (U+202E) and a BEL around their words (`HostileText`), driven through the
/// `reception` binary with its input and output on pipes. Nothing a terminal would obey may
/// reach standard output or standard error, and the words of every field must: a REPL that
/// dropped the hostile text whole would pass the first check and fail the second.
@Suite("Escape sequences from each adapter's fields", .serialized)
struct EscapeSequenceTerminalTests {
    /// The scalars a terminal acts on, each described, in the order found: C0 controls but
    /// newline and tab, DEL, C1 controls, and the bidi embeddings, overrides and isolates.
    static func controls(in text: String) -> [String] {
        text.unicodeScalars.compactMap { scalar in
            switch scalar.value {
            case 0x0A, 0x09: nil
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: String(format: "U+%04X", scalar.value)
            default: nil
            }
        }
    }

    /// What is left on screen of a sequence whose ESC alone was removed (or written as `\u001b`
    /// in JSON): the clear-screen's and the clipboard write's bodies, the link's target.
    static let residue = ["[2J", "]52;", "aGVsbG8=", "]8;;", "hostile.invalid", "\\u001b", "\\u009b", "\\u202e"]

    /// Both streams are free of terminal controls, and every word arrived in one of them. Text
    /// output (`plain`) also shows nothing of the sequences; `--json` keeps values as they came.
    static func expectClean(output: String, errors: String, words: [String], plain: Bool = true,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(controls(in: output).isEmpty, "standard output: \(controls(in: output)) in \(output.debugDescription)", sourceLocation: sourceLocation)
        #expect(controls(in: errors).isEmpty, "standard error: \(controls(in: errors)) in \(errors.debugDescription)", sourceLocation: sourceLocation)
        let both = output + errors
        if plain {
            for left in residue {
                #expect(!both.contains(left), "\(left) is left of a sequence: \(both)", sourceLocation: sourceLocation)
            }
        }
        for word in words {
            #expect(both.contains(word), "\(word) did not arrive: \(output)\n--- errors ---\n\(errors)", sourceLocation: sourceLocation)
        }
    }

    /// Friday: the answer chunk, the tool's name and input, a blocked command, a rule prompt,
    /// the permission question (tool, description, input) and the error, shown as text; the
    /// notices and thinking (both shapes), which only a spinner shows, in `--json`.
    @Test func fridaysFieldsArriveWithoutTheirEscapes() async throws {
        let (server, url) = try await ReferenceServerProcess.start(["friday", "--step-ms", "5"], url: #"ws://127\.0\.0\.1:\d+/ws"#)
        defer { server.stop() }
        let plain = try await PipedREPL.run(["--backend", "friday"], input: "escapes please\n", environment: ["FRIDAY_URL": url], separateErrors: true)
        Self.expectClean(output: plain.output, errors: plain.errors,
                         words: ["Chunkwords arrive.", "Toolnamewords", "Blockedtoolwords", "Blockedcommandwords", "Blockedreasonwords",
                                 "Ruletitlewords", "Rulemessagewords", "Asktoolwords", "Askdescriptionwords", "Askinputwords"])
        #expect(plain.errors.contains("Errorwords"), "the error is on standard error: \(plain.errors)")
        let json = try await PipedREPL.run(["--backend", "friday", "--json"], input: "escapes please\n", environment: ["FRIDAY_URL": url], separateErrors: true)
        Self.expectClean(output: json.output, errors: json.errors,
                         words: ["Infowords", "Thinkingwords", "Steplabelwords", "Toolinputwords", "Chunkwords arrive.", "Errorwords"], plain: false)
    }

    /// OpenAI-compatible: `reasoning_content` (a spinner's, so in `--json`), the streamed
    /// content, and an error body's message.
    @Test func openAICompatibleFieldsArriveWithoutTheirEscapes() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        defer { try? FileManager.default.removeItem(at: home) }
        let plain = try await PipedREPL.run(["--backend", "oai"], input: "escapes please\nescapeerror please\n", home: home, separateErrors: true)
        Self.expectClean(output: plain.output, errors: plain.errors, words: ["Contentwords arrive whole."])
        #expect(plain.errors.contains("Errorbodywords"), "the error body's message is on standard error: \(plain.errors)")
        let json = try await PipedREPL.run(["--backend", "oai", "--json"], input: "escapes please\n", home: home, separateErrors: true)
        Self.expectClean(output: json.output, errors: json.errors, words: ["Reasoningwords", "Contentwords"], plain: false)
    }

    /// Loop Symphony: the plan (description, instrument step), the summary, findings and
    /// follow-ups of the result, a failed task's error, and the query and progress columns
    /// of the `/tasks` tables.
    @Test func loopSymphonysFieldsArriveWithoutTheirEscapes() async throws {
        let (server, url) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "5"], url: #"http://127\.0\.0\.1:\d+"#)
        defer { server.stop() }
        let answeringHome = try LoopSymphonyTerminalTests().home(for: url, trustLevel: 1)
        defer { try? FileManager.default.removeItem(at: answeringHome) }
        let answered = try await PipedREPL.run(["--backend", "ls-e2e", "--trust", "1"], input: "escapes please\nescapes fail please\n/tasks recent\n",
                                         home: answeringHome, separateErrors: true)
        Self.expectClean(output: answered.output, errors: answered.errors,
                         words: ["Reference note answer to: escapes please", "note finding 1 for: escapes please",
                                 "What would you like to explore next about this?", "Simulated failure: the query asked the reference server to fail",
                                 "Completed", "Failed"])
        #expect(answered.output.components(separatedBy: "escapes fail please").count >= 2, "the query column of /tasks: \(answered.output)")
        let planningHome = try LoopSymphonyTerminalTests().home(for: url, trustLevel: 0)
        defer { try? FileManager.default.removeItem(at: planningHome) }
        let planned = try await PipedREPL.run(["--backend", "ls-e2e"], input: "escapes please\n", home: planningHome, separateErrors: true)
        Self.expectClean(output: planned.output, errors: planned.errors,
                         words: ["Quick, single-pass reasoning for simple questions", "instrument: note"])
    }

    /// Codex: the worker's answer, its refusal (`worker.error`), a runtime error body's
    /// message, and the `/worker` event lines (method and payload).
    @Test func codexFieldsArriveWithoutTheirEscapes() async throws {
        let (server, base) = try await ReferenceServerProcess.start(["codex"], url: #"http://127\.0\.0\.1:\d+"#)
        defer { server.stop() }
        let home = Scratch.root.appendingPathComponent("reception-codex-esc-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let config = home.appendingPathComponent("config/reception")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try #"{"profiles":[{"name":"cdx","kind":"codex","url":"\#(base)","tail_ms":200}]}"#
            .write(to: config.appendingPathComponent("backends.json"), atomically: true, encoding: .utf8)
        let input = "/worker wrk-desktop\nescapes please\nescapes fail please\nescapes refuse please\n/worker wrk-desktop\n"
        let run = try await PipedREPL.run(["--backend", "cdx"], input: input, home: home, separateErrors: true)
        Self.expectClean(output: run.output, errors: run.errors,
                         words: ["accepted: escapes please", "the reference worker was asked to fail", "Refusalwords", "Methodwords", "Notewords"])
    }

    /// A notes file with escape sequences, through the local backend in `--json`: what a
    /// person is shown (`display`) is cleaned, so a script that prints it decoded (`jq -r`)
    /// prints no sequence; the engine's own result keeps the text exact.
    @Test func jsonDisplayIsCleanedOfANotesFilesEscapes() async throws {
        let notes = Scratch.root.appendingPathComponent("reception-notes-esc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        try "# Passwords\n\nThe deploy password is \u{1B}[31mRED\u{1B}[0m and \u{1B}]52;c;aGVsbG8=\u{07} copied.\n"
            .write(to: notes.appendingPathComponent("escapes.md"), atomically: true, encoding: .utf8)
        let run = try await PipedREPL.run(["--knowledge", notes.path, "--local-step-ms", "1", "--json"],
                                          input: "what is the deploy password?\n", separateErrors: true)
        var shown: [String] = []
        var engine: [String] = []
        for line in run.output.split(separator: "\n") {
            let event = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            for block in event["display"] as? [[String: Any]] ?? [] { shown.append(block["markdown"] as? String ?? "") }
            if let result = event["result"] as? [String: Any] { engine.append(result["text"] as? String ?? "") }
        }
        let said = shown.joined(separator: "\n")
        #expect(said.contains("The deploy password is") && Self.controls(in: said).isEmpty && !said.contains("]52;"), "\(said.debugDescription)")
        #expect(engine.joined().contains("\u{1B}[31mRED"), "the engine's text stays exact: \(engine)")
    }
}
