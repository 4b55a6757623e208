import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionIntent

/// The repository root, from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func features(_ c: IntentClassification) -> Set<String> {
    var names: Set<String> = []
    for head in [c.intentExplanation, c.urgencyExplanation].compactMap({ $0 }) {
        for score in [head.chosen, head.runnerUp].compactMap({ $0 }) { names.formUnion(score.contributions.map(\.feature)) }
    }
    return names
}

@Suite("Intent classifier", .onTheCPULane)
struct IntentClassifierTests {
    let classifier = IntentClassifier()

    func active(_ text: String, goal: String? = nil) -> Set<String> {
        Set(classifier.extractor.features(text, goal: goal).map { classifier.extractor.name(of: Int($0)) })
    }

    @Test func cuesMatchWholeWordsOnly() {
        #expect(!active("paint a canvas for the hallway").contains("phrase:\"vs\""))
        #expect(active("canvas vs leather for the hallway").contains("phrase:\"vs\""))
        #expect(!active("a nowhere town").contains("phrase:\"now\""))
        #expect(active("i need it now").contains("phrase:\"now\""))
    }

    /// The structural and time passes visit the positions the first pass marked, in a 64-bit
    /// mask; a longer message is visited whole, so what comes after its 64th word still counts.
    @Test func timeAndStructureAfterTheSixtyFourthWordCount() {
        let tail = "should i leave friday or saturday? the train is leaving in 20 minutes at 3pm"
        let long = Array(repeating: "la", count: 70).joined(separator: " ") + ". " + tail
        #expect(classifier.extractor.tokenCount(long) > 80)
        let expected: Set<String> = ["time:weekday", "time:in-n-minutes", "time:clock", "struct:either-or",
                                     "struct:progressive", "struct:multi-sentence"]
        #expect(expected.isSubset(of: active(tail).union(["struct:multi-sentence"])))
        #expect(expected.isSubset(of: active(long)), "\(expected.subtracting(active(long)))")
        #expect(!active(long).contains("time:none"))
    }

    @Test func splitsWordsAsDocumented() {
        let words = classifier.extractor.words
        #expect(words("3pm on the 15th") == ["3", "pm", "on", "the", "15", "th"])
        #expect(words("rock'n'roll, 'quoted'") == ["rock'n'roll", "quoted"])
        #expect(words("it's john's") == ["it", "is", "john"])
        #expect(words("isn't") == ["is", "not"])
        #expect(words("a-b/c  d") == ["a", "b", "c", "d"])
        #expect(words("CAFÉ Naïve") == ["cafe", "naive"])
        #expect(words("") == [])
        #expect(words("?!...") == [])
        // Words over several eight-byte chunks and across the 64-byte mark.
        let long = String(repeating: "x", count: 62) + "'s stuff"
        #expect(words(long) == [String(repeating: "x", count: 62), "stuff"])
    }

    /// The scanner finds words and hashes them eight bytes at a time; the lexicon's words are
    /// hashed by `tokenHash`. A word cut or hashed differently would silently never match: both
    /// are checked against a byte-at-a-time reading of the same rules.
    @Test func theScannerSplitsAndHashesLikeTheByteAtATimeRules() {
        var texts: [String] = []
        for length in 1...26 {
            let word = String("AbcdefghijKlmnopqrstuvWxyz".prefix(length))
            texts.append("\(word) \(word)'s \(word)'\(word) \(String(repeating: "9", count: length))\(word)")
            texts.append(String(repeating: " ", count: length % 9) + "\(word)-x, '\(word)' \(word)'")
        }
        texts.append("naïve café ÜBER straße")
        for text in texts {
            let bytes = Array(text.utf8)
            var scanned: [(word: [UInt8], hash: UInt64)] = []
            bytes.withUnsafeBufferPointer { buffer in
                _ = RawTokenizer.scan(buffer) { start, end, _, _, hash, _, _ in
                    let word = bytes[start..<end].map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
                    scanned.append((word, hash))
                }
            }
            #expect(scanned.map(\.word) == Self.referenceWords(bytes), "\(text)")
            for (word, hash) in scanned {
                #expect(hash == tokenHash(word), "\(String(decoding: word, as: UTF8.self)) in \(text)")
            }
        }
    }

