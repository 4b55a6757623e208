import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionIntent

@Suite("Labelling", .onTheCPULane)
struct LabellingTests {
    func folder() throws -> URL {
        let folder = Scratch.root.appendingPathComponent("labelling-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static let messages = [
        "should i take the train or fly to seattle next month",
        "is it true that cracking your knuckles causes arthritis",
        "my card was declined at the shop just now",
        "why is the sky blue",
        "book a table for two tonight",
        "explain how vaccines train the immune system",
        "best note taking app for uni",
        "what time is it in tokyo",
    ]

    @Test func plainTextGetsIdsFromItsTextAndRepeatsAreLabelledOnce() throws {
        let text = Self.messages.joined(separator: "\n") + "\n\n   \nwhy is the sky blue\n"
        let result = try LabellingInput.read(data: Data(text.utf8), name: "m.txt", format: .text)
        #expect(result.items.map(\.text) == Self.messages)
        #expect(result.repeats == 1)
        #expect(result.items[3].id == LabellingInput.textID("why is the sky blue"))
        #expect(result.items[3].location == "m.txt:4")
        #expect(Set(result.items.map(\.id)).count == Self.messages.count)
    }

    @Test func csvWithoutLabelColumnsAndJSONLWithSomeLabelsRead() throws {
        let csv = try LabellingInput.read(data: Data("id,text\n7,\"why, though?\"\n8,book it\n".utf8), name: "m.csv", format: .csv)
        #expect(csv.items.map(\.id) == ["7", "8"] && csv.items[0].text == "why, though?" && !csv.items[0].hasLabels)
        let jsonl = """
        {"text": "why is the sky blue", "intent": "curiosity", "urgency": "exploratory"}
        {"id": "x", "text": "book a table", "intent": "feelings"}
        {"id": "s", "skip": true}
        {"id": "y", "text": "fix my build", "urgency": "Immediate"}
        """
        let result = try LabellingInput.read(data: Data(jsonl.utf8), name: "m.jsonl", format: .jsonl)
        // A label that is none of the five is set aside, not the message: it is offered without it.
        #expect(result.items.map(\.text) == ["why is the sky blue", "book a table", "fix my build"])
        #expect(result.items[0].hasLabels && result.items[1].intent == nil && result.items[2].urgency == .immediate && result.items[2].intent == nil)
        #expect(result.issues.map(\.description) == ["m.jsonl:2: unknown intent \"feelings\" (expected decision, research, action, curiosity, validation); the message is offered without it"])
        #expect(throws: CorpusIssue.self) { try LabellingInput.read(data: Data("id,message\n1,x\n".utf8), name: "m.csv", format: .csv) }
    }

    /// Least sure first: the order follows the smaller of the two heads' margins, as the
    /// explained classification (what `/intent` shows) gives them.
    @Test func theUncertainOrderFollowsTheModelsMargins() throws {
        let classifier = IntentClassifier()
        let items = Self.messages.map { LabellingItem(id: LabellingInput.textID($0), text: $0) }
        let ordered = LabellingSession.ordered(items, by: .uncertain, classifier: classifier)
        #expect(ordered.count == items.count)
        func margin(_ text: String) -> Double {
            let c = classifier.classify(text, explain: true)
            func headMargin(_ e: HeadExplanation?) -> Double { (e?.chosen.probability ?? 0) - (e?.runnerUp?.probability ?? 0) }
            return min(headMargin(c.intentExplanation), headMargin(c.urgencyExplanation))
        }
        let margins = ordered.map { margin($0.item.text) }
        #expect(margins == margins.sorted(), "\(zip(ordered.map(\.item.text), margins).map { "\($0): \($1)" })")
        for queued in ordered { #expect(abs(queued.guess.margin - margin(queued.item.text)) < 1e-9) }
        #expect(LabellingSession.ordered(items, by: .input, classifier: classifier).map(\.item) == items)
    }

    @Test func theDisagreementOrderKeepsOnlyWhereTheLabelAndTheModelDiffer() throws {
        let classifier = IntentClassifier()
        let agreeing = classifier.classify("book a table for two tonight")
        let items = [
            LabellingItem(id: "a", text: "book a table for two tonight", intent: agreeing.intent, urgency: agreeing.urgency),
            LabellingItem(id: "b", text: "why is the sky blue", intent: .decision, urgency: .planning),
            LabellingItem(id: "c", text: "explain how vaccines train the immune system"),
        ]
        let ordered = LabellingSession.ordered(items, by: .disagreements, classifier: classifier)
        #expect(ordered.map(\.item.id) == ["b"])
    }

    /// Each decision is on disk when it is made; a second session starts after the first's
    /// last decision; undo takes the last line back off the file.
    @Test func labelsAreAppendedAtOnceResumedAndUndone() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("labels.jsonl").path
        let items = Self.messages.map { LabellingItem(id: LabellingInput.textID($0), text: $0) }
        let classifier = IntentClassifier()
        var first: LabellingSession? = LabellingSession(items: items, classifier: classifier, order: .input, file: try LabelFile(path: path))
        try first!.label(intent: .decision, urgency: .planning)
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == 1, "written before the next key")
        try first!.skip()
        try first!.label(intent: .action, urgency: .immediate)
        let undone = try first!.undo()
        #expect(undone?.intent == .action && first!.current?.item.id == items[2].id)
        try first!.label(intent: .action, urgency: .immediate)
        #expect(first!.summary.labelled == 2 && first!.summary.skipped == 1 && first!.summary.left == items.count - 3)
        first = nil
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[1] == "{\"id\": \"\(items[1].id)\", \"skip\": true}")
        let second = LabellingSession(items: items, classifier: classifier, order: .input, file: try LabelFile(path: path))
        #expect(second.alreadyDone == 3 && second.current?.item.id == items[3].id)
        #expect(try second.undo() == nil, "the earlier session's labels are not this one's to take back")
        // The labels file is a corpus: the skip is no message and no mistake.
        let corpus = try CorpusReader(strict: true).read(path: path)
        #expect(corpus.messages.map(\.text) == [items[0].text, items[2].text] && corpus.messages[1].intent == .action)
    }

    @Test func anUnfinishedLastLineIsDroppedAndAForeignFileRefused() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("labels.jsonl").path
        try "{\"id\": \"a\", \"text\": \"x\", \"intent\": \"action\", \"urgency\": \"soon\"}\n{\"id\": \"b\", \"te".write(toFile: path, atomically: true, encoding: .utf8)
        let file = try LabelFile(path: path)
        #expect(file.repairedTail && file.done == ["a"])
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasSuffix("}\n"))
        let other = folder.appendingPathComponent("notes.jsonl").path
        try "{\"note\": \"my shopping list\"}\n".write(toFile: other, atomically: true, encoding: .utf8)
        #expect(throws: CorpusIssue.self) { try LabelFile(path: other) }
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "{\"note\": \"my shopping list\"}\n", "left as it was")
    }

    /// A whole label on the last line without its newline (added by hand in an editor) is a
    /// label: it gets its newline and stays. Only a line cut short is dropped.
    @Test func aWholeLastLineWithoutItsNewlineIsKept() throws {
        let folder = try folder()
        let path = folder.appendingPathComponent("labels.jsonl").path
        let lines = "{\"id\": \"a\", \"text\": \"x\", \"intent\": \"action\", \"urgency\": \"soon\"}\n{\"id\": \"b\", \"text\": \"eta?\", \"intent\": \"action\", \"urgency\": \"soon\"}"
        try lines.write(toFile: path, atomically: true, encoding: .utf8)
        let file = try LabelFile(path: path)
        #expect(!file.repairedTail && file.done == ["a", "b"])
        #expect(try String(contentsOfFile: path, encoding: .utf8) == lines + "\n")
    }

    /// Two sessions on one file would offer the same messages and one's undo would cut the
    /// other's labels off: the second is refused while the first has the file open.
    @Test func aSecondSessionOnTheSameFileIsRefused() throws {
        let folder = try folder()
        let path = folder.appendingPathComponent("labels.jsonl").path
        var first: LabelFile? = try LabelFile(path: path)
        #expect { try LabelFile(path: path) } throws: { "\($0)".contains("is open in another reception label session") }
        first = nil
        #expect(first == nil)
        _ = try LabelFile(path: path)
    }

    /// A child process forked while a session has the file open keeps a copy of its
    /// descriptor until the child's exec (a test that starts a terminal session, or the REPL
    /// starting an engine). The session's end still frees the file: copied here with `dup`.
    @Test func aCopyOfTheDescriptorHeldElsewhereDoesNotKeepTheFileLocked() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("labels.jsonl").path
        var first: LabelFile? = try LabelFile(path: path)
        let copy = try #require(copyOfOpenDescriptor(on: path))
        defer { close(copy) }
        first = nil
        #expect(first == nil)
        _ = try LabelFile(path: path)
    }

    /// A label edited by hand into none of the five ("acton") is named with its line, and its
    /// message comes again; a line that is no JSON says why.
    @Test func anUnknownLabelInTheFileIsNamedAndItsMessageComesAgain() throws {
        let folder = try folder()
        let path = folder.appendingPathComponent("labels.jsonl").path
        try "{\"id\": \"a\", \"text\": \"yes\", \"intent\": \"acton\", \"urgency\": \"soon\"}\n{\"id\": \"b\", \"skip\": true}\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        var file: LabelFile? = try LabelFile(path: path)
        #expect(file!.done == ["b"])
        #expect(file!.issues.map(\.description) == ["\(path):1: unknown intent \"acton\" (expected decision, research, action, curiosity, validation); the message comes again to be labelled"])
        // Labelled again, the mistake is mended: no warning in the sessions after.
        try file!.append(.labelled(LabellingItem(id: "a", text: "yes"), intent: .action, urgency: .soon,
                                   guess: LabellingGuess(IntentClassifier(), text: "yes", goal: nil)))
        file = nil
        #expect(try LabelFile(path: path).issues.isEmpty)
        let broken = folder.appendingPathComponent("broken.jsonl").path
        try "{\"id\": \"a\", \"intent\": research}\n".write(toFile: broken, atomically: true, encoding: .utf8)
        #expect { try LabelFile(path: broken) } throws: { "\($0)".contains("broken.jsonl:1: is not a line of a labels file (malformed JSON: ") }
    }

    /// Two messages under one id (a ticket export's id for a thread) are both labelled: the
    /// second under the id and the hash of its own text, and named with the line of the first
    /// (it was left out). The same text again is one message, on two lines.
    @Test func anIdGivenToTwoMessagesLabelsBothAndNamesTheSecond() throws {
        let csv = "id,text\n1,where is my order\n1,which grinder should i buy\n1,where is my order\n"
        let result = try LabellingInput.read(data: Data(csv.utf8), name: "t.csv", format: .csv)
        let own = "1~" + LabellingInput.textID("which grinder should i buy")
        #expect(result.items.map(\.text) == ["where is my order", "which grinder should i buy"])
        #expect(result.items.map(\.id) == ["1", own])
        #expect(result.items.map(\.lines) == [2, 1] && result.repeats == 1)
        #expect(result.issues.map(\.description) == ["t.csv:3: the id \"1\" was given to another message at line 2; this one is labelled as \"\(own)\" (give each message an id of its own to keep yours)"])
        let reordered = try LabellingInput.read(data: Data("id,text\n1,which grinder should i buy\n1,where is my order\n".utf8), name: "t.csv", format: .csv)
        #expect(reordered.items.map(\.id) == ["1", "1~" + LabellingInput.textID("where is my order")],
                "which message keeps the id goes by the order; the other's id is its text's")
        // Labelled in the first order, then the lines reordered: the label of "1" is of another
        // text, so "which grinder" is not taken for labelled (it was, and never offered).
        let folder = Scratch.root.appendingPathComponent("reception-ids-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = try LabelFile(path: folder.appendingPathComponent("t.labels.jsonl").path)
        try file.append(LabelEntry(id: "1", text: "where is my order", goal: nil, intent: .action, urgency: .immediate, modelIntent: nil, modelUrgency: nil, skipped: false))
        #expect(file.labelled(result.items) == [true, false] && file.labelled(reordered.items) == [false, false])
    }
}

