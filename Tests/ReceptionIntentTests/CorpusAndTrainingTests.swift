import Foundation
import Testing
import ReceptionCore
@testable import ReceptionIntent
import ReceptionTestSupport

let corpora = repositoryRoot.appendingPathComponent("Tests/Corpora")

func split(_ name: String) throws -> [LabelledMessage] {
    let result = try CorpusReader(strict: true).read(path: corpora.appendingPathComponent("\(name).jsonl").path)
    return result.messages
}

/// Messages people wrote, labelled twice (third-party data: read from `../shared`, as CI has it
/// beside the clone, never copied into the project). Tests that read it carry
/// `.needsShared(humanCorpusFolder)`.
let humanCorpusFolder = "corpora/human-train"
let humanCorpus = SharedData.url(humanCorpusFolder).appendingPathComponent("agreed.jsonl")
/// The second batch (claim-checking titles, fact-check and in-depth forums, buying advice,
/// problems happening now), in the same format.
let humanCorpus2 = SharedData.url(humanCorpusFolder).appendingPathComponent("batch-2/agreed.jsonl")

/// The first human-written batch.
func human(_ selection: TrainingSelection = TrainingSelection()) throws -> [LabelledMessage] {
    selection.apply(try CorpusReader(strict: true).read(path: humanCorpus.path).messages)
}

/// Both human-written batches.
func humanBoth(_ selection: TrainingSelection = TrainingSelection()) throws -> [LabelledMessage] {
    selection.apply(try CorpusReader(strict: true).read(paths: [humanCorpus.path, humanCorpus2.path]).messages)
}

/// The project's adjudication of messages the two annotators disagreed on (ids and labels
/// only), with their texts from `../shared`.
let humanAdjudicated = corpora.appendingPathComponent("human-adjudicated.jsonl")
let humanTexts = humanCorpus.deletingLastPathComponent().appendingPathComponent("messages.jsonl")

func adjudicated(_ selection: TrainingSelection = TrainingSelection()) throws -> [LabelledMessage] {
    selection.apply(try CorpusReader(strict: true).read(labels: humanAdjudicated.path, texts: humanTexts.path).messages)
}

/// What the shipped model is trained on, its training split: the project's train and dev
/// splits and the train and dev parts of both human-written batches, read as the annotators'
/// passes (the agreed messages once each, and each disagreement as a line per annotator with
/// half the message); every test part is held out. (The project's adjudication of the
/// disagreements is not in it: trained with it, the model did no better on the held-out sets;
/// see docs/intent-human-text.md.)
func shippedTrainingMessages() throws -> [LabelledMessage] {
    let messages = try ShippedCorpora.messages(root: repositoryRoot.path, strict: true).messages
    let whole = messages.filter { $0.share == nil }, shares = messages.filter { $0.share != nil }
    #expect(whole.count == (try split("train") + split("dev") + humanBoth(TrainingSelection(splits: [.train, .dev]))).count)
    #expect(shares.count > 600 && shares.allSatisfy { $0.share == 0.5 && $0.source != nil })
    #expect(Dictionary(grouping: shares, by: { $0.id ?? "" }).values.allSatisfy { $0.count == 2 }, "a line per annotator")
    #expect(!messages.contains { $0.id.map { CorpusSplit(id: $0) == .test } ?? true }, "no test part trains")
    return messages
}

@Suite("Corpus reading", .onTheCPULane)
struct CorpusReadingTests {
    /// An index.html that is a link (even to an earlier report) was followed
    /// by the check and then replaced by the report's rename; it is refused, and left as it is.
    @Test func aReportNeverReplacesALinkAtItsIndex() throws {
        let folder = Scratch.root.appendingPathComponent("report-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let earlier = folder.appendingPathComponent("earlier.html").path, index = folder.appendingPathComponent("index.html").path
        try "<html>\(ReportHTML.generator)</html>".write(toFile: earlier, atomically: false, encoding: .utf8)
        #expect(symlink(earlier, index) == 0)
        do {
            _ = try ReportHTML.checkedTarget(folder)
            Issue.record("the link was taken for the report's index")
        } catch {
            #expect("\(error)" == "\(index) is a symbolic link, not a report of reception eval; choose another directory")
        }
        var info = stat()
        #expect(lstat(index, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link is still there")
    }

    /// A directory or a FIFO given as a corpus got a raw Foundation error (and a
    /// FIFO could block); now each is named for what it is, with its path.
    @Test func aDirectoryOrAFIFOGivenAsACorpusIsNamedPlainly() throws {
        let directory = Scratch.root.appendingPathComponent("corpus-\(UUID().uuidString).jsonl")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fifo = Scratch.root.appendingPathComponent("corpus-\(UUID().uuidString).csv").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, expected) in [(directory.path, "is a directory, not a file"), (fifo, "is a named pipe (FIFO), not a regular file")] {
            do {
                _ = try CorpusReader().read(path: path)
                Issue.record("read \(path)")
            } catch {
                #expect("\(error)" == "\(path): \(expected)")
            }
        }
    }

