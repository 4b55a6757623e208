import Foundation
import ReceptionTestSupport
import Testing

/// Corpora as people export them (found by a trial of `classify`, `eval` and `train` on
/// hand-made files): spaces after commas, a byte-order mark, another encoding, invisible
/// characters in a label, too little to train on. Each is read, or refused in plain words
/// that name the line, and a gate never passes on a corpus it could not read.
@Suite("Corpus input through the binary")
struct IntentCorpusInputEndToEndTests {
    func file(_ name: String, _ contents: Data) throws -> URL {
        let folder = Scratch.root.appendingPathComponent("reception-corpus-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    func file(_ name: String, _ text: String) throws -> URL { try file(name, Data(text.utf8)) }

    @Test func aCSVWithSpacesAfterItsCommasIsReadWhole() async throws {
        let corpus = try file("spaced.csv", "id, text, intent, urgency\n1, why is the sky blue, curiosity, exploratory\n2, \"book a table, tonight\" , Action , soon\n")
        let (output, errors, status) = try await PipedREPL.run(["eval", corpus.path, "--json"], input: "", separateErrors: true)
        #expect(status == 0 && !errors.contains("warning"), "\(errors)")
        #expect(output.contains(#""count":2"#) || output.contains(#""count" : 2"#), "\(output)")
    }

    @Test func aGateFailsWhenLinesWereSkippedUnlessAllowed() async throws {
        let corpus = try file("gate.csv", "text,intent,urgency\nwhy is the sky blue,curiosity,exploratory\nbook a table,acton,soon\n")
        let (_, errors, status) = try await PipedREPL.run(["eval", corpus.path, "--min-accuracy", "0.5"], input: "", separateErrors: true)
        #expect(status == 1, "\(errors)")
        #expect(errors.contains("--min-accuracy 0.5 is checked only on a whole corpus: 1 line was skipped"), "\(errors)")
        let (_, allowedErrors, allowed) = try await PipedREPL.run(["eval", corpus.path, "--min-accuracy", "0.5", "--allow-skipped"], input: "", separateErrors: true)
        #expect(allowed == 0, "\(allowedErrors)")
    }

    @Test func aLineInAnotherEncodingIsSkippedAndSaidInEveryFormat() async throws {
        // "café" in Windows-1252: the é is one byte, 0xE9, which is no UTF-8.
        let latin = Data("caf".utf8) + Data([0xE9]) + Data(" au lait or espresso?".utf8)
        let lines: [(String, Data, Int)] = [
            ("x.csv", Data("text,intent,urgency\n".utf8) + latin + Data(",decision,immediate\nwhy is it blue,curiosity,exploratory\n".utf8), 2),
            ("x.tsv", Data("text\tintent\turgency\n".utf8) + latin + Data("\tdecision\timmediate\nwhy is it blue\tcuriosity\texploratory\n".utf8), 2),
            ("x.jsonl", Data(#"{"text": ""#.utf8) + latin + Data((#"", "intent": "decision", "urgency": "immediate"}"# + "\n").utf8)
                + Data(#"{"text": "why is it blue", "intent": "curiosity", "urgency": "exploratory"}"#.utf8), 1),
        ]
        for (name, data, line) in lines {
            let corpus = try file(name, data)
            let (output, errors, _) = try await PipedREPL.run(["eval", corpus.path], input: "", separateErrors: true)
            #expect(errors.contains("\(name):\(line): not valid UTF-8"), "\(name): \(errors)")
            #expect(output.contains("Evaluated 1 message"), "\(name): \(output)")
        }
        let binary = try file("junk.jsonl", Data([0x7B, 0x00, 0x01, 0x0A, 0x22]))
        let (_, errors, status) = try await PipedREPL.run(["eval", binary.path], input: "", separateErrors: true)
        #expect(status == 1 && errors.contains("junk.jsonl: is not text (a NUL byte at offset 1)"), "\(errors)")
    }

    @Test func anInvisibleCharacterInALabelIsShownAndALongOneIsCut() async throws {
        let long = String(repeating: "x", count: 5_000)
        let corpus = try file("labels.jsonl", [
            #"{"text": "is this real", "intent": "curiosity\u2060", "urgency": "exploratory"}"#,
            #"{"text": "why", "intent": "\u001b[0mcuriosity", "urgency": "exploratory"}"#,
            #"{"text": "hi", "intent": "curiosity", "urgency": "\#(long)"}"#,
            #"{"text": "why is it blue", "intent": "curiosity", "urgency": "exploratory"}"#,
        ].joined(separator: "\n"))
        let (_, errors, _) = try await PipedREPL.run(["eval", corpus.path], input: "", separateErrors: true)
        #expect(errors.contains(#"labels.jsonl:1: unknown intent "curiosity\u{2060}""#), "\(errors)")
        #expect(errors.contains(#"labels.jsonl:2: unknown intent "\u{1B}[0mcuriosity""#), "\(errors)")
        #expect(errors.contains("… (5000 characters)") && errors.count < 2_000, "\(errors.count) characters")
    }

    @Test func aByteOrderMarkOnStandardInputHidesNoWord() async throws {
        let (plain, _, _) = try await PipedREPL.run(["classify", "--json"], input: "why is the sky blue\n", separateErrors: true)
        let (marked, _, _) = try await PipedREPL.run(["classify", "--json"], input: "\u{FEFF}why is the sky blue\n", separateErrors: true)
        #expect(!plain.isEmpty && marked == plain, "\(marked)")
        let line = #"{"id": "a", "text": "why is the sky blue"}"#
        let (read, errors, status) = try await PipedREPL.run(["classify", "--jsonl-input"], input: "\u{FEFF}" + line + "\n", separateErrors: true)
        #expect(status == 0 && read.contains(#""id":"a""#), "\(errors)")
    }

    @Test func jsonOutputEscapesTerminalControlsItCarries() async throws {
        let (output, _, status) = try await PipedREPL.run(["classify", "--jsonl-input"], input: #"{"text": "why \u009b31m red \u202e evil"}"# + "\n", separateErrors: true)
        #expect(status == 0)
        #expect(!output.unicodeScalars.contains { $0.value == 0x9B || $0.value == 0x202E }, "\(output)")
        #expect(output.contains(#"\u009b31m red \u202e evil"#), "\(output)")
    }

    @Test func trainRefusesTooLittleAndTwoOutputsOnOneFile() async throws {
        let one = try file("one.jsonl", #"{"text": "why is the sky blue", "intent": "curiosity", "urgency": "exploratory"}"#)
        let out = one.deletingLastPathComponent().appendingPathComponent("w.json").path
        let (_, errors, status) = try await PipedREPL.run(["train", one.path, "--out", out], input: "", separateErrors: true)
        #expect(status == 1 && !FileManager.default.fileExists(atPath: out), "\(errors)")
        #expect(errors.contains("too little to train on: 1 message (at least 20); one intent label (curiosity) where two or more are needed"), "\(errors)")
        let (_, both, bothStatus) = try await PipedREPL.run(["train", one.path, "--out", out, "--export-lexicon", out], input: "", separateErrors: true)
        #expect(bothStatus == 64 && both.contains("--out and --export-lexicon both name \(out)"), "\(both)")
        let (_, lexicon, lexiconStatus) = try await PipedREPL.run(["train", one.path, "--out", out, "--lexicon", "/nonexistent/lexicon.txt"], input: "", separateErrors: true)
        #expect(lexiconStatus == 1 && lexicon.contains("cannot read the lexicon /nonexistent/lexicon.txt: no such file") && !lexicon.contains("NSCocoaErrorDomain"), "\(lexicon)")
        let (_, classify, _) = try await PipedREPL.run(["classify", "--lexicon", one.deletingLastPathComponent().path, "hi"], input: "", separateErrors: true)
        #expect(classify.contains("cannot read the lexicon: is a directory, not a file"), "\(classify)")
    }

    /// Messages without ids were left out of every split without a word ("training on 51 of
    /// 92"): they now fall where the id `label` gives them (a hash of the text) does, so
    /// `train --split` and `eval --split` take them, and the parts add up to the whole.
    @Test func messagesWithoutIdsFallInTheSplitByTheirText() async throws {
        // Sixty messages without ids; by their text hashes 33 are in train, 15 in dev, 12 in test.
        let text = (0..<30).flatMap { n in
            [#"{"text": "book a table for \#(n + 2) tonight", "intent": "action", "urgency": "soon"}"#,
             #"{"text": "why do cats purr, question \#(n)", "intent": "curiosity", "urgency": "exploratory"}"#]
        }.joined(separator: "\n")
        let corpus = try file("noid.jsonl", text)
        let out = corpus.deletingLastPathComponent().appendingPathComponent("w.json").path
        let (trained, errors, status) = try await PipedREPL.run(["train", corpus.path, "--split", "train", "--out", out, "--folds", "2"], input: "", separateErrors: true)
        #expect(status == 0 && (trained + errors).contains("training on 33 of 60 messages"), "\(trained)\(errors)")
        var evaluated: [Int] = []
        for part in ["train", "dev", "test"] {
            let (_, said, _) = try await PipedREPL.run(["eval", corpus.path, "--split", part], input: "", separateErrors: true)
            evaluated.append(try #require(said.firstMatch(of: /evaluating (\d+) of the 60 messages read/).flatMap { Int($0.1) }, "\(said)"))
        }
        #expect(evaluated == [33, 15, 12], "every message is in one part")
    }

    /// A corpus from a pipe: `-` with --format reads standard input; without --format it is
    /// refused at once (before, "-: no such file").
    @Test func evalReadsStandardInputWithAFormat() async throws {
        let lines = "text,intent,urgency\nwhy is the sky blue,curiosity,exploratory\nbook a table tonight,action,soon\n"
        let (output, errors, status) = try await PipedREPL.run(["eval", "-", "--format", "csv"], input: lines, separateErrors: true)
        #expect(status == 0 && output.contains("Evaluated 2 messages from standard input"), "\(output)\(errors)")
        let (_, refused, refusedStatus) = try await PipedREPL.run(["eval", "-"], input: lines, separateErrors: true)
        #expect(refusedStatus == 64 && refused.contains("- reads standard input: say its format with --format jsonl, csv or tsv"), "\(refused)")
    }

    /// `train` reads a corpus from a pipe as `eval` does (`label`'s file filtered by `jq`, say):
    /// the weights trained from standard input are the weights trained from the file.
    @Test func trainReadsStandardInputWithAFormat() async throws {
        let corpus = try file("small.jsonl", IntentCommandsEndToEndTests.smallCorpus)
        let folder = corpus.deletingLastPathComponent()
        let fromFile = folder.appendingPathComponent("from-file.json").path, fromPipe = folder.appendingPathComponent("from-pipe.json").path
        let (_, fileErrors, fileStatus) = try await PipedREPL.run(["train", corpus.path, "--out", fromFile], input: "", separateErrors: true)
        #expect(fileStatus == 0, "\(fileErrors)")
        let (output, errors, status) = try await PipedREPL.run(["train", "-", "--format", "jsonl", "--out", fromPipe], input: IntentCommandsEndToEndTests.smallCorpus, separateErrors: true)
        #expect(status == 0 && output.contains("trained on 20 messages"), "\(output)\(errors)")
        #expect(FileManager.default.contents(atPath: fromPipe) == FileManager.default.contents(atPath: fromFile))
        let (_, refused, refusedStatus) = try await PipedREPL.run(["train", "-", "--out", fromPipe, "--force"], input: IntentCommandsEndToEndTests.smallCorpus, separateErrors: true)
        #expect(refusedStatus == 64 && refused.contains("- reads standard input: say its format with --format jsonl, csv or tsv"), "\(refused)")
    }

    /// The same id twice is one message counted twice, or two the split cannot tell apart:
    /// said, at the repeat, with where it was first (both are still read).
    @Test func aRepeatedIDIsSaidWhereItRepeats() async throws {
        let corpus = try file("dup.jsonl", #"{"id": "a", "text": "why is it blue", "intent": "curiosity", "urgency": "exploratory"}"# + "\n"
                              + #"{"id": "a", "text": "book a table", "intent": "action", "urgency": "soon"}"#)
        let (output, errors, status) = try await PipedREPL.run(["eval", corpus.path], input: "", separateErrors: true)
        #expect(status == 0 && output.contains("Evaluated 2 messages"), "\(output)")
        #expect(errors.contains("dup.jsonl:2: the id \"a\" was already used at \(corpus.path):1; both are read"), "\(errors)")
    }
}