@Suite("Paired comparison", .onTheCPULane)
struct PairedComparisonTests {
    /// Exact two-sided binomial for small counts: 1 against 7 of 8 discordant gives
    /// 2 · (1 + 8) / 256 = 0.0703; none discordant is p = 1.
    @Test func smallCountsUseTheExactBinomial() {
        let head = PairedComparison.test(onlyA: 1, onlyB: 7)
        #expect(head.method == "exact" && abs(head.p - 18.0 / 256.0) < 1e-12)
        #expect(PairedComparison.test(onlyA: 0, onlyB: 0).p == 1)
        #expect(PairedComparison.test(onlyA: 0, onlyB: 6).p < 0.05 && PairedComparison.test(onlyA: 0, onlyB: 5).p > 0.05)
    }

    /// Large counts: chi-square with continuity correction; (|40 − 20| − 1)² / 60 = 6.017,
    /// p = 0.01417 (one degree of freedom).
    @Test func largeCountsUseTheContinuityCorrectedChiSquare() {
        let head = PairedComparison.test(onlyA: 40, onlyB: 20)
        #expect(head.method == "chi-square" && abs(head.p - 0.014171) < 1e-5 && head.isSignificant)
        let fromOutcomes = PairedComparison.head(a: [true, true, false, false, true], b: [false, true, true, false, false])
        #expect(fromOutcomes.onlyA == 2 && fromOutcomes.onlyB == 1)
    }