    @Test func aMalformedLineIsReportedWithFileAndLineAndSkipped() throws {
        let text = """
        {"text": "why is the sky blue", "intent": "curiosity", "urgency": "exploratory"}
        {"text": "broken line", "intent": "curiosity"
        {"text": "what is love", "intent": "feelings", "urgency": "exploratory"}
        {"text": "why", "intent": "curiosity", "urgency": "soon\\u001b[2J"}

        {"id": "x-1", "text": "book a table for two tonight", "intent": "action", "urgency": "soon", "goal": "date night"}
        """
        let result = try CorpusReader().read(text: text, name: "c.jsonl", format: .jsonl)
        #expect(result.messages.count == 2)
        #expect(result.messages[1].location == "c.jsonl:6")
        #expect(result.messages[1].goal == "date night")
        #expect(result.issues.map(\.line) == [2, 3, 4])
        // The label quoted back shows the escape sequence it carried, as text a terminal does not
        // obey: the label is not "soon", and the message says why.
        #expect(result.issues[2].description == #"c.jsonl:4: unknown urgency "soon\u{1B}[2J" (expected immediate, soon, planning, exploratory)"#)
        #expect(result.issues[0].description.hasPrefix("c.jsonl:2: malformed JSON"))
        #expect(result.issues[1].description == "c.jsonl:3: unknown intent \"feelings\" (expected decision, research, action, curiosity, validation)")
        #expect(throws: CorpusIssue.self) { try CorpusReader(strict: true).read(text: text, name: "c.jsonl", format: .jsonl) }
    }

    @Test func jsonEscapesAreDecoded() throws {
        let text = #"{"text": "caf\u00e9 \"quote\" \ud83d\ude00 tab\tend", "intent": "curiosity", "urgency": "exploratory", "n": 3, "x": null}"#
        let message = try #require(try CorpusReader(strict: true).read(text: text, name: "e.jsonl", format: .jsonl).messages.first)
        #expect(message.text == "café \"quote\" 😀 tab\tend")
    }

    @Test func csvWithQuotesAndEmbeddedNewlines() throws {
        let text = "id,text,intent,urgency\n1,\"should I go, or stay?\",decision,soon\n2,\"a note\nover two lines\",action,exploratory\n3,bad,action\n4,\"fine \"\"quoted\"\"\",validation,immediate\n"
        let result = try CorpusReader().read(text: text, name: "c.csv", format: .csv)
        #expect(result.messages.map(\.text) == ["should I go, or stay?", "a note\nover two lines", "fine \"quoted\""])
        #expect(result.messages[2].location == "c.csv:6")
        #expect(result.issues.map(\.description) == ["c.csv:5: expected 4 fields, found 3"])
    }

    /// A quote never closed takes the rest of the file with it: the skip says how many lines.
    @Test func anUnclosedQuoteSaysHowManyLinesItSwallowed() throws {
        let text = "text,intent,urgency\nfine,action,soon\n\"unterminated quote,action,soon\nlast,action,soon\nreally last,action,soon\n"
        let result = try CorpusReader().read(text: text, name: "r.csv", format: .csv)
        #expect(result.messages.map(\.text) == ["fine"])
        #expect(result.issues.map(\.description) == ["r.csv:3: a quote opened here is never closed, so this line and the 2 after it (to line 5) were read as one field and skipped"])
    }

