import Foundation
import Testing
import ReceptionCore
@testable import ReceptionIntent
import ReceptionTestSupport

@Suite("Human-written text", .onTheCPULane)
struct HumanTextTests {
    func message(_ id: String?, _ intent: IntentType, source: String? = nil) -> LabelledMessage {
        LabelledMessage(id: id, text: "zzq blorp", intent: intent, urgency: .exploratory, source: source)
    }

    @Test func aSelectionKeepsOneSplitPartAndLeavesWholeSourcesOut() {
        let ids = (0..<200).map { "ht-\($0)" }
        let messages = ids.map { message($0, .action, source: Int($0.dropFirst(3))! % 2 == 0 ? "clinc150:balance" : "banking77:card") }
            + [message(nil, .action)]
        let train = TrainingSelection(splits: [.train]).apply(messages)
        #expect(train.allSatisfy { CorpusSplit(id: $0.id!) == .train })
        #expect(train.count > 100 && train.count < 180, "about 70% of 200: \(train.count)")
        let noClinc = TrainingSelection(excludedSources: ["clinc150"]).apply(messages)
        #expect(noClinc.count == 101 && !noClinc.contains { $0.source?.hasPrefix("clinc150") == true })
        #expect(TrainingSelection(excludedSources: ["banking77:card"]).apply(messages).count == 101)
        #expect(TrainingSelection(excludedSources: ["banking"]).apply(messages).count == 201, "a dataset is matched whole, not by prefix")
    }

    /// The same text labelled two ways: the label of the side that weighs more wins.
    @Test func aMessageWithASourceCountsSourceWeightTimes() {
        let examples = (0..<3).map { message("p-\($0)", .action) } + (0..<2).map { message("h-\($0)", .curiosity, source: "x:y") }
        var options = TrainingOptions()
        options.balance = 0
        options.folds = 0
        options.maxIterations = 100
        func predicted(_ weight: Double) -> IntentType {
            options.sourceWeight = weight
            let weights = Trainer.train(examples, lexicon: .shipped, options: options)
            return IntentClassifier(lexicon: .shipped, weights: weights).classify("zzq blorp").intent
        }
        #expect(predicted(1) == .action)
        #expect(predicted(3) == .curiosity)
    }

    /// Examples from the guidelines' section "Short messages people actually type" (the
    /// guidelines' own words, not corpus data). Its claim questions ("does cold weather give you
    /// a cold") are still read as `curiosity`: see docs/intent-human-text.md.
    @Test(arguments: [
        ("best note taking app for uni", IntentType.decision, UrgencyLevel.exploratory),
        ("something like dropbox but cheaper", .decision, .exploratory),
        ("can you move my dentist appointment", .action, .exploratory),
        ("add milk to my shopping list", .action, .exploratory),
        ("my phone won't turn on after the update", .action, .immediate),
        ("when does the last train leave", .curiosity, .immediate),
        ("what papers do i need to rent a car abroad", .action, .planning),
        ("take me to the airport", .action, .immediate),
    ])
    func theGuidelinesShortMessagesAreReadByTheirConventions(text: String, intent: IntentType, urgency: UrgencyLevel) {
        let c = IntentClassifier().classify(text)
        #expect(c.intent == intent && c.urgency == urgency, "\(text): \(c.intent) \(c.urgency)")
    }

    /// The random held-out part of both human-written batches (never trained on, never tuned
    /// on): the figures the shipped model reached (intent 0.789, urgency 0.860; ECE 0.044 /
    /// 0.029 on 563 messages) less a margin, and calibrated confidences.
    @Test(.needsShared(humanCorpusFolder)) func theHumanHeldOutPartKeepsItsFigures() throws {
        let report = EvaluationReport.evaluate(try humanBoth(TrainingSelection(splits: [.test])), classifier: IntentClassifier())
        #expect(report.count == 563)
        #expect(report.intent.accuracy >= 0.78, "intent accuracy \(report.intent.accuracy)")
        #expect(report.urgency.accuracy >= 0.85, "urgency accuracy \(report.urgency.accuracy)")
        #expect(report.intent.ece <= 0.05 && report.urgency.ece <= 0.05, "ECE \(report.intent.ece), \(report.urgency.ece)")
    }

    /// The adjudication lives in the project as ids and labels only; its texts and sources come
    /// from the third-party file, and it never labels a message of the held-out parts.
    @Test(.needsShared(humanCorpusFolder)) func theAdjudicationIsIdsAndLabelsJoinedToTheSharedTexts() throws {
        let lines = try String(contentsOf: humanAdjudicated, encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 300)
        #expect(!lines.contains { $0.contains("\"text\"") })
        let messages = try adjudicated()
        #expect(messages.count == lines.count)
        #expect(messages.allSatisfy { $0.source != nil && !$0.text.isEmpty && CorpusSplit(id: $0.id!) == .train })
        let agreed = Set(try human().compactMap(\.id))
        #expect(!messages.contains { agreed.contains($0.id!) }, "only messages the annotators disagreed on")
    }