    /// The p-value as `eval --against` prints it after "p": "p < 0.0001", never "p = < 0.0001".
    @Test func thePValueReadsAfterP() {
        #expect(["p " + ModelComparison.pValue(0.00001), "p " + ModelComparison.pValue(0.0703), "p " + ModelComparison.pValue(0.00412), "p " + ModelComparison.pValue(1)]
                == ["p < 0.0001", "p = 0.070", "p = 0.0041", "p = 1.000"])
    }
}

@Suite("Intent settings and weights files", .onTheCPULane)
struct IntentSettingsTests {
    @Test func settingsExpandPathsAndLocateMistakes() throws {
        let settings = try IntentSettings.parse("{\n  \"weights\": \"~/w/my.json\",\n  \"lexicon\": \"lex.txt\"\n}", path: "/c/reception/intent.json", home: "/home/me")
        #expect(settings.weights == "/home/me/w/my.json" && settings.lexicon == "/c/reception/lex.txt")
        do {
            _ = try IntentSettings.parse("{\n  \"wieghts\": \"x\"\n}", path: "/c/intent.json")
            Issue.record("an unknown key was accepted")
        } catch {
            #expect("\(error)" == "/c/intent.json:2: unknown key \"wieghts\" (the keys are weights, lexicon). Did you mean \"weights\"?")
        }
        #expect(try IntentSettings.load(path: "/nonexistent/intent.json") == IntentSettings())
        // "built-in" is the built-in model, as after --intent-weights, not a file of that name.
        #expect(try IntentSettings.parse("{\"weights\": \"built-in\"}", path: "/c/reception/intent.json").weights == nil)
    }

