import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionSoul

@Suite("Renderer behaviour", .onTheCPULane)
struct RendererBehaviourTests {
    func response(_ outcome: Outcome, confidence: Double = 0.9, summary: String = "It works.", findings: [Finding] = [],
                  discrepancy: String? = nil, followups: [String] = []) -> BackendResult {
        BackendResult(taskID: "r", outcome: outcome, findings: findings, text: summary, confidence: confidence,
                      discrepancy: discrepancy, followups: followups.map(SuggestedFollowup.init(parsing:)))
    }

    @Test func lengthLimitsCutAtSentenceBoundariesAndSaySo() {
        var soul = Soul(name: "short")
        soul.length = LengthLimits(maxSentences: 2, maxFindings: 1, maxFollowups: 1)
        let summary = "First is 3.5 km. Second, see e.g. the \"quoted. text\" here. Third… Fourth one."
        let blocks = SoulRenderer(soul: soul).render(response(.bounded, summary: summary,
            findings: [Finding(content: "a"), Finding(content: "b"), Finding(content: "c")], followups: ["x?", "y?"]), trustLevel: 0)
        let summaryBlock = blocks[0].markdown
        #expect(summaryBlock.hasSuffix("First is 3.5 km. Second, see e.g. the \"quoted. text\" here."))
        #expect(blocks.filter { $0.role == .finding }.count == 1)
        #expect(blocks.first { $0.role == .followups }?.items == ["x?"])
        #expect(blocks.last { $0.role == .note }?.markdown == "Left out for brevity: 2 sentences of the summary, 2 findings and 1 follow-up.")

        soul.length = LengthLimits(maxCharacters: 30, omittedNote: "Cut: {left_out}.")
        let cut = SoulRenderer(soul: soul).render(response(.complete, summary: summary), trustLevel: 0)
        #expect(cut[0].markdown == "First is 3.5 km.")
        #expect(cut.last?.markdown == "Cut: 3 sentences of the summary.")
        // The first sentence always shows, however long.
        soul.length = LengthLimits(maxCharacters: 20)
        #expect(SoulRenderer(soul: soul).render(response(.complete, summary: "A rather long first sentence here. B."), trustLevel: 0)[0].markdown
                == "A rather long first sentence here.")
    }

    /// A progress line's source names a file's section: a soul's word replacements restyle the
    /// message, never the section's name ("Writing your own soul" became "… figurehead").
    @Test func aProgressLinesSourceIsShownAsSent() throws {
        let soul = try SoulParser.parse("---\nname: Captain\nvocabulary:\n  replace:\n    soul: figurehead\n---\n\n# Captain\n")
        let progress = TaskProgress(taskID: "t", message: "best match for your soul:", source: "capabilities.md § Writing your own soul")
        let blocks = SoulRenderer(soul: soul).render(.progress(progress), trustLevel: 1)
        #expect(blocks.first?.markdown == "best match for your figurehead: capabilities.md § Writing your own soul", "\(blocks)")
        #expect(progress.line == "best match for your soul: capabilities.md § Writing your own soul")
    }

    /// Loop Symphony's server sends its answer as its one finding too: a terse voice that hides
    /// findings leaves nothing out then, and says nothing was (it said "trimmed: 1 finding",
    /// and "tell me more" showed the same answer again).
    @Test func aFindingThatRepeatsTheAnswerIsNotCountedAsLeftOut() {
        var soul = Soul(name: "terse")
        soul.verbosity = .terse
        let same = response(.complete, summary: "Paris is the capital.", findings: [Finding(content: "Paris is the capital.")])
        let markdown = SoulRenderer(soul: soul).render(same, trustLevel: 1).map(\.markdown).joined(separator: "\n")
        #expect(!markdown.contains("1 finding"), "\(markdown)")
        #expect(!SoulRenderer(soul: soul).mayLeaveOut || SoulRenderer(soul: soul, whole: true).render(same, trustLevel: 1).map(\.markdown).joined(separator: "\n") == markdown)
        let other = response(.complete, summary: "Paris is the capital.", findings: [Finding(content: "It has been since 987.")])
        #expect(SoulRenderer(soul: soul).render(other, trustLevel: 1).map(\.markdown).joined(separator: "\n").contains("1 finding"))
    }

    @Test func outcomesAreFramedDifferently() {
        let renderer = SoulRenderer(soul: Soul(name: "d"))
        let complete = renderer.render(response(.complete), trustLevel: 0)
        #expect(complete[0].markdown == "It works.")
        #expect(complete.count == 1)
        let saturated = renderer.render(response(.saturated), trustLevel: 0)
        #expect(saturated[0].markdown.hasPrefix("This is the best answer available."))
        #expect(saturated.last?.role == .note)
        let bounded = renderer.render(response(.bounded, findings: [Finding(content: "Part one.")]), trustLevel: 0)
        #expect(bounded.contains { $0.role == .finding && $0.markdown == "Part one." })
        #expect(bounded.last?.markdown.contains("keep going") == true)
        let inconclusive = renderer.render(response(.inconclusive, confidence: 0.3, findings: [Finding(content: "A."), Finding(content: "B.")],
                                                    discrepancy: "A and B differ.", followups: ["Which is newer?"]), trustLevel: 0)
        #expect(inconclusive.map(\.role) == [.summary, .finding, .finding, .discrepancy, .followups, .note])
        #expect(inconclusive[0].markdown == "The evidence is mixed. It works.")  // no hedge on top of "mixed"
        #expect(inconclusive[4].markdown == "1. Which is newer?")
    }

    @Test func confidenceIsHedgedByBand() {
        var soul = Soul(name: "h")
        soul.confidence = ConfidenceStyle(high: "Certain.", medium: "Probably.", low: "Unsure.", highThreshold: 0.9, lowThreshold: 0.6)
        let renderer = SoulRenderer(soul: soul)
        #expect(renderer.render(response(.complete, confidence: 0.95), trustLevel: 0)[0].markdown == "Certain. It works.")
        #expect(renderer.render(response(.complete, confidence: 0.9), trustLevel: 0)[0].markdown == "Certain. It works.")
        #expect(renderer.render(response(.complete, confidence: 0.7), trustLevel: 0)[0].markdown == "Probably. It works.")
        #expect(renderer.render(response(.saturated, confidence: 0.2), trustLevel: 0)[0].markdown == "This is the best answer available. Unsure. It works.")
    }

    @Test func emojiPolicyAndIcons() {
        var soul = Soul(name: "e")
        soul.interventions = ["proactive": InterventionStyle(label: "Tip", icon: "💡"), "pushback": InterventionStyle(label: "Hmm", icon: "🤔")]
        let result = response(.complete, summary: "Done 🎉 today.", followups: ["[proactive] a", "[pushback] b"])
        soul.emoji = .sparing
        #expect(SoulRenderer(soul: soul).render(result, trustLevel: 0).compactMap(\.title) == ["💡 Tip", "Hmm"])
        soul.emoji = .allowed
        #expect(SoulRenderer(soul: soul).render(result, trustLevel: 0).compactMap(\.title) == ["💡 Tip", "🤔 Hmm"])
        soul.emoji = .never
        let none = SoulRenderer(soul: soul).render(result, trustLevel: 0)
        #expect(none.compactMap(\.title) == ["Tip", "Hmm"])
        #expect(none[0].markdown == "Done today.")
    }

    @Test func sentenceCapitalisation() {
        var soul = Soul(name: "c")
        soul.capitalization = .sentence
        #expect(SoulRenderer(soul: soul).style("it works. then iPhone ships. `code` stays.") == "It works. Then iPhone ships. `code` stays.")
        soul.capitalization = .lowercase
        #expect(SoulRenderer(soul: soul).style("The build passed. Polymarket said NASA is fine. I agree.") == "the build passed. Polymarket said NASA is fine. i agree.")
    }

    /// A lowercase voice writes "i", as the souls written that way do ("i'm wren"), in its own
    /// words and an engine's alike; an "I" after a capitalised word is a numeral and stays.
    @Test func aLowercaseVoiceWritesILowercase() {
        var soul = Soul(name: "l")
        soul.capitalization = .lowercase
        let renderer = SoulRenderer(soul: soul)
        #expect(renderer.own("Pick one of these and I'll dig in. I am sure, I’m told.") == "pick one of these and i'll dig in. i am sure, i’m told.")
        #expect(renderer.style("The build passed. I agree, and I'm sure the Phase I trial ended.") == "the build passed. i agree, and i'm sure the Phase I trial ended.")
        #expect(renderer.style("This month; I can watch it. If I were you I would read about World War I.")
                == "this month; i can watch it. if i were you i would read about World War I.")
        #expect(renderer.own("Before I ran out of time on World War I and Henry I.") == "before i ran out of time on World War I and Henry I.")
        #expect(renderer.style("Type I errors are rare. Can I help?") == "Type I errors are rare. can i help?")
        // Verbs that open an instruction are ordinary words, not names.
        #expect(renderer.style("Water the plants daily. Name each plant. Lisbon is fine.") == "water the plants daily. name each plant. Lisbon is fine.")
        soul.capitalization = .sentence
        #expect(SoulRenderer(soul: soul).own("then I'll dig in.") == "Then I'll dig in.")
    }

    /// Streamed, an "I" keeps its reading wherever the chunks split: after "War" in the chunk
    /// before, still a numeral.
    @Test func aStreamSplitAnywhereReadsEachILikeTheWholeText() {
        var soul = Soul(name: "l")
        soul.capitalization = .lowercase
        let text = "The trial ended. After World War I, I was sure, and I'm still sure Phase I works."
        let whole = SoulRenderer(soul: soul).style(text)
        #expect(whole == "the trial ended. after World War I, i was sure, and i'm still sure Phase I works.")
        for split in 1..<text.unicodeScalars.count {
            let out = streamedInTwo(text, soul: soul, split: split)
            #expect(out == whole, "split at \(split)")
            if out != whole { break }
        }
    }

    @Test func interventionsInlineStyleAndFollowupStyles() {
        var soul = Soul(name: "i")
        soul.interventions = ["scoping": InterventionStyle(label: "Split", style: .inline)]
        soul.followups.style = .bulleted
        let blocks = SoulRenderer(soul: soul).render(response(.complete, followups: ["[scoping] Two parts", "a?", "b?"]), trustLevel: 0)
        #expect(blocks.contains { $0.role == .intervention && $0.title == nil && $0.markdown == "**Split:** Two parts" && $0.interventionType == .scoping })
        #expect(blocks.first { $0.role == .followups }?.markdown == "- a?\n- b?")
        soul.followups.style = .inline
        #expect(SoulRenderer(soul: soul).render(response(.complete, followups: ["a?", "b?"]), trustLevel: 0).last?.markdown == "(1) a? · (2) b?",
                "typing 2 sends b?: the one-line list says which is which")
    }
}

@Suite("Sentence helpers", .onTheCPULane)
struct SentenceHelperTests {
    @Test func firstSentenceAgreesWithTheCoreSplitter() {
        let samples = ["Hello world. Second.", "See e.g. this one. Next.", "J. Smith wrote it. Then more.", "No end here",
                       "He said \"hi.\" Then left.", "One! Two? Three.", "Ends with dot.", "", "   ", "A (b.) c. D.",
                       "你好。世界。", "v1.2 is out. yes", "Mr. Ito. Done."]
        for text in samples {
            #expect(Sentences.firstSentence(text) == Sentences.split(text).first, "\(text)")
        }
    }
}
