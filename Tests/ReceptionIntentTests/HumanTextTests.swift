import Foundation
import Testing
import ReceptionCore
@testable import ReceptionIntent

@Suite("Human-written text")
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

    @Test func theHumanCorpusIsReadWithItsSources() throws {
        let all = try human()
        #expect(all.count >= 2_500)
        #expect(all.allSatisfy { $0.source != nil && $0.id?.hasPrefix("ht-") == true })
        let datasets = Set(all.compactMap { $0.source?.split(separator: ":").first.map(String.init) })
        #expect(datasets == ["reddit-top-2013", "clinc150", "braun2017", "banking77"])
    }
}