    /// A weights file cut short, one of another version, or one trained with another lexicon
    /// is refused with where and why; the built-in model classifies instead.
    @Test func aTruncatedForeignOrMismatchedWeightsFileIsRefusedWithItsPlace() throws {
        let folder = Scratch.root.appendingPathComponent("weights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = IntentWeights.shipped.serialized()
        let cut = folder.appendingPathComponent("cut.json")
        try String(whole.prefix(whole.count / 2)).write(to: cut, atomically: true, encoding: .utf8)
        let (classifier, refusal) = IntentClassifier.choosing(weights: cut.path, lexicon: nil)
        #expect(classifier.modelName == IntentClassifier.builtInName)
        let lines = whole.prefix(whole.count / 2).split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(refusal?.hasPrefix("\(cut.path):\(lines):") == true && refusal?.contains("the file ends before its JSON does (cut short?") == true, "\(refusal ?? "")")

        let older = folder.appendingPathComponent("older.json")
        try whole.replacingOccurrences(of: IntentWeights.format, with: "reception-intent-weights/0").write(to: older, atomically: true, encoding: .utf8)
        let olderRefusal = IntentClassifier.choosing(weights: older.path, lexicon: nil).refusal
        #expect(olderRefusal?.hasPrefix("\(older.path):2: written by another version of Reception (format reception-intent-weights/0;") == true, "\(olderRefusal ?? "")")

        var lexiconText = ShippedModelSource.shippedLexiconText
        lexiconText += "\n@cue my-own\nzzq blorp\n"
        let lexicon = folder.appendingPathComponent("lexicon.txt")
        try lexiconText.write(to: lexicon, atomically: true, encoding: .utf8)
        let good = folder.appendingPathComponent("good.json")
        try whole.write(to: good, atomically: true, encoding: .utf8)
        let mismatch = IntentClassifier.choosing(weights: good.path, lexicon: lexicon.path)
        #expect(mismatch.refusal?.contains("trained with another lexicon than the lexicon \(lexicon.path)") == true, "\(mismatch.refusal ?? "")")
        let fine = IntentClassifier.choosing(weights: good.path, lexicon: nil)
        #expect(fine.refusal == nil && fine.classifier.modelName == good.path)

        // A corpus given where the weights go is named for what it is.
        let corpus = folder.appendingPathComponent("mine.jsonl")
        try "{\"text\": \"hi\", \"intent\": \"curiosity\", \"urgency\": \"exploratory\"}\n{\"text\": \"book it\", \"intent\": \"action\", \"urgency\": \"soon\"}\n"
            .write(to: corpus, atomically: true, encoding: .utf8)
        let corpusRefusal = IntentClassifier.choosing(weights: corpus.path, lexicon: nil).refusal
        #expect(corpusRefusal?.hasPrefix("\(corpus.path):2:1: a second JSON object after the first: JSON lines are a corpus") == true, "\(corpusRefusal ?? "")")
    }

    /// A weight of 1e308 is a finite number, but summed with a message's other features it was
    /// infinity, the confidences NaN, and the REPL died turning them into percentages. Such a
    /// file (edited by hand, damaged) is refused at its feature's line; the built-in model
    /// classifies instead.
    @Test func aWeightFarOutsideWhatTrainingWritesIsRefused() throws {
        let folder = Scratch.root.appendingPathComponent("weights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let feature = "cue:action-howto"
        let huge = folder.appendingPathComponent("huge.json")
        let row = "    \"\(feature)\": [" + Array(repeating: "1e308", count: IntentWeights.width).joined(separator: ", ") + "],"
        let text = IntentWeights.shipped.serialized().split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    \"\(feature)\":") ? row : String($0) }.joined(separator: "\n")
        #expect(text.contains(row))
        try text.write(to: huge, atomically: true, encoding: .utf8)
        let line = IntentWeights.line(of: feature, in: text)
        let (classifier, refusal) = IntentClassifier.choosing(weights: huge.path, lexicon: nil)
        #expect(classifier.modelName == IntentClassifier.builtInName)
        #expect(refusal?.hasPrefix("\(huge.path):\(line): feature \"\(feature)\": 1e+308 is out of range") == true, "\(refusal ?? "")")
        let classified = classifier.classify("how do I fix my printer")
        #expect(classified.intentConfidence.isFinite && classified.urgencyConfidence.isFinite)
        // 1e309 reads as infinity: out of range too, not "expected 9 numbers".
        let infinite = folder.appendingPathComponent("infinite.json")
        try text.replacingOccurrences(of: "1e308", with: "1e309").write(to: infinite, atomically: true, encoding: .utf8)
        let infiniteRefusal = IntentClassifier.choosing(weights: infinite.path, lexicon: nil).refusal
        #expect(infiniteRefusal?.contains("feature \"\(feature)\": inf is out of range") == true, "\(infiniteRefusal ?? "")")

        var carried = IntentWeights.shipped.serialized()
        carried = carried.replacingOccurrences(of: "\"previous_turn_weight\": 3", with: "\"previous_turn_weight\": -1e300")
        #expect(carried.contains("-1e300"))
        #expect(throws: LexiconError.self) { _ = try IntentWeights(json: carried) }
    }
}
