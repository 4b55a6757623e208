import Foundation
import ReceptionTestSupport
import Testing

/// `reception train`, `classify` and `eval` as a person runs them: mistakes in paths and
/// options are said at once, in plain words, before any training time is spent.
@Suite("Intent commands through the binary")
struct IntentCommandsEndToEndTests {
    /// 20 messages, two labels on each head: the least `train` fits a model on.
    static let smallCorpus: String = (0..<10).flatMap { n in
        [#"{"text": "book a table for \#(n + 2) tonight", "intent": "action", "urgency": "soon"}"#,
         #"{"text": "why do cats purr, question \#(n)", "intent": "curiosity", "urgency": "exploratory"}"#]
    }.joined(separator: "\n")

    func folder() throws -> URL {
        let folder = Scratch.root.appendingPathComponent("reception-intent-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `~` in intent.json is the home the session runs with ($HOME), as everywhere else: it
    /// named a file in the account's home from the password database.
    @Test func aTildeInTheIntentSettingsIsTheSessionsHome() async throws {
        let home = Scratch.root.appendingPathComponent("reception-tilde-\(UUID().uuidString)")
        let config = home.appendingPathComponent("config/reception")  // PipedREPL's XDG_CONFIG_HOME
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        try #"{"weights": "~/missing-weights.json"}"#.write(to: config.appendingPathComponent("intent.json"), atomically: true, encoding: .utf8)
        let (output, status) = try await PipedREPL.run(["--no-log", "--local-step-ms", "1"], input: "thanks\n", home: home)
        #expect(status == 0)
        #expect(output.contains(home.path + "/missing-weights.json"), "\(output)")
    }

    @Test func trainRefusesABadOutputOrOptionBeforeTraining() async throws {
        let folder = try folder()
        let corpus = folder.appendingPathComponent("mine.jsonl")
        try #"{"text": "book a table for two", "intent": "action", "urgency": "soon"}"#.write(to: corpus, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--out", folder.appendingPathComponent("missing/w.json").path], "the folder \(folder.path)/missing does not exist."),
            (["--out", folder.path], "is a folder; give a file name"),
            (["--out", folder.appendingPathComponent("w.json").path, "--balance", "5"], "--balance must be from 0 (none) to 1 (fully balanced)."),
            (["--out", folder.appendingPathComponent("w.json").path, "--l2=-1"], "--l2 and --l2-words must be greater than 0 and at most 1"),
            // Every weight regularised away: "0 weighted features" was written, exit 0.
            (["--out", folder.appendingPathComponent("w.json").path, "--l2", "1e308"], "--l2 and --l2-words must be greater than 0 and at most 1"),
            (["--out", folder.appendingPathComponent("w.json").path, "--l2-words", "inf"], "--l2 and --l2-words must be greater than 0 and at most 1"),
            (["--out", folder.appendingPathComponent("w.json").path, "--folds", "100"], "--folds must be from 0 to 20"),
            // Alone, the option weighed nothing and the weights came out the same: said, not ignored.
            (["--out", folder.appendingPathComponent("w.json").path, "--own-weight", "5"], "--own-weight weighs your corpora against the shipped ones"),
        ]
        for (options, expected) in cases {
            let (output, errors, status) = try await PipedREPL.run(["train", corpus.path] + options, input: "", separateErrors: true)
            #expect(status == 64, "\(options): \(output)\(errors)")
            #expect(errors.contains(expected), "\(options): \(errors)")
            #expect(!output.contains("trained on") && !errors.contains("NSCocoaErrorDomain"), "\(options): \(output)\(errors)")
        }
    }

    /// Weights someone trained, or a lexicon they edited, are not replaced by a retrain
    /// without `--force`; with it, they are.
    @Test func trainKeepsAnExistingFileUnlessForced() async throws {
        let folder = try folder()
        let corpus = folder.appendingPathComponent("mine.jsonl")
        try Self.smallCorpus.write(to: corpus, atomically: true, encoding: .utf8)
        let weights = folder.appendingPathComponent("w.json"), lexicon = folder.appendingPathComponent("lexicon.txt")
        try "my weights".write(to: weights, atomically: true, encoding: .utf8)
        try "my lexicon".write(to: lexicon, atomically: true, encoding: .utf8)
        for (options, named) in [(["--out", weights.path], "--out"), (["--out", folder.appendingPathComponent("new.json").path, "--export-lexicon", lexicon.path], "--export-lexicon")] {
            let (_, errors, status) = try await PipedREPL.run(["train", corpus.path, "--folds", "0"] + options, input: "", separateErrors: true)
            #expect(status == 64 && errors.contains("\(named) \(options.last!) already exists; add --force to replace it."), "\(errors)")
        }
        #expect(try String(contentsOf: weights, encoding: .utf8) == "my weights")
        #expect(try String(contentsOf: lexicon, encoding: .utf8) == "my lexicon")
        let (output, errors, status) = try await PipedREPL.run(["train", corpus.path, "--folds", "0", "--out", weights.path, "--force"], input: "", separateErrors: true)
        #expect(status == 0 && output.contains("trained on 20 messages"), "\(output)\(errors)")
        #expect(try String(contentsOf: weights, encoding: .utf8).hasPrefix("{"))
        // The weights hold the labels' words as features: the owner's only, as the labels are.
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: weights.path)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600, "mode \(String(mode, radix: 8))")
        // --force replaces an output, never what training reads: the corpus itself, by its
        // name or through a link, is refused and left as it was.
        let link = folder.appendingPathComponent("link.jsonl")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: corpus)
        for out in [corpus.path, link.path] {
            let (_, refused, code) = try await PipedREPL.run(["train", corpus.path, "--folds", "0", "--out", out, "--force"], input: "", separateErrors: true)
            #expect(code == 64 && refused.contains("--out \(out) is ") && refused.contains("one of the files training reads; write to a file of its own."), "\(refused)")
        }
        #expect(try String(contentsOf: corpus, encoding: .utf8) == Self.smallCorpus)
    }

    /// Two annotators' passes over the same messages, as the human-written batches come: the
    /// count is of messages (a disagreement is two lines, one message), and says how many the
    /// passes split; the model learns the agreed intent of a message they split on urgency.
    @Test func trainReadsTwoAnnotatorsPassesAsOneCorpus() async throws {
        let folder = try folder()
        var texts = "", a = "", b = ""
        for n in 0..<10 {
            texts += #"{"id": "t\#(n)", "text": "book a table for \#(n + 2) tonight", "source": "demo:tables"}"# + "\n"
            texts += #"{"id": "c\#(n)", "text": "why do cats purr, question \#(n)", "source": "demo:cats"}"# + "\n"
            a += #"{"id": "t\#(n)", "intent": "action", "urgency": "soon"}"# + "\n" + #"{"id": "c\#(n)", "intent": "curiosity", "urgency": "exploratory"}"# + "\n"
            // The second annotator reads three of the bookings as wanted now.
            b += #"{"id": "t\#(n)", "intent": "action", "urgency": "\#(n < 3 ? "immediate" : "soon")"}"# + "\n" + #"{"id": "c\#(n)", "intent": "curiosity", "urgency": "exploratory"}"# + "\n"
        }
        let paths = ["messages", "labels_a", "labels_b"].map { folder.appendingPathComponent("\($0).jsonl").path }
        for (path, text) in zip(paths, [texts, a, b]) { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        let weights = folder.appendingPathComponent("w.json").path
        let (output, errors, status) = try await PipedREPL.run(["train", "--labels", paths[1], "--labels", paths[2], "--texts", paths[0],
                                                                "--folds", "0", "--out", weights], input: "", separateErrors: true)
        #expect(status == 0, "\(output)\(errors)")
        #expect(output.contains("trained on 20 messages (3 of them labelled differently by the passes: each label trains with its share)"), "\(output)")
        #expect(!errors.contains("already used"), "a disagreement's two lines are no repeated id: \(errors)")
        let (classified, _, _) = try await PipedREPL.run(["classify", "--weights", weights, "book a table for 2 tonight"], input: "", separateErrors: true)
        #expect(classified.contains("action"), "\(classified)")
    }

    /// `--split` that keeps none of a corpus's messages says why, not "no labelled messages"
    /// about a file that has them. (Both messages' text hashes fall in the train part.)
    @Test func aSplitThatKeepsNothingSaysWhy() async throws {
        let corpus = try folder().appendingPathComponent("noid.csv")
        try "text,intent,urgency\nbook a table,action,soon\nwhy is it blue,curiosity,exploratory\n".write(to: corpus, atomically: true, encoding: .utf8)
        let (_, errors, status) = try await PipedREPL.run(["eval", corpus.path, "--split", "test"], input: "", separateErrors: true)
        #expect(status == 1)
        #expect(errors.contains("--split test kept none of the 2 messages read: the split goes by each message's id (a message without one by a hash of its text, as `label` names it), and none falls in that part"), "\(errors)")
        let (output, _, whole) = try await PipedREPL.run(["eval", corpus.path], input: "", separateErrors: true)
        #expect(whole == 0 && output.contains("Evaluated 2 messages"), "\(output)")
    }

    /// `classify --jsonl-input` reads a line as `eval` does: what one reads (a numeric id, a
    /// null goal) the other reads, and what one refuses (a "text" that is a number) the other
    /// refuses, located.
    @Test func classifyReadsJSONLinesAsEvalDoes() async throws {
        let corpus = try folder().appendingPathComponent("lines.jsonl")
        try [#"{"id": 7, "text": "book a table for two", "intent": "action", "urgency": "soon", "goal": null}"#,
             #"{"id": "n", "text": 42, "intent": "curiosity", "urgency": "exploratory"}"#,
             #"{"text": "why is the sky blue", "intent": "curiosity", "urgency": "exploratory",}"#,
             #"{"id": "m", "text": "is it open today", "intent": "curiosity", "urgency": "soon", "meta": {"source": ["web", "x"], "q": "a}b"}}"#,
             #"{"id": "x", "intent": "action", "urgency": "soon"}"#,
             #"{"text": "   ", "intent": "action", "urgency": "soon"}"#]
            .joined(separator: "\n").write(to: corpus, atomically: true, encoding: .utf8)
        let (evaluated, evalErrors, _) = try await PipedREPL.run(["eval", corpus.path], input: "", separateErrors: true)
        #expect(evaluated.contains("Evaluated 2 messages"), "a nested field is skipped, not the line: \(evaluated)\(evalErrors)")
        let (output, errors, status) = try await PipedREPL.run(["classify", "--jsonl-input"], input: try String(contentsOf: corpus, encoding: .utf8), separateErrors: true)
        #expect(status == 1, "four lines are not messages: \(errors)")
        let classified = output.split(separator: "\n")
        #expect(classified.count == 2, "\(output)")
        #expect(classified.first?.contains(#""id":"7""#) == true && classified.last?.contains(#""id":"m""#) == true, "\(output)")
        #expect(errors.contains("standard input line 2: \"text\" must be a string (skipped)"), "\(errors)")
        #expect(evalErrors.contains("lines.jsonl:2: \"text\" must be a string"), "the same words: \(evalErrors)")
        #expect(errors.contains("standard input line 3: malformed JSON: expected a quoted key at column"), "\(errors)")
        #expect(evalErrors.contains("lines.jsonl:3: malformed JSON: expected a quoted key at column"), "\(evalErrors)")
        #expect(errors.contains("standard input line 5: missing or empty \"text\" (skipped)"), "\(errors)")
        #expect(errors.contains("standard input line 6: missing or empty \"text\" (skipped)"), "\(errors)")
        #expect(evalErrors.contains("lines.jsonl:6: missing or empty \"text\""), "the same words: \(evalErrors)")
        #expect(errors.contains("skipped 4 malformed lines"), "\(errors)")
    }

    /// `classify inbox.txt` classifies the words "inbox.txt" and says so, with how to classify
    /// the file's lines: a person who meant the file is not left with one line of output.
    @Test func aFileNamedAsTheMessageIsSaidToBeTakenAsWords() async throws {
        let file = Scratch.root.appendingPathComponent("inbox-\(UUID().uuidString).txt")
        try "where is my order\n".write(to: file, atomically: true, encoding: .utf8)
        let (output, errors, status) = try await PipedREPL.run(["classify", file.path], input: "", separateErrors: true)
        #expect(status == 0 && output.contains(file.lastPathComponent), "\(output)")
        #expect(errors.contains("is a file, classified here as a message of one word; to classify its lines: reception classify < "), "\(errors)")
    }

    /// A corpus piped into `classify` is said to be one, once; its lines are still classified
    /// as messages (a script may mean it), and a plain message says nothing.
    @Test func aCorpusPipedIntoClassifyIsSaidToBeOne() async throws {
        let (output, errors, _) = try await PipedREPL.run(["classify"], input: "id,text,intent,urgency\n1,hello,curiosity,exploratory\n", separateErrors: true)
        #expect(errors.contains("note: the first line looks like a corpus") && output.contains("id,text,intent,urgency"), "\(output)\(errors)")
        let (_, plain, _) = try await PipedREPL.run(["classify"], input: "where is my order, text me\n", separateErrors: true)
        #expect(plain.isEmpty, "\(plain)")
    }

    /// A line of standard input in another encoding ("café" in Windows-1252) is still
    /// classified, one answer a line, and named (it was decoded to U+FFFD without a sign);
    /// Windows line endings leave no "\r" in the message.
    @Test func aLineOfStandardInputInAnotherEncodingIsClassifiedAndNamed() async throws {
        let input = Scratch.root.appendingPathComponent("latin-\(UUID().uuidString).txt")
        try (Data("where is my order\r\n".utf8) + Data("caf".utf8) + Data([0xE9]) + Data(" au lait or espresso?\nwhy is the sky blue".utf8)).write(to: input)
        let (output, errors, status) = try await PipedREPL.run(["-c", "exec \"$0\" classify --json < \"$1\"", try Binary.reception(), input.path], input: "",
                                                              separateErrors: true, executable: "/bin/sh")
        let answers = output.split(separator: "\n").map(String.init)
        #expect(status == 0 && answers.count == 3, "\(output)\(errors)")
        #expect(answers.first?.contains(#""text":"where is my order""#) == true, "\(answers)")
        #expect(answers.dropFirst().first?.contains("caf\u{FFFD} au lait") == true, "\(answers)")
        #expect(errors.contains("warning: standard input line 2 is not valid UTF-8") && !errors.contains("line 1 ") && !errors.contains("line 3"), "\(errors)")
    }

    /// A line of more than a megabyte is classified by its first megabyte, cut where a
    /// character ends (cut through "é", it read as another encoding), and the next line is
    /// the next message; a JSON line that long is skipped in words, not called malformed.
    @Test func aLineOverAMegabyteIsClassifiedByItsBeginning() async throws {
        let long = String(repeating: "é", count: 600_000)
        let (output, errors, status) = try await PipedREPL.run(["classify"], input: long + "\nbook a table for two tonight\n", separateErrors: true)
        let answers = output.split(separator: "\n")
        #expect(status == 0 && answers.count == 2 && answers.last?.hasSuffix("book a table for two tonight") == true, "\(output.prefix(300))")
        #expect(errors.contains("warning: standard input line 1 is longer than 1 MB: its first megabyte is classified"), "\(errors)")
        #expect(!errors.contains("UTF-8") && !errors.contains("line 2"), "\(errors)")
        let json = #"{"text": ""# + long + #""}"#
        let (jsonOutput, jsonErrors, jsonStatus) = try await PipedREPL.run(["classify", "--jsonl-input"], input: json + "\n" + #"{"text": "why is the sky blue"}"# + "\n",
                                                                           separateErrors: true)
        #expect(jsonStatus == 1 && jsonOutput.split(separator: "\n").count == 1, "\(jsonOutput.prefix(300))")
        #expect(jsonErrors.contains("error: standard input line 1 is longer than 1 MB (skipped)") && !jsonErrors.contains("malformed JSON"), "\(jsonErrors)")
    }

    @Test func aBlankMessageIsNotClassified() async throws {
        for blank in ["", "   "] {
            let (output, errors, status) = try await PipedREPL.run(["classify", blank], input: "", separateErrors: true)
            #expect(status == 64 && errors.contains("The message is empty: there is nothing to classify."), "\(output)\(errors)")
        }
    }

    @Test func aWeightsPathThatIsNoFileIsSaidPlainly() async throws {
        let folder = try folder()
        let (_, errors, status) = try await PipedREPL.run(["classify", "--weights", folder.path, "hello"], input: "", separateErrors: true)
        #expect(status == 1)
        #expect(errors.contains("\(folder.path): cannot read the weights: is a directory, not a file"), "\(errors)")
    }

    /// At a terminal, `reception classify` with no message waited without a word: it now says
    /// it reads lines until Ctrl-D, classifies what is typed, and a pipe is told nothing.
    @Test func classifyAtATerminalSaysItReadsTypedLines() async throws {
        let terminal = try TerminalSession(arguments: ["classify"])
        try await terminal.waitFor("note: classifying each line you type; Ctrl-D ends")
        terminal.enter("book a table for two tonight")
        try await terminal.waitFor("action")
        terminal.type("\u{04}")
        #expect(try await terminal.exitStatus() == 0)
        let (_, errors, _) = try await PipedREPL.run(["classify"], input: "book a table\n", separateErrors: true)
        #expect(!errors.contains("Ctrl-D"), "\(errors)")
    }

}