    @Test func aLabelLineWithoutItsMessageOrWithATextIsALocatedIssue() throws {
        let directory = Scratch.root.appendingPathComponent("labels-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let texts = directory.appendingPathComponent("messages.jsonl"), labels = directory.appendingPathComponent("labels.jsonl")
        try """
        {"id": "m1", "text": "my card was declined", "source": "demo:cards"}
        {"id": "m2", "text": "best app for notes", "source": "demo:apps"}
        """.write(to: texts, atomically: true, encoding: .utf8)
        try """
        {"id": "m1", "intent": "action", "urgency": "immediate"}
        {"id": "m9", "intent": "action", "urgency": "immediate"}
        {"id": "m2", "text": "copied", "intent": "decision", "urgency": "exploratory"}
        {"id": "m2", "intent": "choice", "urgency": "exploratory"}
        {"id": "m2", "skip": true}
        """.write(to: labels, atomically: true, encoding: .utf8)
        let result = try CorpusReader().read(labels: labels.path, texts: texts.path)
        #expect(result.messages.map(\.text) == ["my card was declined"])
        #expect(result.messages.first?.source == "demo:cards" && result.messages.first?.intent == .action)
        #expect(result.issues.map(\.line) == [2, 3, 4], "a skip line is no label, and no mistake")
        #expect(result.issues[0].description.hasPrefix("\(labels.path):2: no message \"m9\""))
        #expect(throws: CorpusIssue.self) { try CorpusReader(strict: true).read(labels: labels.path, texts: texts.path) }
    }

    /// Two annotators' passes: a message they label alike is one line, as in the agreed file; one
    /// they label differently is a line per label with half the message each; one a pass skipped
    /// or never reached is left out; a pass labelling an id twice is an issue at its line.
    @Test func twoPassesGiveOneLineWhereTheyAgreeAndAShareOfTheMessageEachWhereTheyDiffer() throws {
        let directory = Scratch.root.appendingPathComponent("passes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let texts = directory.appendingPathComponent("messages.jsonl")
        let a = directory.appendingPathComponent("labels_a.jsonl"), b = directory.appendingPathComponent("labels_b.jsonl")
        try """
        {"id": "m1", "text": "my card was declined", "source": "demo:cards"}
        {"id": "m2", "text": "my card was declined again just now", "source": "demo:cards"}
        {"id": "m3", "text": "best app for notes", "source": "demo:apps"}
        {"id": "m4", "text": "is coffee bad for you", "source": "demo:claims"}
        """.write(to: texts, atomically: true, encoding: .utf8)
        try """
        {"id": "m1", "intent": "action", "urgency": "immediate"}
        {"id": "m2", "intent": "action", "urgency": "immediate"}
        {"id": "m3", "skip": true}
        {"id": "m4", "intent": "validation", "urgency": "exploratory"}
        {"id": "m1", "intent": "curiosity", "urgency": "exploratory"}
        """.write(to: a, atomically: true, encoding: .utf8)
        try """
        {"id": "m2", "intent": "action", "urgency": "soon"}
        {"id": "m1", "intent": "action", "urgency": "immediate"}
        {"id": "m3", "intent": "decision", "urgency": "exploratory"}
        {"id": "m9", "intent": "decision", "urgency": "exploratory"}
        """.write(to: b, atomically: true, encoding: .utf8)
        let result = try CorpusReader().read(passes: [a.path, b.path], texts: texts.path)
        let lines = result.messages.map { "\($0.id!) \($0.intent) \($0.urgency) \($0.share.map { "\($0)" } ?? "whole") \($0.source!)" }
        #expect(lines == ["m1 action immediate whole demo:cards", "m2 action immediate 0.5 demo:cards", "m2 action soon 0.5 demo:cards"])
        #expect(result.repeatedIDs.isEmpty, "a disagreement's lines share their id on purpose")
        #expect(result.issues.map(\.description) == ["\(a.path):5: the id \"m1\" was already labelled at line 1; one label per message in a pass",
                                                     "\(b.path):4: no message \"m9\" in \(texts.path)"])
        // What was left out on purpose is said, so that a pass cut short is no silent loss.
        #expect(result.notes == ["\(texts.path): left out 1 message an annotator skipped (a message trains when every pass labels it)",
                                 "\(b.path): left out 1 message of \(texts.path) this pass has no label for (a message trains when every pass labels it)"])
        #expect(throws: CorpusIssue.self) { try CorpusReader(strict: true).read(passes: [a.path, b.path], texts: texts.path) }
    }

    /// Messages whose annotators agreed on the intent and split on the urgency, read from their
    /// passes: their words teach the intent (an agreed-only corpus drops them and knows nothing of
    /// those words), and the urgency is learned as the split it is.
    @Test func aMessageTheAnnotatorsSplitOnStillTeachesTheHeadTheyAgreedOn() throws {
        let directory = Scratch.root.appendingPathComponent("passes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var texts = "", a = "", b = ""
        for i in 0..<6 {
            texts += "{\"id\": \"s-\(i)\", \"text\": \"zorp frobnicate \(i)\", \"source\": \"x:y\"}\n"
            texts += "{\"id\": \"c-\(i)\", \"text\": \"glim glam \(i)\", \"source\": \"x:y\"}\n"
            a += "{\"id\": \"s-\(i)\", \"intent\": \"action\", \"urgency\": \"immediate\"}\n{\"id\": \"c-\(i)\", \"intent\": \"curiosity\", \"urgency\": \"soon\"}\n"
            b += "{\"id\": \"s-\(i)\", \"intent\": \"action\", \"urgency\": \"exploratory\"}\n{\"id\": \"c-\(i)\", \"intent\": \"curiosity\", \"urgency\": \"soon\"}\n"
        }
        let paths = ["messages", "labels_a", "labels_b"].map { directory.appendingPathComponent("\($0).jsonl").path }
        for (path, text) in zip(paths, [texts, a, b]) { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        let examples = try CorpusReader(strict: true).read(passes: [paths[1], paths[2]], texts: paths[0]).messages
        var options = TrainingOptions()
        options.folds = 0
        options.maxIterations = 200
        let classifier = IntentClassifier(lexicon: .shipped, weights: Trainer.train(examples, lexicon: .shipped, options: options))
        let split = classifier.classify("zorp frobnicate")
        #expect(split.intent == .action && split.intentConfidence > 0.6, "\(split.intent) \(split.intentConfidence)")
        #expect(split.urgency != .soon && split.urgencyConfidence < 0.6, "the urgency is the split: \(split.urgency) \(split.urgencyConfidence)")
        #expect(classifier.classify("glim glam").intent == .curiosity)
    }

    /// One message two annotators labelled differently, as `read(passes:texts:)` gives it: a
    /// line per intent, half the message each.
    func splitLines(id: String, text: String, _ intents: [IntentType]) -> [LabelledMessage] {
        intents.map { intent in
            var line = LabelledMessage(id: id, text: text, intent: intent, urgency: .exploratory, source: "x:y")
            line.share = 0.5
            return line
        }
    }

    /// A message split between two labels weighs as one message, half to each label: against
    /// the same text labelled once (weight 1), that one label wins over each half (0.75 of the
    /// source weight 1.5); were each line a whole message (1.5), each of the two would outweigh it.
    @Test func aMessageSplitBetweenLabelsWeighsAsOneMessage() {
        var examples = [LabelledMessage(id: "w", text: "zzq blorp", intent: .curiosity, urgency: .exploratory, source: "x:y")]
        examples[0].weight = 1
        examples += splitLines(id: "s", text: "zzq blorp", [.action, .decision])
        var options = TrainingOptions()
        options.balance = 0
        options.folds = 0
        options.maxIterations = 100
        let weights = Trainer.train(examples, lexicon: .shipped, options: options)
        #expect(IntentClassifier(lexicon: .shipped, weights: weights).classify("zzq blorp").intent == .curiosity)
    }

    /// A disagreement's lines are one message for the vocabulary: a word only it holds is seen in
    /// one message, and `minWordCount` 2 does not make it a feature.
    @Test func aDisagreementsLinesCountOnceForTheVocabulary() {
        let examples = (0..<4).map { LabelledMessage(id: "c-\($0)", text: "glim glam", intent: .curiosity, urgency: .exploratory, source: "x:y") }
            + splitLines(id: "s-1", text: "quuxly frobnicate", [.action, .decision])
        var options = TrainingOptions()
        options.folds = 0
        options.maxIterations = 50
        let features = Trainer.train(examples, lexicon: .shipped, options: options).features.keys
        #expect(features.contains("word:\"glim\""))
        #expect(!features.contains("word:\"quuxly\""), "one message's word, though on two lines")
    }

    @Test(.needsShared(humanCorpusFolder)) func theHumanCorpusIsReadWithItsSources() throws {
        let all = try human()
        #expect(all.count >= 2_500)
        #expect(all.allSatisfy { $0.source != nil && $0.id?.hasPrefix("ht-") == true })
        let datasets = Set(all.compactMap { $0.source?.split(separator: ":").first.map(String.init) })
        #expect(datasets == ["reddit-top-2013", "clinc150", "braun2017", "banking77"])
        let second = try humanBoth().filter { $0.id?.hasPrefix("ht2-") == true }
        #expect(second.count >= 1_100)
        #expect(Set(second.compactMap { $0.source?.split(separator: ":").first.map(String.init) }) == ["reddit-top-2013", "skeptics.se", "banking77"])
    }
}