    /// Excel's "CSV UTF-8" starts with a byte-order mark; so do some JSONL files. Both read.
    @Test func aByteOrderMarkIsNotPartOfTheFirstLine() throws {
        let bom = Data([0xEF, 0xBB, 0xBF])
        let csv = try CorpusReader().read(data: bom + Data("text,intent,urgency\r\nbook a table,action,soon\r\n".utf8), name: "b.csv", format: .csv)
        #expect(csv.messages.map(\.text) == ["book a table"] && csv.issues.isEmpty, "\(csv.issues)")
        let jsonl = try CorpusReader().read(data: bom + Data(#"{"text": "why is it blue", "intent": "curiosity", "urgency": "exploratory"}"#.utf8),
                                            name: "b.jsonl", format: .jsonl)
        #expect(jsonl.messages.map(\.text) == ["why is it blue"] && jsonl.issues.isEmpty, "\(jsonl.issues)")
    }

    @Test func tsvAndAMissingColumn() throws {
        let text = "text\tintent\turgency\nwhy is the sky blue\tcuriosity\texploratory\ttoo many\nfix my bike\\tnow\taction\timmediate\n"
        let result = try CorpusReader().read(text: text, name: "c.tsv", format: .tsv)
        #expect(result.messages.map(\.text) == ["fix my bike\tnow"])
        #expect(result.issues.map(\.description) == ["c.tsv:2: expected 3 fields, found 4"])
        #expect(throws: CorpusIssue.self) { try CorpusReader().read(text: "text,intent\nx,action\n", name: "m.csv", format: .csv) }
    }

    @Test func theCommittedSplitFollowsTheIdHash() throws {
        var seen: Set<String> = []
        for part in CorpusSplit.allCases {
            let messages = try split(part.rawValue)
            #expect(!messages.isEmpty)
            for message in messages {
                let id = try #require(message.id)
                #expect(CorpusSplit(id: id) == part, "\(id) is in \(part)")
                #expect(seen.insert(id).inserted, "\(id) appears twice")
            }
        }
        #expect(seen.count >= 2_000)
        // The splits hold exactly the hand-written source files (`scripts/split-corpus.py`).
        let sources = try FileManager.default.contentsOfDirectory(atPath: corpora.appendingPathComponent("source").path)
            .filter { $0.hasSuffix(".jsonl") }.sorted()
        var written: Set<String> = []
        for file in sources {
            let messages = try CorpusReader(strict: true).read(path: corpora.appendingPathComponent("source/\(file)").path).messages
            for message in messages { written.insert(try #require(message.id)) }
        }
        #expect(written == seen, "rerun scripts/split-corpus.py after editing Tests/Corpora/source")
    }
}

@Suite("Metrics", .onTheCPULane)
struct MetricsTests {
    @Test func perLabelScoresConfusionAndCalibrationByHand() {
        // truth:     a a a b b c
        // predicted: a a b b c c
        let metrics = HeadMetrics(labels: ["a", "b", "c"], truth: [0, 0, 0, 1, 1, 2], predicted: [0, 0, 1, 1, 2, 2],
                                  confidence: [0.95, 0.95, 0.55, 0.55, 0.55, 0.95])
        #expect(metrics.accuracy == 4.0 / 6.0)
        #expect(metrics.confusion == [[2, 1, 0], [0, 1, 1], [0, 0, 1]])
        #expect(metrics.perLabel[0].precision == 1 && metrics.perLabel[0].recall == 2.0 / 3.0)
        #expect(abs(metrics.perLabel[1].f1 - 0.5) < 1e-12)
        #expect(abs(metrics.macroF1 - (0.8 + 0.5 + 2.0 / 3.0) / 3) < 1e-12)
        // bin 0.9-1.0: 3 predictions at 0.95, all right → gap 0.05; bin 0.5-0.6: 3 at 0.55, 1 right → gap 0.2167
        #expect(abs(metrics.ece - (0.5 * 0.05 + 0.5 * abs(1.0 / 3.0 - 0.55))) < 1e-12)
        #expect(metrics.confidenceHistogram[9] == 3 && metrics.confidenceHistogram[5] == 3)
    }

    /// A label no message has, and one nothing was predicted as, showed 0.000 beside a perfect
    /// accuracy, as if they had failed: their figures have no meaning and are shown as "—".
    @Test func figuresWithoutMeaningAreShownAsADash() {
        // truth: a a b; predicted: a c b. Nothing is c in truth; nothing is predicted d.
        let metrics = HeadMetrics(labels: ["a", "b", "c", "d"], truth: [0, 0, 1], predicted: [0, 2, 1], confidence: [0.9, 0.9, 0.9])
        let f3 = { (x: Double) in String(format: "%.3f", x) }
        #expect(metrics.shownFigures(0, f3) == ("1.000", "0.500", "0.667"))
        #expect(metrics.shownFigures(2, f3) == ("0.000", "—", "—"), "predicted once, wrongly, and in no message")
        #expect(metrics.shownFigures(3, f3) == ("—", "—", "—"))
    }
}

@Suite("Training", .serialized)
struct TrainingTests {
    @Test func trainingTwiceGivesIdenticalBytesWhateverTheOrder() async throws {
        let sample = Array(try split("train").prefix(300))
        var options = TrainingOptions()
        options.folds = 2
        options.maxIterations = 60
        let chosen = options
        let first = await offThePool { Trainer.train(sample, lexicon: .shipped, options: chosen).serialized() }
        let second = await offThePool { Trainer.train(sample.reversed(), lexicon: .shipped, options: chosen).serialized() }
        #expect(first == second)
        #expect(first.contains("\"examples\": \"300\""))
    }

    /// Labels taken from a public corpus repeat its messages: trained beside the shipped
    /// corpora, such a model is scored on the held-out parts with messages it learned. Counted
    /// by their words, case and spacing aside, so that `train` can say so.
    @Test(.needsShared(humanCorpusFolder)) func ownLabelsThatRepeatTheShippedCorporaAreCounted() throws {
        let root = SharedData.repository.path
        let (training, heldOut) = try ShippedCorpora.read(root: root)
        let shipped = training.messages
        #expect(heldOut.count > 1_900, "the project's test split and the human test parts: \(heldOut.count)")
        func own(_ text: String) -> LabelledMessage {
            LabelledMessage(id: nil, text: text, intent: .curiosity, urgency: .exploratory, location: "mine.jsonl:1")
        }
        let mine = [own("  " + heldOut[0].text.uppercased() + " "), own(heldOut[1].text), own(shipped[0].text), own("a message of my own nobody wrote before 7f3a")]
        let shared = ShippedCorpora.overlap(of: mine, training: shipped, heldOut: heldOut)
        #expect(shared.heldOut == 2 && shared.training == 1, "\(shared)")
    }

    /// `reception train --with-shipped-corpora` on the training split (`shippedTrainingMessages`:
    /// every part but the test parts) gives the shipped weights byte for byte. In a debug build this
    /// is minutes of one core: it runs on a thread of its own (`offThePool`), beside the other
    /// tests rather than in front of them.
    @Test(.needsShared(humanCorpusFolder)) func theShippedWeightsAreWhatTrainProducesOnTheTrainSplit() async throws {
        let messages = try shippedTrainingMessages()
        #expect(messages.contains { $0.source != nil } && messages.contains { $0.source == nil })
        let fresh = await offThePool { Trainer.train(messages, lexicon: .shipped).serialized() }
        #expect(fresh == IntentWeights.shipped.serialized())
    }

    /// The bar on the held-out test split: accuracy >= 0.92 and macro-F1
    /// >= 0.90 on both heads, and calibrated confidences (ECE < 0.05). The split is fixed and
    /// training deterministic, so this cannot flake; it fails when a lexicon, feature or
    /// corpus change costs accuracy. (The shipped model: intent 0.923 / 0.923, urgency
    /// 0.932 / 0.932 on 1,404 messages.)
    @Test func heldOutAccuracyMeetsTheBar() throws {
        let report = EvaluationReport.evaluate(try split("test"), classifier: IntentClassifier())
        #expect(report.count >= 1_000)
        #expect(report.intent.accuracy >= 0.92, "intent accuracy \(report.intent.accuracy)")
        #expect(report.urgency.accuracy >= 0.92, "urgency accuracy \(report.urgency.accuracy)")
        #expect(report.intent.macroF1 >= 0.90, "intent macro-F1 \(report.intent.macroF1)")
        #expect(report.urgency.macroF1 >= 0.90, "urgency macro-F1 \(report.urgency.macroF1)")
        #expect(report.intent.ece < 0.05, "intent ECE \(report.intent.ece)")
        #expect(report.urgency.ece < 0.05, "urgency ECE \(report.urgency.ece)")
    }

    /// Two writers who read only the guidelines, never the corpus, the lexicon or the code;
    /// kept out of every split, so no training or tuning has seen them.
    @Test func unseenWritersMeetTheBar() throws {
        let files = ["writer-k", "writer-l"].map { corpora.appendingPathComponent("unseen/\($0).jsonl").path }
        let messages = try files.flatMap { try CorpusReader(strict: true).read(path: $0).messages }
        let report = EvaluationReport.evaluate(messages, classifier: IntentClassifier())
        #expect(report.count == 480)
        #expect(report.intent.accuracy >= 0.92, "intent accuracy \(report.intent.accuracy)")
        #expect(report.urgency.accuracy >= 0.92, "urgency accuracy \(report.urgency.accuracy)")
    }
}

extension TrainingTests {
    /// The issue's calibration bar on its set of model-written unseen batches (k, l, m, n
    /// together). One temperature per head serves model-written and human text, fitted with the
    /// human text weighing more (`calibrationSourceWeight`): on writers k and l alone the model
    /// is a little under-confident (ECE 0.056 / 0.052, accuracy above confidence), which a
    /// per-pair bar would reject; over the four it is within 0.05.
    /// Three more writers who read only the guidelines, in the short forms people type: support
    /// chat openers (r), voice-assistant and chatbot requests (s), forum and Q&A titles (t).
    /// Written to join the corpus, they did not move either dev part and were kept out of
    /// training instead. The shipped model scores intent 0.931 and urgency 0.927 on them
    /// (ECE 0.059 / 0.036: under-confident, accuracy above confidence); this floor catches a
    /// change that costs more.
    @Test func shortFormUnseenWritersHoldTheirFloor() throws {
        let files = ["writer-r", "writer-s", "writer-t"].map { corpora.appendingPathComponent("unseen/\($0).jsonl").path }
        let messages = try files.flatMap { try CorpusReader(strict: true).read(path: $0).messages }
        let report = EvaluationReport.evaluate(messages, classifier: IntentClassifier())
        #expect(report.count == 1_200)
        #expect(report.intent.accuracy >= 0.92, "intent accuracy \(report.intent.accuracy)")
        #expect(report.urgency.accuracy >= 0.91, "urgency accuracy \(report.urgency.accuracy)")
    }

    /// The bar on all seven model-written unseen batches (k, l, m, n, r, s, t; 2,320 messages by
    /// writers who read only the guidelines, never trained or tuned on): intent at least 0.94,
    /// urgency at least 0.93, both heads calibrated. The shipped model: 0.944 / 0.931, ECE 0.040
    /// / 0.013.
    @Test func allSevenUnseenBatchesMeetTheBar() throws {
        let folder = corpora.appendingPathComponent("unseen")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jsonl") }.sorted()
        #expect(files == ["k", "l", "m", "n", "r", "s", "t"].map { "writer-\($0).jsonl" })
        let messages = try files.flatMap { try CorpusReader(strict: true).read(path: folder.appendingPathComponent($0).path).messages }
        let report = EvaluationReport.evaluate(messages, classifier: IntentClassifier())
        #expect(report.count == 2_320)
        #expect(report.intent.accuracy >= 0.94, "intent accuracy \(report.intent.accuracy)")
        #expect(report.urgency.accuracy >= 0.93, "urgency accuracy \(report.urgency.accuracy)")
        #expect(report.intent.ece <= 0.05 && report.urgency.ece <= 0.05, "ECE \(report.intent.ece), \(report.urgency.ece)")
    }

    @Test func theUnseenBatchesTogetherAreCalibrated() throws {
        let files = ["writer-k", "writer-l", "writer-m", "writer-n"].map { corpora.appendingPathComponent("unseen/\($0).jsonl").path }
        let messages = try files.flatMap { try CorpusReader(strict: true).read(path: $0).messages }
        let report = EvaluationReport.evaluate(messages, classifier: IntentClassifier())
        #expect(report.count == 1_120)
        #expect(report.intent.ece <= 0.05 && report.urgency.ece <= 0.05, "ECE \(report.intent.ece), \(report.urgency.ece)")
    }

    /// Two later writers who read only the guidelines: non-native English and chat
    /// fragments (m), long pasted context with the question at the end (n). Kept out of
    /// training. The shipped model scores intent 0.948, urgency 0.902 on them together (ECE
    /// 0.039 / 0.019); urgency is under the issue's 0.94: this floor catches a change that costs
    /// more. (Before writers o, p and q joined the corpus: 0.930 / 0.894.)
    @Test func laterUnseenWritersHoldTheirFloor() throws {
        let files = ["writer-m", "writer-n"].map { corpora.appendingPathComponent("unseen/\($0).jsonl").path }
        let messages = try files.flatMap { try CorpusReader(strict: true).read(path: $0).messages }
        let report = EvaluationReport.evaluate(messages, classifier: IntentClassifier())
        #expect(report.count == 640)
        #expect(report.intent.accuracy >= 0.94, "intent accuracy \(report.intent.accuracy)")
        #expect(report.urgency.accuracy >= 0.89, "urgency accuracy \(report.urgency.accuracy)")
        #expect(report.intent.ece < 0.05 && report.urgency.ece < 0.05, "ECE \(report.intent.ece), \(report.urgency.ece)")
    }
}

@Suite("Reports", .onTheCPULane)
struct ReportTests {
    /// One text labelled one way on 30 lines and another on one: said, with where, since a
    /// model can get only one of them right (the reader saw a score with a hidden ceiling).
    @Test func aMessageLabelledDifferentlyOnDifferentLinesIsNoted() throws {
        let csv = "text,intent,urgency\n" + String(repeating: "what is compound interest,research,exploratory\n", count: 30)
            + "what is compound interest,action,exploratory\nbook a table,action,soon\n"
        let corpus = try CorpusReader().read(text: csv, name: "c.csv", format: .csv)
        #expect(corpus.conflictingLabelNotes == [
            "note: \"what is compound interest\" is labelled research/exploratory on 30 lines (first c.csv:2), "
                + "action/exploratory on 1 line (first c.csv:32); one model gets at most one of them right",
        ])
        let agreeing = try CorpusReader().read(text: "text,intent,urgency\nbook a table,action,soon\nbook a table,action,soon\n", name: "a.csv", format: .csv)
        #expect(agreeing.conflictingLabelNotes.isEmpty)
    }

    /// A message a corpus holds three times, got wrong, is one of the worst errors with where
    /// it repeats (it filled three of the ten places); the figures still count every line.
    @Test func aRepeatedMessageIsOneErrorWithWhereItRepeats() throws {
        let wrong = "why is the sky blue"
        let messages = (1...3).map { LabelledMessage(id: "\($0)", text: wrong, intent: .research, urgency: .exploratory, location: "t.jsonl:\($0)") }
            + [LabelledMessage(id: "4", text: wrong, intent: .validation, urgency: .exploratory, location: "t.jsonl:4"),
               LabelledMessage(id: "5", text: "book a table for two tonight", intent: .research, urgency: .soon, location: "t.jsonl:5")]
        let report = EvaluationReport.evaluate(messages, classifier: IntentClassifier(), files: ["t.jsonl"])
        #expect(report.count == 5 && report.intent.accuracy == 0)
        let skyBlue = report.worstErrors.filter { $0.text == wrong }
        #expect(skyBlue.count == 2, "labelled otherwise, line 4 is an error of its own: \(skyBlue.map(\.location))")
        #expect(skyBlue.first { $0.location == "t.jsonl:1" }?.repeatedAt == ["t.jsonl:2", "t.jsonl:3"])
        #expect(report.worstErrors.count == 3)
        let text = ReportText.evaluation(report)
        #expect(text.contains("the same message, labelled alike, is also at t.jsonl:2, t.jsonl:3 (3 lines in all)"), "\(text)")
        #expect(!text.contains("\nt.jsonl:2"), "line 2 is not listed as an error of its own")
        // Ten thousand lines of one message name the first few places and count the rest.
        let many = (1...10_000).map { LabelledMessage(id: "\($0)", text: wrong, intent: .research, urgency: .exploratory, location: "m.jsonl:\($0)") }
        let manyReport = EvaluationReport.evaluate(many, classifier: IntentClassifier(), files: ["m.jsonl"])
        let only = try #require(manyReport.worstErrors.first)
        #expect(manyReport.worstErrors.count == 1 && only.repeatedAt?.count == EvaluationError.repeatsListed && only.repeatedLines == 9_999)
        #expect(ReportText.evaluation(manyReport).contains("is also at m.jsonl:2, m.jsonl:3, m.jsonl:4, m.jsonl:5, m.jsonl:6 and 9994 more (10000 lines in all)"))
    }

    @Test func theHTMLReportIsSelfContainedWithCharts() throws {
        let messages = [
            LabelledMessage(id: "1", text: "should I take the train or fly <tomorrow>?", intent: .decision, urgency: .soon, location: "t.jsonl:1"),
            LabelledMessage(id: "2", text: "why is the sky blue\u{1B}]0;pwned\u{07}", intent: .research, urgency: .exploratory, location: "t.jsonl:2"),
            LabelledMessage(id: "3", text: "book a table for two tonight", intent: .action, urgency: .soon, location: "t.jsonl:3"),
        ]
        let report = EvaluationReport.evaluate(messages, classifier: IntentClassifier(), files: ["t.jsonl"],
                                               issues: [CorpusIssue(file: "t.jsonl", line: 4, message: "malformed JSON")])
        let html = ReportHTML.render(report)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.components(separatedBy: "<svg").count - 1 == 6) // heatmap, reliability, histogram × 2 heads
        #expect(html.contains("aria-label=\"confusion matrix\""))
        #expect(html.contains("aria-label=\"reliability diagram\""))
        #expect(html.contains("t.jsonl:4: malformed JSON"))
        #expect(!html.contains("<script"))
        #expect(!html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http"))
        #expect(!html.contains("<tomorrow>"))
        // the research message is classified curiosity: it is listed among the errors, with its explanation
        #expect(report.worstErrors.contains { $0.id == "2" })
        #expect(html.contains("why is the sky blue"))
        // The page quotes corpus text: no escape or control character of it is left in the file.
        #expect(!html.contains("\u{1B}") && !html.contains("\u{07}"), "a corpus line's escapes reached the page")
        // --report replaces its own earlier report, never a page it did not write, and is a directory.
        let folder = Scratch.root.appendingPathComponent("report-\(UUID().uuidString)/nested")
        let written = try ReportHTML.write(report, to: folder)
        // It quotes people's messages: readable by its owner only.
        #expect((try FileManager.default.attributesOfItem(atPath: written.path)[.posixPermissions] as? Int) == 0o600)
        #expect((try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int) == 0o700)
        #expect(try ReportHTML.write(report, to: folder) == written, "a second evaluation updates the report")
        try "<html>my page</html>".write(to: written, atomically: true, encoding: .utf8)
        #expect(throws: ReportTargetError.self) { try ReportHTML.write(report, to: folder) }
        #expect(try String(contentsOf: written, encoding: .utf8) == "<html>my page</html>", "nothing lost")
        #expect(throws: ReportTargetError.self) { try ReportHTML.checkedTarget(written) }
        #expect(throws: CorpusIssue(file: folder.path, line: 0, message: "is a directory; name the corpus files in it")) {
            try CorpusReader().read(path: folder.path)
        }
        let text = ReportText.evaluation(report)
        #expect(text.contains("skipped 1 malformed line\n"))
        #expect(text.contains("confusion (rows: truth, columns: predicted)"))
        // The misclassified message is listed, without the escape sequence it carried.
        #expect(text.contains("why is the sky blue") && !text.contains("\u{1B}") && !text.contains("pwned"), "\(text)")
        // Each head's explanation under its name: both list "chosen" and "runner-up", so
        // unnamed, the intent and urgency blocks read alike.
        let errors = try #require(text.range(of: "== most confident errors ==").map { String(text[$0.upperBound...]) })
        let headers = errors.split(separator: "\n").filter { $0.hasSuffix("intent:") || $0.hasSuffix("urgency:") }
        let chosenLines = errors.split(separator: "\n").filter { $0.hasPrefix("    chosen ") }
        #expect(!chosenLines.isEmpty && headers.count == chosenLines.count, "every block named:\n\(errors)")
        let json = try report.json()
        let decoded = try JSONDecoder().decode(EvaluationReport.self, from: Data(json.utf8))
        #expect(decoded.count == 3 && decoded.intent.confusion == report.intent.confusion)
        #expect(report.meets(minAccuracy: 0) && !report.meets(minAccuracy: 1.01))
    }
}
