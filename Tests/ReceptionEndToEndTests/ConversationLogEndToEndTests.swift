import Foundation
import GRDB
import ReceptionTestSupport
import Testing

/// The conversation log through the real binary: sessions on a pseudo-terminal and from
/// scripts against the OpenAI-compatible reference server, then `reception logs` and
/// `reception -c` on what they left.
@Suite("Conversation log through the binary", .serialized)
struct ConversationLogEndToEndTests {
    static let prompt = "› "

    static func logPath(_ home: URL) -> String { home.path + "/.local/share/reception/conversations.sqlite" }

    /// Every byte of the log's files: the database, its WAL, and the lines sessions left
    /// pending for it.
    static func logBytes(_ home: URL) -> Data {
        let pending = logPath(home) + "-pending"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: pending)) ?? []).map { "-pending/" + $0 }
        return (["", "-wal", "-shm"] + names).reduce(Data()) {
            $0 + ((try? Data(contentsOf: URL(fileURLWithPath: logPath(home) + $1))) ?? Data())
        }
    }

    /// `reception ARGUMENTS` with no input, in `home`.
    static func reception(_ arguments: [String], home: URL, environment: [String: String] = [:]) async throws -> (output: String, status: Int32) {
        try await PipedREPL.run(arguments, input: "", home: home, environment: environment)
    }

    /// Two terminals carrying the last conversation on: both add to it, and each backend sees
    /// only its own session's turns. The second is told, where it used to merge unsaid; once
    /// the first has left, carrying it on says nothing of the kind.
    @Test func aConversationOpenInAnotherSessionIsSaidWhenCarriedOn() async throws {
        let home = Scratch.root.appendingPathComponent("reception-hold-\(UUID().uuidString)")
        let (_, started) = try await PipedREPL.run(["--local-step-ms", "0"], input: "what is a soul?\n", home: home)
        #expect(started == 0)
        let first = try TerminalSession(arguments: ["-c", "--local-step-ms", "0"], home: home)
        try await first.waitFor("Continuing conversation")
        try await first.waitFor(Self.prompt)
        let (second, _) = try await PipedREPL.run(["-c", "--local-step-ms", "0"], input: "what is trust?\n", home: home)
        #expect(second.contains("is open in another session too: both add to it"), "\(second)")
        first.enter("/quit")
        #expect(try await first.exitStatus() == 0)
        let (third, _) = try await PipedREPL.run(["-c", "--local-step-ms", "0"], input: "", home: home)
        #expect(third.contains("Continuing conversation") && !third.contains("another session"), "\(third)")
    }

    /// The profile a conversation was held with is gone: carrying it on says so and how to
    /// carry it on with another backend, where it said only "Unknown backend".
    @Test func aConversationWhoseProfileIsGoneSaysHowToCarryItOn() async throws {
        let home = try OpenAITerminalTests.home(for: "http://127.0.0.1:9")
        let config = home.appendingPathComponent("config/reception/backends.json")
        try #"{"profiles":[{"name":"garden","kind":"local","step_ms":0}]}"#.write(to: config, atomically: true, encoding: .utf8)
        let (_, started) = try await PipedREPL.run(["--backend", "garden"], input: "what is a soul?\n", home: home)
        #expect(started == 0)
        try FileManager.default.removeItem(at: config)
        let (carried, status) = try await PipedREPL.run(["-c"], input: "", home: home)
        #expect(status == 1)
        #expect(carried.contains("Unknown backend \"garden\"") && carried.contains("The conversation was held with garden; --backend NAME carries it on with another"), "\(carried)")
        let (other, otherStatus) = try await PipedREPL.run(["-c", "--backend", "local", "--local-step-ms", "0"], input: "", home: home)
        #expect(otherStatus == 0 && other.contains("Continuing conversation"), "\(other)")
    }

    @Test func aSessionIsFoundByAWordOfItsThirdAnswerAndCarriedOnWithItsTurns() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        let terminal = try TerminalSession(arguments: ["--backend", "oai"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        for (index, message) in ["hello", "tell me about ferries", "what about the night boat"].enumerated() {
            terminal.enter(message)
            at = try await terminal.waitFor("This is message \(index + 1) of our conversation.", after: at)
            at = try await terminal.waitFor(Self.prompt, after: at)
        }
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus(timeout: .seconds(45)) == 0)

        // "message 3" is in the third answer only (its message does not say it).
        let (found, status) = try await Self.reception(["logs", "-q", "\"message 3\""], home: home)
        #expect(status == 0, "\(found)")
        #expect(found.contains("› what about the night boat"), "\(found)")
        #expect(found.contains("This is message 3 of our conversation."), "\(found)")
        #expect(!found.contains("tell me about ferries"), "only the exchange that holds the words: \(found)")

        // Carried on: the next request holds the three earlier turns, so the model counts four.
        let (carried, carriedStatus) = try await PipedREPL.run(["-c"], input: "and the way back?\n/request\n", home: home)
        #expect(carriedStatus == 0, "\(carried)")
        #expect(carried.contains("Continuing conversation"), "\(carried)")
        #expect(carried.contains("This is message 4 of our conversation."), "\(carried)")
        // Each with the note it was first sent with, worked out again from the log, so that
        // a model server's prompt cache still holds them.
        #expect(carried.contains(#""content" : "tell me about ferries\n\n[Note for this message: "#), "/request shows the earlier turns sent: \(carried)")
        let (listed, _) = try await Self.reception(["logs"], home: home)
        #expect(listed.contains("4 exchanges") && listed.components(separatedBy: "exchanges").count == 2, "one conversation of four: \(listed)")
    }

    /// On a terminal the words found are highlighted, and nothing from the log (a message a
    /// script typed with escape sequences in it) reaches the terminal as an escape sequence.
    @Test func searchResultsAreHighlightedOnATerminalAndCleanedOfEscapeSequences() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        _ = try await PipedREPL.run(["--backend", "oai"], input: "the night \u{1B}]0;pwned\u{07}boat \u{1B}[2Jtimes\n", home: home)
        let terminal = try TerminalSession(arguments: ["logs", "-q", "boat"], home: home)
        #expect(try await terminal.exitStatus(timeout: .seconds(45)) == 0)
        try await terminal.waitFor("times")
        let raw = terminal.rawOutput
        #expect(raw.contains("\u{1B}[1;33mboat\u{1B}[22;39m"), "highlighted: \(raw.debugDescription)")
        #expect(!raw.contains("\u{1B}]0;") && !raw.contains("\u{1B}[2J") && !raw.contains("\u{07}"), "\(raw.debugDescription)")
        // Searched as shown: the words around an escape sequence are found as words, and what
        // the sequence hid (a window title nobody saw) is not found.
        let (hidden, _) = try await Self.reception(["logs", "-q", "pwned"], home: home)
        #expect(hidden.contains("No exchange holds pwned"), "\(hidden)")
        let (phrase, _) = try await Self.reception(["logs", "-q", "\"boat times\""], home: home)
        #expect(phrase.contains("the night boat times"), "\(phrase)")
    }

    @Test func killedMidAnswerTheShownPartIsLoggedAndTheNextSessionStartsNormally() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer(chunkMilliseconds: 20)
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        let terminal = try TerminalSession(arguments: ["--backend", "oai"], home: home)
        var at = try await terminal.waitFor(Self.prompt)
        // The server sends half the answer and then nothing (`halfway`), so the kill lands
        // mid-answer however late this test looks.
        terminal.enter("hello halfway")
        at = try await terminal.waitFor("You said", after: at)
        kill(terminal.pid, SIGKILL)
        #expect(try await terminal.exitStatus(timeout: .seconds(45)) == 128 + SIGKILL)
        let shown = String(terminal.screen[at...])
        #expect(!shown.contains("of our conversation."), "killed before the end: \(shown)")

        let (logged, _) = try await Self.reception(["logs", "show", "last", "--json"], home: home)
        #expect(logged.contains(#""ending" : "interrupted""#), "\(logged)")
        #expect(logged.contains(#""shown" : "Okay. You said"#) && !logged.contains("of our conversation."), "what was shown, no more: \(logged)")
        let integrity = try await DatabaseQueue(path: Self.logPath(home)).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
        let (next, status) = try await PipedREPL.run(["--backend", "oai"], input: "hello again\n", home: home)
        #expect(status == 0 && next.contains("You said: hello again") && !next.contains("warning"), "\(next)")
    }

    @Test func twoSessionsLoggingAtOnceBothComplete() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer(chunkMilliseconds: 2)
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        let input = (1...8).map { "message number \($0)" }.joined(separator: "\n") + "\n"
        let results = try await withThrowingTaskGroup(of: (String, Int32).self) { group in
            for _ in 0..<2 { group.addTask { try await PipedREPL.run(["--backend", "oai"], input: input, home: home) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (output, status) in results {
            #expect(status == 0, "\(output)")
            #expect(output.contains("This is message 8 of our conversation."), "\(output)")
            #expect(!output.contains("not being logged"), "\(output)")
        }
        let (listed, _) = try await Self.reception(["logs", "--json"], home: home)
        #expect(listed.components(separatedBy: #""exchanges" : 8"#).count == 3, "two conversations of eight: \(listed)")
    }

    /// The export is the corpus `eval` and `train` read as it is: the labels set by hand, and
    /// nothing the classifier guessed.
    @Test func anExportedSessionIsACorpusEvalAndTrainRead() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer(chunkMilliseconds: 1)
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        let labelled: [(String, String, String)] = [
            ("should I take the ferry or the bridge next month?", "decision", "planning"),
            ("how do tides work?", "research", "exploratory"),
            ("book me a table for friday", "action", "soon"),
            ("is it true that ferries run all night?", "validation", "immediate"),
            ("why do boats float?", "curiosity", "exploratory"),
        ]
        // Twenty messages labelled by hand, then one the classifier labels.
        var script = ""
        for round in 0..<4 {
            for (text, intent, urgency) in labelled { script += "/intent set \(intent) \(urgency)\n\(text) (\(round))\n" }
        }
        script += "what time is it in Lisbon?\n"
        let (session, status) = try await PipedREPL.run(["--backend", "oai"], input: script, home: home)
        #expect(status == 0, "\(session)")
        let corpus = home.appendingPathComponent("mine.jsonl").path
        let (exported, exportStatus) = try await Self.reception(["logs", "export", "last", "--jsonl", "-o", corpus], home: home)
        #expect(exportStatus == 0, "\(exported)")
        #expect(exported.contains("Wrote 21 messages to \(corpus)."), "how much is said: \(exported)")
        let lines = try String(contentsOfFile: corpus, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 21)
        #expect(lines[0].contains(#""text": "should I take the ferry or the bridge next month? (0)", "intent": "decision", "urgency": "planning""#), "\(lines[0])")
        #expect(lines[20].contains(#""text": "what time is it in Lisbon?""#) && !lines[20].contains("intent"),
                "a label the classifier chose is not exported: \(lines[20])")
        var info = stat()
        #expect(stat(corpus, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let (evaluated, evalStatus) = try await Self.reception(["eval", corpus], home: home)
        #expect(evalStatus == 0, "\(evaluated)")
        #expect(evaluated.contains("Evaluated 20 messages from \(corpus)"), "\(evaluated)")
        #expect(evaluated.contains("\(corpus):21: missing \"intent\" (skipped)"), "the unlabelled line is said, not guessed: \(evaluated)")

        let labelledOnly = home.appendingPathComponent("labelled.jsonl").path
        let (wrote, _) = try await Self.reception(["logs", "export", "--all", "--jsonl", "--labelled", "-o", labelledOnly], home: home)
        #expect(wrote.contains("Wrote 20 messages to \(labelledOnly)."), "\(wrote)")
        // A conversation with nothing labelled by hand: said, and no empty file left behind
        // (which the next export, with something in it, had to replace with --force).
        let (_, _) = try await PipedREPL.run(["--backend", "oai"], input: "nothing labelled here\n", home: home)
        let empty = home.appendingPathComponent("empty.jsonl").path
        let (none, noneStatus) = try await Self.reception(["logs", "export", "last", "--jsonl", "--labelled", "-o", empty], home: home)
        #expect(noneStatus == 0 && none.contains("Nothing to export, so \(empty) was not written.") && none.contains("No exchange there is labelled by hand"),
                "\(none)")
        #expect(!FileManager.default.fileExists(atPath: empty))
        // --force does not replace a file with nothing.
        try "kept\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let (_, _) = try await Self.reception(["logs", "export", "last", "--jsonl", "--labelled", "-o", empty, "--force"], home: home)
        #expect(try String(contentsOfFile: empty, encoding: .utf8) == "kept\n")
        let (strict, strictStatus) = try await Self.reception(["eval", labelledOnly, "--strict"], home: home)
        #expect(strictStatus == 0 && strict.contains("Evaluated 20 messages") && !strict.contains("skipped"), "\(strict)")
        let weights = home.appendingPathComponent("weights.json").path
        let (trained, trainStatus) = try await Self.reception(["train", labelledOnly, "--out", weights, "--strict"], home: home)
        #expect(trainStatus == 0, "\(trained)")
        #expect(FileManager.default.fileExists(atPath: weights))
    }

    /// No key, token or password the session used reaches any of the log's files, even when
    /// the person types it and the server echoes it back.
    @Test func noSecretTheSessionUsedReachesTheLogFiles() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        let key = "sk-e2e-7Hq2Lx9Pz4Vb"
        let fileKey = "fk-e2e-3Mn8Rt5Yw1Qc"
        let keyFile = home.appendingPathComponent("key")
        try fileKey.write(to: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        try #"{"profiles":[{"name":"oai","kind":"openai","url":"\#(url)","api_key_env":"E2E_KEY"},{"name":"other","kind":"openai","url":"\#(url)","api_key_file":"\#(keyFile.path)"}]}"#
            .write(to: home.appendingPathComponent("config/reception/backends.json"), atomically: true, encoding: .utf8)
        let (output, status) = try await PipedREPL.run(["--backend", "oai"], input: "my key is \(key) and \(fileKey)\n/backend other\nagain \(fileKey)\n",
                                                 home: home, environment: ["E2E_KEY": key])
        #expect(status == 0, "\(output)")
        #expect(output.contains("You said: my key is"), "the message went, and the server echoed it: \(output)")
        let bytes = Self.logBytes(home)
        #expect(!bytes.isEmpty)
        for secret in [key, fileKey] { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the log") }
        let (found, _) = try await Self.reception(["logs", "-q", "key"], home: home)
        #expect(found.contains("[secret]"), "\(found)")
    }

    @Test func removingEverythingLeavesNoTextInTheDatabaseItsIndexOrItsWAL() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        _ = try await PipedREPL.run(["--backend", "oai"], input: "tell me about quokkas\nand wombats\n", home: home)
        #expect(Self.logBytes(home).range(of: Data("quokkas".utf8)) != nil)
        let (removed, status) = try await Self.reception(["logs", "rm", "--all", "--yes"], home: home)
        #expect(status == 0 && removed.contains("Removed 1 conversation (2 exchanges)"), "\(removed)")
        let bytes = Self.logBytes(home)
        for word in ["quokkas", "wombats", "You said"] { #expect(bytes.range(of: Data(word.utf8)) == nil, "\(word) is left") }
        let (listed, _) = try await Self.reception(["logs"], home: home)
        #expect(listed.contains("No conversations logged yet."), "\(listed)")
    }

    /// Removing many at a terminal first says how many and asks (anything but "y" keeps
    /// them); a script is never asked, and removes many only with --yes (run from cron or over
    /// ssh, an unconfirmed --all would empty the log unseen); `last` names the newest
    /// conversation, as in `show`.
    @Test func removingManyAtATerminalAsksFirstAndLastNamesTheNewest() async throws {
        let home = Scratch.root.appendingPathComponent("reception-rm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try await PipedREPL.run(["--local-step-ms", "1"], input: "tell me about quokkas\n", home: home)
        _ = try await PipedREPL.run(["--local-step-ms", "1"], input: "and wombats\n", home: home)
        let asked = try TerminalSession(arguments: ["logs", "rm", "--before", "2099-01-01"], home: home)
        try await asked.waitFor("Remove 2 conversations (2 exchanges)? They cannot be brought back. [y/N]")
        asked.enter("n")
        try await asked.waitFor("Nothing was removed.")
        #expect(try await asked.exitStatus() == 0)
        let (kept, _) = try await Self.reception(["logs"], home: home)
        #expect(kept.contains("quokkas") && kept.contains("wombats"), "\(kept)")
        let (removed, status) = try await Self.reception(["logs", "rm", "last"], home: home)
        #expect(status == 0 && removed.contains("Removed 1 conversation (1 exchange)"), "\(removed)")
        let (left, _) = try await Self.reception(["logs"], home: home)
        #expect(left.contains("quokkas") && !left.contains("wombats"), "the newest went: \(left)")
        let (refused, refusedStatus) = try await Self.reception(["logs", "rm", "--all"], home: home)
        #expect(refusedStatus == 1 && !refused.contains("[y/N]"), "a script is not asked: \(refused)")
        #expect(refused.contains("nothing was removed: this would remove 1 conversation (1 exchange)") && refused.contains("Add --yes"),
                "\(refused)")
        let (stillThere, _) = try await Self.reception(["logs"], home: home)
        #expect(stillThere.contains("quokkas"), "\(stillThere)")
        let (scripted, _) = try await Self.reception(["logs", "rm", "--all", "--yes"], home: home)
        #expect(scripted.contains("Removed 1 conversation") && !scripted.contains("[y/N]"), "a script is not asked: \(scripted)")
    }

    /// A "y" typed before the question appeared does not answer it; an empty id (a script's
    /// unset variable) is a usage error, not a prefix of every id.
    @Test func aYTypedAheadOrAnEmptyIdRemovesNothing() async throws {
        let home = Scratch.root.appendingPathComponent("reception-rm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try await PipedREPL.run(["--local-step-ms", "1"], input: "tell me about quokkas\n", home: home)
        for arguments in [["logs", "rm", ""], ["logs", "show", " "], ["logs", "export", ""]] {
            let (refused, status) = try await Self.reception(arguments, home: home)
            #expect(status == 64 && refused.contains("The conversation id is empty"), "\(arguments): \(refused)")
        }
        let asked = try TerminalSession(arguments: ["logs", "rm", "--all"], home: home)
        asked.type("y\r")  // before the program has started, let alone asked
        var at = try await asked.waitFor("(What was typed before this question was discarded.)")
        at = try await asked.waitFor("[y/N]", after: at)
        asked.enter("n")
        try await asked.waitFor("Nothing was removed.", after: at)
        #expect(try await asked.exitStatus() == 0)
        let (kept, _) = try await Self.reception(["logs"], home: home)
        #expect(kept.contains("quokkas"), "\(kept)")
    }

    /// "1M" is a month to many and a minute to `m`: refused, not guessed.
    @Test func anAgeInCapitalMIsRefusedNotReadAsMinutes() async throws {
        let home = Scratch.root.appendingPathComponent("reception-since-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let (refused, status) = try await Self.reception(["logs", "--since", "1M"], home: home)
        #expect(status == 64 && refused.contains("--since 1M is not a date"), "\(refused)")
        let (_, minutes) = try await Self.reception(["logs", "--since", "30m"], home: home)
        #expect(minutes == 0)
    }

    @Test func noLogAndLogsOffKeepSessionsOutAndAreSaid() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        _ = try await PipedREPL.run(["--backend", "oai", "--no-log"], input: "not for the log\n", home: home)
        #expect(Self.logBytes(home).isEmpty, "a session with --no-log creates no log")
        let (off, _) = try await Self.reception(["logs", "off"], home: home)
        #expect(off.contains("no longer logged"), "\(off)")
        _ = try await PipedREPL.run(["--backend", "oai"], input: "still not for the log\n", home: home)
        #expect(Self.logBytes(home).isEmpty)
        let (status, _) = try await Self.reception(["logs", "status"], home: home)
        #expect(status.contains("Logging is off"), "\(status)")
        _ = try await Self.reception(["logs", "on"], home: home)
        _ = try await PipedREPL.run(["--backend", "oai"], input: "for the log\n", home: home)
        let (listed, _) = try await Self.reception(["logs"], home: home)
        #expect(listed.contains("for the log") && !listed.contains("not for the log"), "\(listed)")
        // Carried on without logging: said, since a later -c would find none of it.
        let (carried, _) = try await PipedREPL.run(["-c", "--no-log"], input: "", home: home)
        #expect(carried.contains("This session is not logged (--no-log): what is said now is not added to conversation"), "\(carried)")
        _ = try await Self.reception(["logs", "off"], home: home)
        let (carriedOff, _) = try await PipedREPL.run(["-c"], input: "", home: home)
        #expect(carriedOff.contains("Logging is off (reception logs on turns it on)"), "\(carriedOff)")
    }

    /// A profile pointed at another server since: the history is not sent there, and the REPL says so.
    @Test func aConversationWhoseProfileNowPointsElsewhereIsNotSentThere() async throws {
        let (first, firstURL) = try await OpenAITerminalTests.startServer()
        defer { first.stop() }
        let (second, secondURL) = try await OpenAITerminalTests.startServer()
        defer { second.stop() }
        let home = try OpenAITerminalTests.home(for: firstURL)
        _ = try await PipedREPL.run(["--backend", "oai"], input: "a secret plan\n", home: home)
        try #"{"profiles":[{"name":"oai","kind":"openai","url":"\#(secondURL)"}]}"#
            .write(to: home.appendingPathComponent("config/reception/backends.json"), atomically: true, encoding: .utf8)
        let (output, status) = try await PipedREPL.run(["-c"], input: "go on\n", home: home)
        #expect(status == 0, "\(output)")
        #expect(output.contains("now points at \(secondURL)") && output.contains("its history is not sent there"), "\(output)")
        #expect(output.contains("This is message 1 of our conversation."), "no earlier turn went to the other server: \(output)")
    }

    @Test func newStartsAFreshConversationInTheLog() async throws {
        let (server, url) = try await OpenAITerminalTests.startServer()
        defer { server.stop() }
        let home = try OpenAITerminalTests.home(for: url)
        let (output, _) = try await PipedREPL.run(["--backend", "oai"], input: "first topic\nmore of it\n/new\nsecond topic\n/history\n", home: home)
        #expect(output.contains("Started a new conversation."), "\(output)")
        let second = try #require(output.range(of: "You said: second topic"))
        #expect(output[second.upperBound...].contains("This is message 1 of our conversation."), "no earlier turn after /new: \(output)")
        #expect(output.contains("1. second topic") && !output.contains("1. first topic"), "/history lists the new conversation: \(output)")
        let (listed, _) = try await Self.reception(["logs"], home: home)
        #expect(listed.contains("2 exchanges  first topic") || (listed.contains("first topic") && listed.contains("second topic")), "\(listed)")
    }

    /// "tell me more" after `reception -c` on the local backend searched its own words and
    /// found nothing: the engine's memory of the topic was the earlier session's. The carried
    /// turns now give the topic and what was already said, so the answer is the one the same
    /// session would have given.
    @Test func tellMeMoreAfterContinueGoesOnWithTheEarlierTopic() async throws {
        let home = Scratch.root.appendingPathComponent("reception-more-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let (first, _) = try await PipedREPL.run(["--local-step-ms", "0"], input: "what is trust level 0?\n", home: home)
        #expect(first.contains("At trust level 0 (supervised)"), "\(first)")
        let (carried, status) = try await PipedREPL.run(["-c", "--local-step-ms", "0"], input: "tell me more\n", home: home)
        #expect(status == 0, "\(carried)")
        #expect(!carried.contains("I found nothing") && !carried.contains("At trust level 0 (supervised)"),
                "more on the topic, past what the first session said: \(carried)")
        let sameSessionHome = Scratch.root.appendingPathComponent("reception-more-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: sameSessionHome) }
        let (same, _) = try await PipedREPL.run(["--local-step-ms", "0"], input: "what is trust level 0?\ntell me more\n", home: sameSessionHome)
        let answer = { (text: String) in text.components(separatedBy: "→ ").last ?? "" }
        #expect(answer(carried) == answer(same), "the same as in one session:\n\(answer(carried))\n---\n\(answer(same))")
    }

    /// A listing filtered by soul names that soul and counts what it said, not the soul the
    /// conversation ended with and all its exchanges.
    @Test func aListingBySoulNamesThatSoulAndCountsItsExchanges() async throws {
        let home = Scratch.root.appendingPathComponent("reception-log-soul-\(UUID().uuidString)")
        _ = try await PipedREPL.run(["--soul", "butler", "--local-step-ms", "1"],
                                    input: "what can you do?\n/soul plain\nhow does trust work?\nwhat is a soul?\n", home: home)
        let (all, _) = try await Self.reception(["logs"], home: home)
        #expect(all.contains("local · plain · 3 exchanges"), "\(all)")
        let (butler, _) = try await Self.reception(["logs", "--soul", "Butler"], home: home)
        #expect(butler.contains("local · butler · 1 of 3 exchanges"), "\(butler)")
        let (plain, _) = try await Self.reception(["logs", "--soul", "plain", "--json"], home: home)
        #expect(plain.contains("\"matching_exchanges\" : 2") && plain.contains("\"exchanges\" : 3"), "\(plain)")
    }

    /// A conversation held with a soul file carries on with that file, not with a soul of
    /// the same name in the soul folder; when the file is gone, the session says so.
    @Test func aConversationsSoulFileIsTheOneContinueUses() async throws {
        let home = Scratch.root.appendingPathComponent("reception-soulfile-\(UUID().uuidString)")
        let folder = home.appendingPathComponent(".config/reception/souls")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let soul = "---\nname: Night Owl\nsign_off: hoot hoot.\n---\n# Night Owl\n\nA quiet voice.\n"
        try soul.replacingOccurrences(of: "hoot hoot.", with: "from the folder.").write(to: folder.appendingPathComponent("night-owl.md"), atomically: true, encoding: .utf8)
        let file = home.appendingPathComponent("owl.md")
        try soul.write(to: file, atomically: true, encoding: .utf8)
        let (first, _) = try await PipedREPL.run(["--soul", file.path, "--local-step-ms", "1"], input: "what can you do?\n", home: home)
        #expect(first.contains("hoot hoot."), "\(first)")
        let (carried, status) = try await PipedREPL.run(["-c", "--local-step-ms", "1"], input: "how does trust work?\n", home: home)
        #expect(status == 0 && carried.contains("hoot hoot.") && !carried.contains("from the folder."), "the file, not its namesake: \(carried)")
        // Logged with the home folder as ~ (no user name it does not need), listed by its file.
        let (listed, _) = try await Self.reception(["logs"], home: home)
        #expect(listed.contains("local · owl.md · 2 exchanges"), "\(listed)")
        try FileManager.default.moveItem(at: file, to: home.appendingPathComponent("moved.md"))
        let (moved, _) = try await PipedREPL.run(["-c", "--local-step-ms", "1"], input: "", home: home)
        #expect(moved.contains("The conversation's soul ~/owl.md cannot be used"), "\(moved)")
    }

    @Test func fridayCarriesItsSessionOnAfterContinue() async throws {
        let (server, url) = try await ReferenceServerProcess.start(["friday", "--step-ms", "5"], url: #"ws://127\.0\.0\.1:\d+/ws"#)
        defer { server.stop() }
        let home = try FridayTerminalTests.home(withProfileFor: url)
        let (first, _) = try await PipedREPL.run(["--backend", "fri"], input: "hello\n", home: home)
        #expect(first.contains("You asked: \"hello\""), "\(first)")
        let (carried, status) = try await PipedREPL.run(["-c"], input: "what did I ask?\n", home: home)
        #expect(status == 0, "\(carried)")
        #expect(carried.contains("Friday resumes its session"), "\(carried)")
        #expect(carried.contains("Before this you asked: \"hello\"."), "the server's session went on: \(carried)")
    }

    @Test func loopSymphonyIsSentTheEarlierTurnsAsItsConversationSummary() async throws {
        let (server, url) = try await ReferenceServerProcess.start(["loop-symphony", "--step-ms", "5"], url: #"http://127\.0\.0\.1:\d+"#)
        defer { server.stop() }
        let home = Scratch.root.appendingPathComponent("reception-log-ls-\(UUID().uuidString)")
        _ = try await PipedREPL.run(["--backend", "loop-symphony", "--trust", "1"], input: "what is a ferry?\n", home: home,
                              environment: ["LOOP_SYMPHONY_URL": url])
        let (carried, status) = try await PipedREPL.run(["-c", "--trust", "1"], input: "and a tugboat?\n/request\n", home: home,
                                                  environment: ["LOOP_SYMPHONY_URL": url])
        #expect(status == 0, "\(carried)")
        #expect(carried.contains(#""conversation_summary" : "Asked: what is a ferry?"#), "\(carried)")
    }

    /// A message queued by one session and delivered by the next is logged in the
    /// conversation it was typed in: no empty conversation is started for the delivery, and
    /// `-c` carries on the one that holds the message and its answer.
    @Test func aQueuedMessageDeliveredLaterIsLoggedInItsOwnConversation() async throws {
        let port = try unusedLoopbackPort()
        let url = "http://127.0.0.1:\(port)/v1"
        let home = try OpenAITerminalTests.home(for: url)
        // With its model named, the profile needs no answer from the server to start, and the
        // message is queued.
        try #"{"profiles":[{"name":"oai","kind":"openai","url":"\#(url)","model":"m1"}]}"#
            .write(to: home.appendingPathComponent("config/reception/backends.json"), atomically: true, encoding: .utf8)
        let (queued, _) = try await PipedREPL.run(["--backend", "oai"], input: "please remember the ferry\n", home: home)
        #expect(queued.contains("queued"), "\(queued)")
        let (server, _) = try await ReferenceServerProcess.start(["openai", "--chunk-ms", "1"], url: #"http://127\.0\.0\.1:\d+/v1"#, port: port)
        defer { server.stop() }
        let (delivered, status) = try await PipedREPL.run(["--backend", "oai"], input: "", home: home)
        #expect(status == 0 && delivered.contains("You said: please remember the ferry"), "\(delivered)")
        let (listed, _) = try await Self.reception(["logs"], home: home)
        #expect(listed.contains("1 exchange  please remember the ferry") && !listed.contains("0 exchanges"), "one conversation: \(listed)")
        let (carried, _) = try await PipedREPL.run(["-c"], input: "/history\n", home: home)
        #expect(carried.contains("Continuing conversation") && carried.contains("1. please remember the ferry"), "\(carried)")
        let (shown, _) = try await Self.reception(["logs", "show", "last"], home: home)
        #expect(shown.contains("You said: please remember the ferry"), "the delivered answer: \(shown)")
    }

    /// A value another program wrote into the log that Reception cannot read is said with
    /// where it is, by every command that reads it, without a crash and without the row's text.
    @Test func aLogEditedByAnotherProgramIsALocatedErrorNotACrash() async throws {
        let home = Scratch.root.appendingPathComponent("reception-log-odd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try await PipedREPL.run(["--local-step-ms", "1"], input: "tell me about quokkas\n", home: home)
        _ = try await Self.reception(["logs"], home: home)
        try await DatabaseQueue(path: Self.logPath(home)).write { try $0.execute(sql: "UPDATE exchanges SET first_character_ms = -1e19") }
        let (odd, oddStatus) = try await Self.reception(["logs", "show", "last"], home: home)
        #expect(oddStatus == 0 && odd.contains("first character after ?"), "a duration out of range is shown: \(odd)")
        try await DatabaseQueue(path: Self.logPath(home)).write { try $0.execute(sql: "UPDATE exchanges SET sent_at = 'abc'") }
        for arguments in [["logs", "show", "last"], ["logs", "-q", "quokkas"], ["logs", "export", "--all", "--jsonl"]] {
            let (output, status) = try await Self.reception(arguments, home: home)
            #expect(status == 1, "\(arguments): \(output)")
            #expect(output.contains("table exchanges") && output.contains("column sent_at"), "\(arguments): \(output)")
            #expect(!output.contains("quokkas"), "no text of the row: \(output)")
        }
        let (carried, status) = try await PipedREPL.run(["-c", "--local-step-ms", "1"], input: "", home: home)
        #expect(status == 0 && carried.contains("column sent_at") && carried.contains("this one is new"), "\(carried)")
    }

    /// `-o` naming the log's own database, however spelt, is refused even with --force, and
    /// the log is left as it was.
    @Test func anExportIsNeverWrittenOverTheLogItself() async throws {
        let home = Scratch.root.appendingPathComponent("reception-log-own-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try await PipedREPL.run(["--local-step-ms", "1"], input: "tell me about quokkas\n", home: home)
        _ = try await Self.reception(["logs"], home: home)
        let folder = URL(fileURLWithPath: Self.logPath(home)).deletingLastPathComponent().path
        for output in [Self.logPath(home), folder + "/../reception/conversations.sqlite", Self.logPath(home) + "-wal"] {
            let (refused, status) = try await Self.reception(["logs", "export", "--all", "-o", output, "--force"], home: home)
            #expect(status == 1 && refused.contains("is one of the conversation log's own files"), "\(output): \(refused)")
        }
        let (listed, status) = try await Self.reception(["logs"], home: home)
        #expect(status == 0 && listed.contains("tell me about quokkas"), "the log is intact: \(listed)")
    }

    /// Without --force, a file made at the -o name while the export is being written is
    /// refused, not replaced: the export waits for the database (held by another process),
    /// the file appears meanwhile, and it keeps what it held.
    @Test func anExportDoesNotReplaceAFileMadeWhileItWrote() async throws {
        let home = Scratch.root.appendingPathComponent("reception-log-race-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try await PipedREPL.run(["--local-step-ms", "1"], input: "tell me about quokkas\n", home: home)
        _ = try await Self.reception(["logs"], home: home)
        // Pending lines, so the export must take the database's lock to move them in.
        _ = try await PipedREPL.run(["-c", "--local-step-ms", "1"], input: "and wombats\n", home: home)
        let output = home.appendingPathComponent("mine.md")
        let executable = try Binary.reception()
        let holder = try DatabaseQueue(path: Self.logPath(home))
        let (said, status) = try await offThePool {
            try holder.inDatabase { db -> (String, Int32) in
                try db.execute(sql: "BEGIN IMMEDIATE")
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = ["logs", "export", "--all", "-o", output.path]
                process.environment = ["HOME": home.path, "XDG_STATE_HOME": home.path + "/state", "XDG_CONFIG_HOME": home.path + "/config"]
                let pipe = Pipe.forChild()
                process.standardOutput = pipe
                process.standardError = pipe
                try process.run()
                // Its file is begun (a temporary one beside the name) and it waits for the lock.
                let deadline = Date().addingTimeInterval(60)
                while ((try? FileManager.default.contentsOfDirectory(atPath: home.path)) ?? []).allSatisfy({ !$0.hasSuffix(".tmp") }),
                      Date() < deadline, process.isRunning {
                    usleep(10_000)
                }
                try "made meanwhile\n".write(to: output, atomically: false, encoding: .utf8)
                try db.execute(sql: "ROLLBACK")
                let said = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (said, process.terminationStatus)
            }
        }
        #expect(status == 1 && said.contains("already exists"), "\(said)")
        #expect(try String(contentsOf: output, encoding: .utf8) == "made meanwhile\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).allSatisfy { !$0.hasSuffix(".tmp") }, "nothing left beside it")
    }

    /// A word to find that starts with "-" is a word, not an option.
    @Test func aSearchForAWordStartingWithADashFindsIt() async throws {
        let home = Scratch.root.appendingPathComponent("reception-log-dash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        _ = try await PipedREPL.run(["--local-step-ms", "1"], input: "what does the -x flag do?\n", home: home)
        let (found, status) = try await Self.reception(["logs", "-q", "-x"], home: home)
        #expect(status == 0 && found.contains("› what does the -x flag do?"), "\(found)")
    }
}
