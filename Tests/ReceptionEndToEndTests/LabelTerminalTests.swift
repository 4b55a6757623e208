import Foundation
import ReceptionTestSupport
import ReceptionCore
import Testing

/// `reception label` as a person uses it: one key per decision on a real terminal, a slip
/// taken back, a session stopped, one killed outright, and each next session starting after
/// the last label on disk, with nothing lost and nothing labelled twice.
@Suite("reception label on a terminal", .serialized)
struct LabelTerminalTests {
    static let messages = [
        "should i take the train or fly to seattle next month",
        "is it true that cracking your knuckles causes arthritis",
        "my card was declined at the shop just now",
        "why is the sky blue",
        "book a table for two tonight",
        "explain how vaccines train the immune system",
    ]

    /// The model's margin for each message (the smaller of the two heads' top-two
    /// differences), from `classify --json`, which reports both heads' chosen and runner-up
    /// probabilities: what "least sure first" orders by.
    static func margins() async throws -> [String: Double] {
        let (output, status) = try await PipedREPL.run(["classify", "--json"], input: messages.joined(separator: "\n") + "\n")
        #expect(status == 0, "\(output)")
        var margins: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let classification = object["classification"] as! [String: Any]
            func margin(_ key: String) -> Double {
                let head = classification[key] as! [String: Any]
                let chosen = (head["chosen"] as! [String: Any])["probability"] as! Double
                let runnerUp = ((head["runnerUp"] as? [String: Any])?["probability"] as? Double) ?? 0
                return chosen - runnerUp
            }
            margins[object["text"] as! String] = min(margin("intentExplanation"), margin("urgencyExplanation"))
        }
        return margins
    }

    /// A folder of its own for one test's files, under the run's scratch folder.
    static func newFolder() throws -> URL {
        let folder = Scratch.root.appendingPathComponent("reception-label-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A file of messages to label, in a folder of its own (where the labels file goes too).
    static func messagesFile(_ name: String, _ text: String) throws -> URL {
        let input = try newFolder().appendingPathComponent(name)
        try text.write(to: input, atomically: true, encoding: .utf8)
        return input
    }

    static func labelLines(_ url: URL) throws -> [[String: Any]] {
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    @Test func labelsUndoesQuitsIsKilledAndResumesWithNothingLostOrTwice() async throws {
        let folder = try Self.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("messages.txt"), labels = folder.appendingPathComponent("messages.labels.jsonl")
        try (Self.messages.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
        let margins = try await Self.margins()
        let expectedOrder = Self.messages.enumerated().sorted { (margins[$0.element]!, $0.offset) < (margins[$1.element]!, $1.offset) }.map(\.element)

        /// Waits for message `n` of `total` and returns where its screen starts, after checking
        /// it shows the message expected at that place of the order.
        func shows(_ session: TerminalSession, _ n: Int, of total: Int, expected: String, after: String.Index? = nil) async throws -> String.Index {
            let at = try await session.waitFor("message \(n) of \(total)", after: after)
            let shown = try await session.waitFor(expected, after: at)
            let screen = session.screen
            let next = screen.range(of: "message ", range: at..<screen.endIndex)
            #expect(next == nil || next!.lowerBound > shown, "message \(n) is \"\(expected)\"")
            return at
        }

        // First session: accept, correct both heads, skip, take the skip back, label, quit.
        let first = try TerminalSession(arguments: ["label", input.path])
        var at = try await shows(first, 1, of: 6, expected: expectedOrder[0])
        #expect(first.screen[at...].contains("model built-in"))
        first.type("\r")
        at = try await shows(first, 2, of: 6, expected: expectedOrder[1], after: at)
        first.type("v")
        at = try await first.waitFor("validation /", after: at)
        first.type("2")
        at = try await first.waitFor("(changed from the model's guess)", after: at)
        first.type("\r")
        at = try await shows(first, 3, of: 6, expected: expectedOrder[2], after: at)
        first.type("s")
        at = try await shows(first, 4, of: 6, expected: expectedOrder[3], after: at)
        first.type("u")
        at = try await shows(first, 3, of: 6, expected: expectedOrder[2], after: at)
        at = try await first.waitFor("Took back the skip.", after: at)
        #expect(try Self.labelLines(labels).count == 2, "the skip is off the file")
        first.type("a")
        first.type("1")
        first.type("\r")
        at = try await shows(first, 4, of: 6, expected: expectedOrder[3], after: at)
        first.type("q")
        at = try await first.waitFor("Labelled 3 messages and skipped 0 this session; 3 left.", after: at)
        #expect(try await first.exitStatus() == 0)
        var lines = try Self.labelLines(labels)
        #expect(lines.map { $0["text"] as? String } == Array(expectedOrder.prefix(3)))
        #expect(lines[1]["intent"] as? String == "validation" && lines[1]["urgency"] as? String == "soon")
        #expect(lines[2]["intent"] as? String == "action" && lines[2]["urgency"] as? String == "immediate")
        #expect(lines[0]["intent"] as? String == lines[0]["model_intent"] as? String, "Enter wrote the model's guess")

        // Second session: resumes after the three, labels one, and is killed outright.
        let second = try TerminalSession(arguments: ["label", input.path])
        at = try await shows(second, 1, of: 3, expected: expectedOrder[3])
        #expect(second.screen[at...].contains("(3 done before)"))
        second.type("\r")
        at = try await shows(second, 2, of: 3, expected: expectedOrder[4], after: at)
        kill(second.pid, SIGKILL)
        #expect(try await second.exitStatus() == 128 + SIGKILL)
        lines = try Self.labelLines(labels)
        #expect(lines.count == 4, "the label made before the kill is on disk")

        // Third session: starts at the message the kill left on screen.
        let third = try TerminalSession(arguments: ["label", input.path])
        at = try await shows(third, 1, of: 2, expected: expectedOrder[4])
        third.type("\r")
        at = try await shows(third, 2, of: 2, expected: expectedOrder[5], after: at)
        third.type("\r")
        at = try await third.waitFor("Labelled 2 messages and skipped 0 this session; 0 left (4 done in earlier sessions).", after: at)
        #expect(try await third.exitStatus() == 0)
        lines = try Self.labelLines(labels)
        let texts = lines.compactMap { $0["text"] as? String }
        #expect(texts == expectedOrder, "each message once, in the order labelled")
        #expect(Set(lines.compactMap { $0["id"] as? String }).count == 6)

    }

    /// A long message (context pasted before the ask) shows its first lines and its last, where
    /// the ask is, with how many lines between are not shown: labelled from the screen, the ask
    /// must be on it.
    @Test func aLongMessageShowsItsBeginningAndTheAskAtItsEnd() async throws {
        let folder = try Self.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("pasted.jsonl")
        let context = (1...30).map { String(format: "log line %02d: worker restarted after a timeout", $0) }
        let ask = "the deploy keeps failing with the log above, what should i check first?"
        let line = try JSONSerialization.data(withJSONObject: ["id": "pasted-1", "text": (context + [ask]).joined(separator: "\n")])
        try (String(decoding: line, as: UTF8.self) + "\n").write(to: input, atomically: true, encoding: .utf8)

        let session = try TerminalSession(arguments: ["label", input.path, "--order", "input"])
        let at = try await session.waitFor("message 1 of 1")
        let end = try await session.waitFor("Enter write", after: at)
        let screen = String(session.screen[at..<end])
        #expect(screen.contains("log line 01") && screen.contains("log line 08"), "the first lines are shown")
        #expect(screen.contains("… 17 more lines …"), "the lines left out are counted")
        #expect(!screen.contains("log line 09") && !screen.contains("log line 25"))
        #expect(screen.contains("log line 26") && screen.contains(ask), "the last lines, with the ask, are shown")
        session.type("q")
        let summary = try await session.waitFor("Labelled 0 messages", after: end)
        _ = try await session.waitFor("Nothing was written to", after: summary)
        #expect(try await session.exitStatus() == 0)
        #expect(!session.screen.contains("Train on them"), "nothing to train on")
        let labels = folder.appendingPathComponent("pasted.labels.jsonl")
        #expect(!FileManager.default.fileExists(atPath: labels.path), "quit at once, no empty labels file is left")

        // On an 80×24 terminal the message gets the rows the rest leaves: the header, the
        // guess and the keys stay on screen (15 message lines pushed the header off).
        let small = try TerminalSession(arguments: ["label", input.path, "--order", "input"], rows: 24, columns: 80)
        let top = try await small.waitFor("message 1 of 1")
        let keys = try await small.waitFor("Enter write", after: top)
        let shown = String(small.screen[top..<keys])
        #expect(shown.contains("log line 01") && shown.contains("more lines …") && shown.contains("model "), "\(shown)")
        let rowsShown = shown.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count
        #expect(rowsShown <= 22, "\(rowsShown) rows: \(shown)")
        // Made smaller while the message is on screen, the terminal gets a screen drawn for
        // its new size without a key pressed (it was redrawn only at the next key).
        small.resize(rows: 16, columns: 80)
        let again = try await small.waitFor("message 1 of 1", after: keys)
        let redrawnKeys = try await small.waitFor("Enter write", after: again)
        let redrawn = String(small.screen[again..<redrawnKeys])
        let redrawnRows = redrawn.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count
        #expect(redrawn.contains("more lines …") && redrawnRows <= 14, "\(redrawnRows) rows: \(redrawn)")
        // Too small for the screen, the terminal is asked to grow, in lines that fit; q still
        // quits, and nothing else is taken: Enter wrote the guess of a message nobody could see.
        small.resize(rows: 8, columns: 30)
        let tooSmall = try await small.waitFor("least 40×14", after: redrawnKeys)
        #expect(!small.screen[tooSmall...].contains("model "), "the screen is not drawn on 30×8")
        small.type("\r")
        small.type("s")
        small.type("q")
        _ = try await small.waitFor("Labelled 0 messages and skipped 0", after: tooSmall)
        #expect(try await small.exitStatus() == 0)
        #expect(!FileManager.default.fileExists(atPath: labels.path), "no label and no skip was written unseen")
    }

    /// The end of a session suggests training on the labels with the split's test part kept
    /// out; with 20 labels, 2 of them in that part, the suggested command failed ("too little
    /// to train on: 18 messages"). The hint counts what the command would train on.
    @Test func theTrainingHintCountsWhatTheSplitLeavesToTrainOn() async throws {
        let folder = try Self.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Ids m5 and m15 fall in the test part of the id-hash split (FNV-1a of the id mod 100 ≥ 85).
        let messages = (0...20).map { #"{"id": "m\#($0)", "text": "book a table for \#($0 + 2) tonight"}"# }
        try (messages.joined(separator: "\n") + "\n").write(to: folder.appendingPathComponent("inbox.jsonl"), atomically: true, encoding: .utf8)
        let labels = (0..<20).map { #"{"id": "m\#($0)", "text": "book a table for \#($0 + 2) tonight", "intent": "action", "urgency": "soon"}"# }
        try (labels.joined(separator: "\n") + "\n").write(to: folder.appendingPathComponent("inbox.labels.jsonl"), atomically: true, encoding: .utf8)
        let session = try TerminalSession(arguments: ["label", folder.appendingPathComponent("inbox.jsonl").path, "--order", "input"])
        let at = try await session.waitFor("Enter write")
        session.type("q")
        _ = try await session.waitFor("holds 20 labels, 18 of them outside the part kept for testing; training needs at least 20 there.", after: at)
        #expect(!session.screen.contains("Train on them"), "\(session.screen)")
        #expect(try await session.exitStatus() == 0)
    }

    /// Japanese takes two columns a character and has no spaces to wrap at: the message is
    /// wrapped by columns (a line of 47 characters took 94 columns of an 80-column terminal).
    @Test func aJapaneseMessageIsWrappedToTheTerminalsColumns() async throws {
        let folder = try Self.newFolder()
        let input = folder.appendingPathComponent("ja.txt")
        let message = String(repeating: "東京タワーに行くべきですか、それとも", count: 4)
        try (message + "\n").write(to: input, atomically: true, encoding: .utf8)
        let session = try TerminalSession(arguments: ["label", input.path], rows: 24, columns: 80)
        let top = try await session.waitFor("message 1 of 1")
        let keys = try await session.waitFor("Enter write", after: top)
        let shown = String(session.screen[top..<keys]).split(whereSeparator: \.isNewline).map(String.init)
        let messageLines = shown.filter { $0.contains("東京") || $0.contains("それとも") }
        #expect(messageLines.count == 2 && messageLines.joined().contains("それとも東京タワー"), "\(shown)")
        for line in messageLines { #expect(TerminalWidth.of(line) <= 80, "\(TerminalWidth.of(line)) columns: \(line)") }
        session.type("q")
        #expect(try await session.exitStatus() == 0)
    }

    /// `x.jsonl` and `x.tsv` share `x.labels.jsonl` by default: a labels file that holds no
    /// label of any message here is said to be most likely another file's.
    @Test func aLabelsFileOfOtherMessagesIsSaidToBeAnotherFiles() async throws {
        let input = try Self.messagesFile("inbox.txt", "where is my order\n")
        let folder = input.deletingLastPathComponent()
        try #"{"id": "m001", "text": "which grinder", "intent": "decision", "urgency": "planning"}"#
            .appending("\n").write(to: folder.appendingPathComponent("inbox.labels.jsonl"), atomically: true, encoding: .utf8)
        let session = try TerminalSession(arguments: ["label", input.path])
        let at = try await session.waitFor("Enter write")
        session.type("q")
        // Said again after the screen, above the summary, as every warning is.
        let warned = try await session.waitFor("none of them of a message in \(input.path); is it another file's?", after: at)
        _ = try await session.waitFor("Labelled 0 messages", after: warned)
        #expect(try await session.exitStatus() == 0)
    }

    /// A message on several lines of the file is offered once, and the screen says how many
    /// lines its label stands for (one label was written for three lines, unsaid).
    @Test func aMessageOnSeveralLinesSaysItsLabelStandsForAll() async throws {
        let input = try Self.messagesFile("inbox.txt", "where is my order\nwhere is my order\nwhere is my order\n")
        let folder = input.deletingLastPathComponent()
        let session = try TerminalSession(arguments: ["label", input.path])
        let at = try await session.waitFor("on 3 lines of the file: one label stands for all of them")
        session.type("\r")
        let noted = try await session.waitFor("note: 2 lines of \(input.path) repeat a message of an earlier line", after: at)
        _ = try await session.waitFor("Labelled 1 message", after: noted)
        #expect(try await session.exitStatus() == 0)
        #expect(try Self.labelLines(folder.appendingPathComponent("inbox.labels.jsonl")).count == 1)
    }

    /// Reviewing a labelled corpus, k writes the file's own label at once: one key, one
    /// decision, as the help says.
    @Test func inAReviewKWritesTheFilesOwnLabelAtOnce() async throws {
        let folder = try Self.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("labelled.jsonl"), out = folder.appendingPathComponent("reviewed.jsonl")
        // Labels the model disagrees with on both heads, so the review shows the message.
        let line = try JSONSerialization.data(withJSONObject: ["id": "m1", "text": "why is the sky blue", "intent": "decision", "urgency": "planning"])
        try (String(decoding: line, as: UTF8.self) + "\n").write(to: input, atomically: true, encoding: .utf8)
        let session = try TerminalSession(arguments: ["label", input.path, "--order", "disagreements", "--out", out.path])
        let at = try await session.waitFor("(k writes it)")
        session.type("k")
        _ = try await session.waitFor("Labelled 1 message", after: at)
        #expect(try await session.exitStatus() == 0)
        let written = try Self.labelLines(out)
        #expect(written.count == 1 && written.first?["intent"] as? String == "decision" && written.first?["urgency"] as? String == "planning",
                "\(written)")
    }

    /// Piped input is never taken for keys: refused in words, the labels file untouched.
    @Test func pipedInputIsRefusedInWords() async throws {
        let folder = try Self.newFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("messages.txt")
        try "why is the sky blue\n".write(to: input, atomically: true, encoding: .utf8)
        let (output, errors, status) = try await PipedREPL.run(["label", input.path], input: "\r\r\rq\n", separateErrors: true)
        #expect(status == 1 && output.isEmpty)
        #expect(errors.contains("error: reception label reads one key per decision from a terminal, and standard input is not one (it is a pipe or a file)."), "\(errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("messages.labels.jsonl").path))
    }
}