    /// Words one byte at a time: runs of letters (any non-ASCII byte is one), or of digits; an
    /// apostrophe between a letter and a letter belongs to the word. Lowercased.
    static func referenceWords(_ bytes: [UInt8]) -> [[UInt8]] {
        func letter(_ i: Int) -> Bool {
            guard i < bytes.count else { return false }
            let b = bytes[i]
            return b >= 0x80 || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7a)
        }
        func digit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        var words: [[UInt8]] = [], i = 0
        while i < bytes.count {
            let start = i
            if letter(i) {
                while letter(i) || (i < bytes.count && bytes[i] == 0x27 && letter(i + 1)) { i += 1 }
            } else if digit(i) {
                while digit(i) { i += 1 }
            } else {
                i += 1
                continue
            }
            words.append(bytes[start..<i].map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 })
        }
        return words
    }

    @Test func normalisesCaseApostrophesContractionsAndTypos() {
        let plain = active("should i take the train or fly")
        #expect(plain.contains("phrase:\"should i\""))
        #expect(active("SHOUD I take the train or fly").contains("phrase:\"should i\""))
        #expect(active("What’s the capital of Peru").contains("phrase:\"what is the\""))
        #expect(active("whats the capital of peru").contains("phrase:\"what is the\""))
        #expect(active("I'm pretty sure it's fine, right?").contains("phrase:\"i am pretty sure\""))
        #expect(active("hwo do i unjam the printer").contains("phrase:\"how do i\""))
        #expect(active("Café: how do I get there ASAP").contains("phrase:\"as soon as possible\""))
    }

    @Test func structuralFeatures() {
        #expect(active("should I take the train or fly?").isSuperset(of: ["struct:either-or", "struct:either-or+first-person", "struct:question-mark"]))
        #expect(!active("should I go or not").contains("struct:either-or"))
        #expect(active("should I go or not").contains("struct:or-not"))
        #expect(active("please write a cover letter for me").contains("struct:imperative"))
        #expect(active("could you please draft a reply").isSuperset(of: ["struct:polite-request", "struct:imperative"]))
        #expect(active("I think the moon landing was in 1969, right?").isSuperset(of: ["cue:claim-belief", "struct:tag-question"]))
        #expect(active("my friend says bulls hate red").contains("cue:claim-other"))
        #expect(active("I'm standing in the store comparing two drills").contains("struct:first-person-progressive"))
    }

    /// The feature rules read word classes through literal bit constants (no lazy globals in the
    /// hot path); the extractor sets bit k for `Lexicon.requiredClasses[k]`. Reordering or
    /// renaming a class without its constant would silently change every feature that reads it.
    @Test func classBitConstantsFollowTheRequiredClassesOrder() {
        let constants: [(String, UInt32)] = [
            ("negator", ExtractorTables.cNegator), ("first-person", ExtractorTables.cFirstPerson),
            ("opener", ExtractorTables.cOpener), ("imperative-verb", ExtractorTables.cImperative),
            ("request-prefix", ExtractorTables.cRequestPrefix), ("tag-word", ExtractorTables.cTag),
            ("number-word", ExtractorTables.cNumberWord), ("unit-minute", ExtractorTables.cMinute),
            ("unit-hour", ExtractorTables.cHour), ("unit-day", ExtractorTables.cDay), ("unit-week", ExtractorTables.cWeek),
            ("clock-suffix", ExtractorTables.cClockSuffix), ("ordinal-suffix", ExtractorTables.cOrdinal),
            ("weekday", ExtractorTables.cWeekday), ("month", ExtractorTables.cMonth),
            ("month-ambiguous", ExtractorTables.cMonthAmbiguous), ("month-preposition", ExtractorTables.cMonthPreposition),
            ("be-verb", ExtractorTables.cBe), ("or-word", ExtractorTables.cOr), ("or-tail", ExtractorTables.cOrTail),
            ("wh-word", ExtractorTables.cWh), ("aux-verb", ExtractorTables.cAux),
            ("request-modal", ExtractorTables.cRequestModal), ("addressee", ExtractorTables.cAddressee),
            ("next-word", ExtractorTables.cNext), ("in-word", ExtractorTables.cIn), ("just-word", ExtractorTables.cJust),
            ("ago-word", ExtractorTables.cAgo), ("clock-preposition", ExtractorTables.cClockPreposition),
            ("clock-follow", ExtractorTables.cClockFollow), ("chat-ending", ExtractorTables.cChatEnding),
        ]
        #expect(constants.map(\.0) == Lexicon.requiredClasses)
        for (name, bit) in constants {
            #expect(Lexicon.requiredClasses.firstIndex(of: name).map { UInt32(1) << UInt32($0) } == bit, "\(name)")
        }
        // And the table the rules read holds those bits: a word of each class carries its bit.
        let tables = IntentClassifier().extractor.tables
        for (name, bit) in constants {
            guard let word = Lexicon.shipped.words(of: name).first(where: { !$0.contains(" ") }) else { continue }
            #expect(tables.table.info(at: tables.table.slot(tokenHash(word))).classes & bit != 0, "\(name): \(word)")
        }
    }

    @Test func negationTurnsACueIntoItsNegatedFeature() {
        let negated = active("i don't want to decide anything, just book the cheapest flight")
        #expect(negated.contains("neg:choice-verb"))
        #expect(!negated.contains("cue:choice-verb"))
        #expect(active("help me decide on a flight").contains("cue:choice-verb"))
        // The scope: up to three tokens after the negator, not across a comma or a full stop,
        // except one right after the negator.
        #expect(active("not, decide for me").contains("neg:choice-verb"))
        #expect(active("never really wanted to decide").contains("cue:choice-verb"))
        #expect(active("not now, decide for me").contains("cue:choice-verb"))
        #expect(!active("not now, decide for me").contains("neg:choice-verb"))
        #expect(active("not now. decide for me").contains("cue:choice-verb"))
    }

    @Test func plainAndExplainedClassificationsAgree() throws {
        // `classify` takes a leaner path than `classify(explain: true)` and `probabilities`:
        // the labels and confidences must be the same, to the last bit.
        let messages = try CorpusReader().read(path: repositoryRoot.appendingPathComponent("Tests/Corpora/test.jsonl").path).messages
        let previous = ConversationTurn(query: "should I buy the red or the green jacket right now?", intent: .decision, urgency: .immediate)
        var checked = 0
        for message in messages.prefix(400) {
            for (goal, turn) in [(nil, nil), ("pick a laptop before friday", previous)] as [(String?, ConversationTurn?)] {
                let plain = classifier.classify(message.text, goal: goal, previous: turn)
                let explained = classifier.classify(message.text, goal: goal, previous: turn, explain: true)
                #expect(plain.intent == explained.intent && plain.urgency == explained.urgency, "\(message.text)")
                #expect(plain.intentConfidence == explained.intentConfidence && plain.urgencyConfidence == explained.urgencyConfidence, "\(message.text)")
                if turn == nil {
                    let p = classifier.probabilities(message.text, goal: goal)
                    #expect(p.intent.max() == plain.intentConfidence && p.urgency.max() == plain.urgencyConfidence, "\(message.text)")
                }
                checked += 1
            }
        }
        #expect(checked == 800)
    }

    @Test func timeExpressions() {
        #expect(active("the demo starts in 20 minutes").contains("time:in-n-minutes"))
        #expect(active("we leave the hut in 20").contains("time:in-n-bare"))
        #expect(active("meeting on Friday").contains("time:weekday"))
        #expect(active("see you next friday").contains("time:next-weekday"))
        #expect(active("the wedding is in June").contains("time:month"))
        #expect(active("the wedding is in may").contains("time:month"))
        #expect(!active("may I ask a question").contains("time:month"))
        #expect(active("dinner at 7").contains("time:clock"))
        #expect(active("call at 3pm").contains("time:clock"))
        #expect(active("due on the 15th").contains("time:ordinal-date"))
        #expect(active("due 12/3").contains("time:numeric-date"))
        #expect(active("how tall is everest").contains("time:none"))
        #expect(!active("how tall is everest, asking for tomorrow").contains("time:none"))
    }

    /// The guidelines' `immediate` is "within the hour": an hour away is no longer "today".
    @Test func anHourAwayIsImmediate() {
        for text in ["check my essay, I submit it in an hour", "I need this within the hour"] {
            #expect(classifier.classify(text).urgency == .immediate, "\(text)")
            #expect(active(text).contains("cue:time-now") && !active(text).contains("cue:time-today"), "\(text)")
        }
        #expect(classifier.classify("the meeting is in two hours, what should I prepare").urgency == .soon)
    }

    /// Two spellings the tokenizer reads alike ("tonight", and "tonight's" without its 's)
    /// are one phrase: one feature, named as the first is listed, never a spelling the
    /// message does not have.
    @Test func spellingsThatReadAlikeAreOnePhrase() throws {
        let names = classifier.extractor.featureNames("book a table for 2 tonight")
        #expect(names.contains("phrase:\"tonight\"") && !names.contains("phrase:\"tonight's\""), "\(names)")
        // In one new family, listed the other way round: the first spelling names the phrase.
        let lexicon = try Lexicon(text: ShippedModel.lexicon + "\n@cue zz-evening\nzorbnight's | zorbnight\n")
        let cues = FeatureExtractor(lexicon: lexicon).featureNames("dinner zorbnight").filter { $0.contains("zorbnight") || $0 == "cue:zz-evening" }
        #expect(cues == ["cue:zz-evening", "phrase:\"zorbnight's\""], "\(cues)")
    }

    @Test func classifiesTheGuidelineExamples() {
        let cases: [(String, IntentType, UrgencyLevel)] = [
            ("should i take the train or fly to seattle next month", .decision, .planning),
            ("explain how the immune system fights a virus, in depth", .research, .exploratory),
            ("write a cover letter for a barista job, applying tomorrow", .action, .soon),
            ("why is the sky blue", .curiosity, .exploratory),
            ("is it true that goldfish have a three second memory?", .validation, .exploratory),
            ("my build is failing and the demo starts in 10 minutes, how do i fix a missing module error", .action, .immediate),
        ]
        for (text, intent, urgency) in cases {
            let c = classifier.classify(text)
            #expect(c.intent == intent, "\(text): \(c.intent)")
            #expect(c.urgency == urgency, "\(text): \(c.urgency)")
            #expect(c.intentConfidence > 0 && c.intentConfidence <= 1)
            #expect(c.urgencyConfidence > 0 && c.urgencyConfidence <= 1)
        }
    }

    @Test func explainsTheChoiceAndTheRunnerUp() throws {
        #expect(classifier.classify("should I take the train or fly to Seattle next month?").intentExplanation == nil,
                "explanations are built only on request")
        let c = classifier.classify("should I take the train or fly to Seattle next month?", explain: true)
        #expect(c.intent == classifier.classify("should I take the train or fly to Seattle next month?").intent)
        let intent = try #require(c.intentExplanation)
        #expect(intent.chosen.label == "decision")
        let runnerUp = try #require(intent.runnerUp)
        #expect(runnerUp.label != "decision")
        #expect(runnerUp.probability < intent.chosen.probability)
        let names = intent.chosen.contributions.map(\.feature)
        // "should i" is named, as the lexicon's phrase or as the learned word pair (which of the
        // two weighs more depends on the training data, not on what a reader needs to see).
        let shouldI = ["phrase:\"should i\"", "word:\"should i\""]
        #expect(names.contains { shouldI.contains($0) }, "\(names)")
        #expect(names.contains("struct:either-or"))
        let magnitudes = intent.chosen.contributions.filter { !$0.feature.hasPrefix("other features") }.map { abs($0.weight) }
        #expect(magnitudes == magnitudes.sorted(by: >))
        let urgency = try #require(c.urgencyExplanation)
        #expect(urgency.chosen.label == "planning")
        #expect(urgency.chosen.contributions.contains { $0.feature == "cue:time-later-period" })
        let text = ReportText.classification("q", c, explain: true)
        #expect(text.contains("runner-up"))
        #expect(shouldI.contains { text.contains($0) })
    }

    /// `classify` echoes the message: its escape sequences are not, and a pasted 200 KB line is
    /// shown clipped on one line.
    @Test func theEchoedMessageIsCleanedAndClipped() {
        let hostile = "hi \u{1B}]0;pwned\u{07} \u{1B}[2J there\nsecond line"
        let line = ReportText.classification(hostile, classifier.classify(hostile), explain: false)
        #expect(!line.contains("\u{1B}") && !line.contains("\u{07}"), "\(line.debugDescription)")
        #expect(line.contains("hi") && line.contains("there second line"), "\(line)")
        let long = String(repeating: "why is the sky blue ", count: 10_000)
        let clipped = ReportText.classification(long, classifier.classify(long), explain: false)
        #expect(clipped.count < 400 && clipped.hasSuffix("…\n"), "\(clipped.count) characters")
    }

    /// `classify --features`: every feature the message turns on, weighted or not, by name,
    /// and the JSON line carries them only when asked (what scripts/intent-replica.py reads).
    @Test func listsEveryActiveFeatureByName() throws {
        let text = "should I take the train or fly to Seattle next month?"
        let names = classifier.extractor.featureNames(text)
        #expect(names.count == classifier.extractor.features(text).count)
        #expect(names.contains("struct:either-or") && names.contains("cue:time-later-period"), "\(names)")
        #expect(Set(names).count == names.count, "each feature once")
        let c = classifier.classify(text)
        let plain = try JSONSerialization.jsonObject(with: Data(try c.jsonLine(text: text).utf8)) as? [String: Any]
        #expect(plain?["features"] == nil)
        let listed = try JSONSerialization.jsonObject(with: Data(try c.jsonLine(text: text, features: names).utf8)) as? [String: Any]
        #expect(listed?["features"] as? [String] == names)
        #expect(classifier.extractor.featureNames(text, goal: "schedule the quarterly review meeting").contains { $0.hasPrefix("goal:") }, "the goal's features too")
    }

    @Test func thePreviousTurnCarriesOverToAShortFollowUp() {
        let alone = classifier.classify("and the blue one?", explain: true)
        let previous = ConversationTurn(query: "should I buy the red or the green jacket right now?", intent: .decision, urgency: .immediate)
        let followUp = classifier.classify("and the blue one?", previous: previous, explain: true)
        #expect(followUp.intent == .decision)
        #expect(followUp.urgency == .immediate)
        #expect(features(followUp).contains("context:previous-turn"))
        #expect(!features(alone).contains("context:previous-turn"))
        // A long, self-contained message is not pulled along.
        let long = classifier.classify("explain in depth how the federal reserve sets interest rates and what the evidence says about inflation", previous: previous)
        #expect(long.intent == .research)
    }

    /// A short message that stands on its own is read by its own words, not as the last
    /// turn's kind: the prior outweighed them ("what can you do?" after a how-to came back
    /// `action`, "why is the sky blue" after a booking `immediate`).
    @Test func aShortNewQuestionIsNotAFollowUp() {
        let howTo = ConversationTurn(query: "how do I write my own soul?", intent: .action, urgency: .exploratory)
        let booking = ConversationTurn(query: "book a flight to oslo now", intent: .action, urgency: .immediate)
        for (text, previous) in [("what can you do?", howTo), ("why is the sky blue", booking), ("good morning", howTo)] {
            let classified = classifier.classify(text, previous: previous, explain: true)
            #expect(!features(classified).contains("context:previous-turn"), "\(text)")
            #expect(classified == classifier.classify(text, explain: true), "\(text): as if alone")
        }
        for text in ["is that true?", "compare them", "what about the night boat", "or the red one", "and tomorrow?"] {
            #expect(features(classifier.classify(text, previous: booking, explain: true)).contains("context:previous-turn"), "\(text)")
        }
    }

    @Test func theGoalIsAFeature() {
        #expect(active("set it for the 15th", goal: "schedule the quarterly review meeting").contains("goal:present"))
        #expect(!active("set it for the 15th").contains("goal:present"))
    }

    @Test func aUserLexiconPhraseTakesItsFamilysWeight() throws {
        let directory = Scratch.root.appendingPathComponent("reception-lexicon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("lexicon.txt")
        try (ShippedModel.lexicon + "\n@cue check-truth\nzorblat check\n").write(to: file, atomically: true, encoding: .utf8)
        let custom = try IntentClassifier(lexiconURL: file, weightsURL: nil)
        let c = custom.classify("zorblat check: the great wall is visible from space", explain: true)
        #expect(features(c).contains("cue:check-truth"))
        #expect(c.intent == .validation)
    }

    @Test func aLexiconBeyondTheTablesLimitsIsAnErrorNotACrash() throws {
        let rewrites = (0...Lexicon.maximumRewrites).map { "w\($0) = word" }.joined(separator: "\n")
        #expect(throws: LexiconError(source: "huge.txt", line: Lexicon.maximumRewrites + 2,
                                     message: "more than \(Lexicon.maximumRewrites) rewrites")) {
            try Lexicon(text: "@rewrite\n" + rewrites + "\n", source: "huge.txt")
        }
        // One phrase in many families would overflow its trie node's entries.
        let families = (0...Lexicon.maximumFamiliesPerPhrase).map { "@cue family\($0)\nsure thing" }.joined(separator: "\n")
        #expect(throws: LexiconError(source: "wide.txt", line: 2 * Lexicon.maximumFamiliesPerPhrase + 2,
                                     message: "'sure thing' is in more than \(Lexicon.maximumFamiliesPerPhrase) cue families")) {
            try Lexicon(text: families + "\n", source: "wide.txt")
        }
        // The same phrase listed many times in one family is one trie entry (300 would not fit
        // a node), and classifies as if listed once.
        let once = try Lexicon(text: ShippedModel.lexicon + "\n@cue choice-verb\nzorblat between\n", source: "once.txt")
        let repeated = try Lexicon(text: ShippedModel.lexicon + "\n@cue choice-verb\n"
                                   + Array(repeating: "zorblat between", count: 300).joined(separator: "\n") + "\n", source: "repeated.txt")
        let message = "zorblat between the blue one and the red one"
        let fromRepeated = IntentClassifier(lexicon: repeated, weights: .shipped)
        #expect(fromRepeated.classify(message) == IntentClassifier(lexicon: once, weights: .shipped).classify(message))
        #expect(fromRepeated.extractor.features(message).contains(Int32(fromRepeated.extractor.id(of: "cue:choice-verb")!)))
    }

    @Test func aBrokenLexiconOrWeightsFileIsReportedWithItsLocation() throws {
        #expect(throws: LexiconError(source: "mine.txt", line: 3, message: "unknown section header '@bogus x' (expected '@rewrite', '@class NAME' or '@cue NAME')")) {
            try Lexicon(text: "# comment\n@rewrite\n@bogus x\n", source: "mine.txt")
        }
        #expect(throws: LexiconError(source: "mine.txt", line: 1, message: "text before any '@rewrite', '@class' or '@cue' header")) {
            try Lexicon(text: "should i\n", source: "mine.txt")
        }
        // An escape sequence in a phrase or a header would be printed back (as a feature name or in
        // this very message): refused with its line, the character named, not echoed.
        #expect(throws: LexiconError(source: "mine.txt", line: 3, message: "control character U+001B (a lexicon is plain text)")) {
            try Lexicon(text: "@cue choice\nshould i\nzz\u{1B}[31mred\n", source: "mine.txt")
        }
        #expect(throws: LexiconError(source: "mine.txt", line: 1, message: "control character U+009B (a lexicon is plain text)")) {
            try Lexicon(text: "@cue bad\u{9B}name\n", source: "mine.txt")
        }
        let missing = URL(fileURLWithPath: "/nonexistent/weights.json")
        do {
            _ = try IntentClassifier(lexiconURL: nil, weightsURL: missing)
            Issue.record("expected an error")
        } catch let error as LexiconError {
            #expect(error.source == missing.path)
        }
        #expect(throws: LexiconError.self) { try IntentWeights(json: "{\"format\": \"other\"}", source: "w.json") }
        // A weights file's feature name is quoted back without the escape sequence it carried.
        let shipped = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/ReceptionIntent/Model/weights.json"), encoding: .utf8)
        let hostile = shipped.replacingOccurrences(of: "\"features\": {", with: "\"features\": {\"cue:\\u001b]0;pwn\\u0007\": [1, 2],")
        do {
            _ = try IntentWeights(json: hostile, source: "w.json")
            Issue.record("a feature with two numbers must be refused")
        } catch {
            #expect(!"\(error)".contains("\u{1B}") && "\(error)".contains("expected 9 numbers"), "\("\(error)".debugDescription)")
        }
    }

    @Test func theEmbeddedModelIsTheModelFiles() throws {
        let model = repositoryRoot.appendingPathComponent("Sources/ReceptionIntent/Model")
        let lexicon = try String(contentsOf: model.appendingPathComponent("lexicon.txt"), encoding: .utf8)
        let weights = try String(contentsOf: model.appendingPathComponent("weights.json"), encoding: .utf8)
        #expect(ShippedModel.lexicon == lexicon)
        // The compact table gives back the weights file to the byte.
        #expect(IntentWeights.shipped.serialized() == weights)
        let generated = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/ReceptionIntent/ShippedModel.swift"), encoding: .utf8)
        #expect(try generated == ShippedModelSource.render(lexicon: lexicon, weights: weights))
        #expect(Set(Lexicon.requiredClasses).isSubset(of: Set(Lexicon.shipped.classes.map(\.name))))
    }

    @Test func theShippedClassifierIsTheOneCompiledFromTheWeightsFile() throws {
        // The shipped classifier is compiled from the compact table, not from weights.json:
        // it must classify and explain exactly as the file's model does.
        let model = repositoryRoot.appendingPathComponent("Sources/ReceptionIntent/Model")
        let fromFiles = try IntentClassifier(lexiconURL: model.appendingPathComponent("lexicon.txt"),
                                             weightsURL: model.appendingPathComponent("weights.json"))
        #expect(classifier.weights == fromFiles.weights)
        #expect(classifier.extractor.names == fromFiles.extractor.names)
        let messages = try CorpusReader().read(path: repositoryRoot.appendingPathComponent("Tests/Corpora/test.jsonl").path).messages
        let previous = ConversationTurn(query: "should I buy the red or the green jacket right now?", intent: .decision, urgency: .immediate)
        for message in messages.prefix(300) {
            #expect(classifier.classify(message.text, goal: "pick a laptop before friday", previous: previous, explain: true)
                    == fromFiles.classify(message.text, goal: "pick a laptop before friday", previous: previous, explain: true), "\(message.text)")
            #expect(classifier.classify(message.text) == fromFiles.classify(message.text), "\(message.text)")
        }
    }

    @Test func aWeightWithMoreThanFiveDecimalsIsNotRendered() throws {
        // The compact form stores weights × 100,000 as integers: anything finer would be lost.
        var weights = IntentWeights.shipped
        weights.features = ["word:\"tea\"": [0.123456, 0, 0, 0, 0, 0, 0, 0, 0]]
        #expect(throws: LexiconError.self) {
            try ShippedModelSource.render(lexicon: ShippedModel.lexicon, weights: weights.serialized().replacingOccurrences(of: "0.12346", with: "0.123456"))
        }
        weights.features = ["word:\"tea\"": [0.12346, -3, 0, 0, 0, 0, 0, 0, 1e-5]]
        let source = try ShippedModelSource.render(lexicon: ShippedModel.lexicon, weights: weights.serialized())
        #expect(source.contains(" word:\"tea\"\n"))
    }
}
