import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionSoul

/// What a soul author saw go wrong with answers in a voice: punctuation lost with an emoji,
/// cuts inside a sentence, rules read the wrong way round, an answer cut before it answers, an
/// opener said twice.
@Suite("Souls as their authors meant them", .onTheCPULane)
struct SoulAuthorTrialTests {
    func answer(_ text: String, outcome: Outcome = .complete) -> BackendResult {
        BackendResult(taskID: "t", outcome: outcome, findings: [], text: text, confidence: 0.9)
    }

    func limited(_ maxSentences: Int) -> SoulRenderer {
        var soul = Soul(name: "cut")
        soul.length = LengthLimits(maxSentences: maxSentences)
        return SoulRenderer(soul: soul)
    }

    /// `emoji: none` removes the emoji, not the punctuation after it: a question mark that
    /// went with it turned a question into a statement run into the next sentence.
    @Test func withoutEmojiThePunctuationAfterOneStays() {
        var soul = Soul(name: "plain")
        soul.emoji = .never
        let renderer = SoulRenderer(soul: soul)
        #expect(renderer.style("Keep it dry ☀️, please. Bring tea 🍵! Is it cold 🥶? Yes.") == "Keep it dry, please. Bring tea! Is it cold? Yes.")
        #expect(renderer.style("Leave no trash behind ♻️.") == "Leave no trash behind.")
        // Brackets around an emoji go with it.
        #expect(renderer.style("Pack fruit (🍎) and water 💧 — plenty.") == "Pack fruit and water — plenty.")
    }

    /// A limit cuts at sentence ends only: not after "a.m." or "Ave.," inside a sentence, and
    /// "No." answering a question is a sentence of its own; every limit splits the text alike.
    @Test func limitsCutOnlyWhereASentenceEnds() {
        let bus = "Take bus No. 5 towards St. Mark's Church, e.g. from Main St. at 9 a.m. sharp, and get off at the 3rd stop. Tickets cost $3."
        #expect(limited(1).render(answer(bus), trustLevel: 0)[0].markdown
                == "Take bus No. 5 towards St. Mark's Church, e.g. from Main St. at 9 a.m. sharp, and get off at the 3rd stop.")
        let parking = "Is there parking? No. Use the garage on 5th Ave., which costs $12 a day. Mr. Smith at the desk validates tickets."
        #expect(limited(2).render(answer(parking), trustLevel: 0)[0].markdown
                == "Is there parking? No. Use the garage on 5th Ave., which costs $12 a day.")
        // "a.m." before a capitalised word ends the sentence.
        #expect(limited(1).render(answer("We open at 9 a.m. Tickets cost $3."), trustLevel: 0)[0].markdown == "We open at 9 a.m.")
        // The core splitter (the local backend's) agrees.
        #expect(Sentences.split(parking) == ["Is there parking?", "No.", "Use the garage on 5th Ave., which costs $12 a day.",
                                             "Mr. Smith at the desk validates tickets."])
        #expect(Sentences.split("Take bus No. 5 at 9 a.m. sharp. We open at 9 a.m. Tickets cost $3.")
                == ["Take bus No. 5 at 9 a.m. sharp.", "We open at 9 a.m.", "Tickets cost $3."])
        // Titles, "U.S.", extensions and months: one rule for every splitter.
        let more = "The lecture is by Prof. Lee in the U.S. by invitation. Call ext. 42 first. It opens in Jan. and closes on 5th Ave. It costs $3."
        #expect(Sentences.split(more) == ["The lecture is by Prof. Lee in the U.S. by invitation.", "Call ext. 42 first.",
                                          "It opens in Jan. and closes on 5th Ave.", "It costs $3."])
        #expect(limited(1).render(answer(more), trustLevel: 0)[0].markdown == "The lecture is by Prof. Lee in the U.S. by invitation.")
        var sentenceCase = Soul(name: "s")
        sentenceCase.capitalization = .sentence
        #expect(SoulRenderer(soul: sentenceCase).style("built in the U.S. by volunteers. it works.") == "Built in the U.S. by volunteers. It works.")
    }

    /// A question the answer asks of itself is not the answer: the limit counts the sentence
    /// that answers it, and a list stays with the sentence that introduces it.
    @Test func aCutKeepsTheAnswerToAQuestionAndTheListAfterItsIntroduction() {
        let parking = limited(1).render(answer("Is there parking? No. Use the garage on 5th Ave. It costs $12."), trustLevel: 0)
        #expect(parking[0].markdown == "Is there parking? No.")
        #expect(parking.last?.markdown == "Left out for brevity: 2 sentences of the summary.")
        let list = "What Reception can do for you today.\n\n- Classify what you ask\n- Answer in your soul's voice\n- Keep a log\n\nAsk about any of them."
        let rendered = limited(1).render(answer(list), trustLevel: 0)
        #expect(rendered[0].markdown.contains("- Keep a log"), "\(rendered[0].markdown)")
        #expect(!rendered[0].markdown.contains("Ask about any of them."))
    }

    /// A code block after the last sentence kept is kept with it: the command after "Install
    /// it with apt." is the answer a terse voice must not cut.
    @Test func aCutKeepsTheCodeBlockAfterTheSentencesKept() {
        let install = "Install it with apt.\n\n```sh\napt-get install frob\n```\n\nThe version should be 2 or later."
        let rendered = limited(1).render(answer(install), trustLevel: 0)
        #expect(rendered[0].markdown.hasSuffix("Install it with apt.\n\n```sh\napt-get install frob\n```"), "\(rendered[0].markdown)")
        #expect(rendered.last?.markdown == "Left out for brevity: 1 sentence of the summary.")
    }

    /// A code block too long for the allowance is kept in part, with how many lines are left
    /// and its closing fence: dropped whole, the answer ended on "Roll it out like this:".
    @Test func aCodeBlockTooLongForTheLimitIsKeptInPart() {
        var soul = Soul(name: "cut")
        soul.length = LengthLimits(maxSentences: 1, maxCharacters: 120)
        let commands = (0..<100).map { "kubectl apply -f widget-\($0).yaml" }.joined(separator: "\n")
        let text = "Roll it out like this:\n\n```sh\n" + commands + "\n```\n\nThen watch the logs."
        let shown = SoulRenderer(soul: soul).render(answer(text), trustLevel: 0)[0].markdown
        #expect(shown.hasPrefix("Roll it out like this:\n\n```sh\nkubectl apply -f widget-0.yaml\n"), "\(shown)")
        #expect(shown.hasSuffix("more lines)\n```") && shown.unicodeScalars.count <= 4 * 120, "\(shown)")
        #expect(!shown.contains("watch the logs"))
        // With no code kept before the cut, the first code block is kept in part the same way.
        let late = "Put this in the file. Then reload. Check first.\n\n```sh\n" + commands + "\n```"
        let first = limited(1).render(answer(late), trustLevel: 0)[0].markdown
        #expect(first.hasPrefix("Put this in the file.\n\n```sh\nkubectl") && first.hasSuffix("more lines)\n```"), "\(first)")
    }

    /// Numbered steps: "2." is a step's number, not a sentence, so no cut leaves a bare "2.";
    /// and once the steps begin, they go on to the last, with their commands, past both the
    /// sentence and the character limit.
    @Test func stepsAreNeverCutInHalf() {
        var soul = Soul(name: "cut")
        soul.length = LengthLimits(maxSentences: 2, maxCharacters: 120)
        let steps = "To deploy:\n1. Tag the release. Push the tag.\n   ```\n   git push origin v1\n   ```\n2. Wait for the build.\n3. Roll out.\n\nAsk if it fails."
        let rendered = SoulRenderer(soul: soul).render(answer(steps), trustLevel: 0)
        #expect(rendered[0].markdown.hasSuffix("2. Wait for the build.\n3. Roll out."), "\(rendered[0].markdown)")
        #expect(rendered.last?.markdown == "Left out for brevity: 1 sentence of the summary.")
        #expect(SoulRenderer(soul: soul).styler.sentences("1. Tag it.\n2. Push it.").map(String.init) == ["1. Tag it.", "\n2. Push it."])
    }

    /// A cut that would drop an answer's command keeps its first code block: the sentences
    /// before it were about it ("Put this in /etc/nginx/…").
    @Test func aCutKeepsTheFirstCodeBlockWhenNoneWasKept() {
        let text = "Put this in the sites folder. Then reload nginx. Check the syntax first.\n\n```nginx\nserver { listen 443; }\n```\n\nThat is all."
        let rendered = limited(2).render(answer(text), trustLevel: 0)
        #expect(rendered[0].markdown == "Put this in the sites folder. Then reload nginx.\n\n```nginx\nserver { listen 443; }\n```", "\(rendered[0].markdown)")
        #expect(rendered.last?.markdown == "Left out for brevity: 2 sentences of the summary.")
    }

    /// Past the limit, the sentence that introduces the steps is kept with them: cut before
    /// "Steps for the hiring manager:", the answer to "how do I onboard a contractor?" was one
    /// sentence of preamble. A list item ends the sentence before it, with no blank line.
    @Test func theIntroductionOfStepsPastTheLimitIsKeptWithThem() {
        let text = "Contractors get a limited account. Steps for the hiring manager:\n1. File a ticket.\n2. Pair them with a buddy.\n\nAsk IT if it is late."
        let rendered = limited(1).render(answer(text), trustLevel: 0)
        #expect(rendered[0].markdown == "Contractors get a limited account. Steps for the hiring manager:\n1. File a ticket.\n2. Pair them with a buddy.",
                "\(rendered[0].markdown)")
        #expect(rendered.last?.markdown == "Left out for brevity: 1 sentence of the summary.")
    }

    /// A lead or hedge before a code block, list or table ends its line: "Nailed it! ```sh"
    /// left the block unopened. A source after a finding's code block goes below the fence.
    @Test func aBlockStartsOnALineOfItsOwn() {
        var soul = Soul(name: "lead")
        soul.outcomes["complete"] = OutcomeStyle(lead: "Nailed it!", note: nil)
        let rendered = SoulRenderer(soul: soul).render(answer("```sh\nmake\n```"), trustLevel: 0)
        #expect(rendered[0].markdown.hasPrefix("Nailed it!\n\n```sh\nmake\n```"), "\(rendered[0].markdown)")
        var result = answer("Build it.")
        result.findings = [Finding(content: "Then:\n\n```\nmake install\n```", source: "README.md#Install")]
        let finding = SoulRenderer(soul: soul).render(result, trustLevel: 0).first { $0.role == .finding }
        #expect(finding?.markdown == "Then:\n\n```\nmake install\n```\n\n(README.md#Install)")
    }

    /// An opener or sign-off the answer already says (a model given the persona text often
    /// opens with it) is not said a second time.
    @Test func anOpenerOrSignOffTheAnswerSaysIsNotRepeated() {
        var soul = Soul(name: "o")
        soul.outcomes["complete"] = OutcomeStyle(lead: "tl;dr:", note: nil)
        soul.signOff = "Keep growing!"
        let renderer = SoulRenderer(soul: soul)
        let said = renderer.render(answer("tl;dr: run the deploy script. Keep growing!"), trustLevel: 0)
        #expect(said[0].markdown == "tl;dr: run the deploy script. Keep growing!")
        #expect(!said.contains { $0.role == .signoff })
        let unsaid = renderer.render(answer("Run the deploy script."), trustLevel: 0)
        #expect(unsaid[0].markdown == "tl;dr: Run the deploy script.")
        #expect(unsaid.last?.markdown == "Keep growing!")
    }

    /// Rules that say what not to do are read that way round.
    @Test func negatedRulesAreNotReadBackwards() throws {
        func soul(_ line: String) throws -> Soul {
            try SoulParser.parse("# Dana\n\nDana is a guide.\n\n## Voice\n\n- \(line)\n", fileName: "dana.md")
        }
        #expect(try soul("Never write in all lowercase.").capitalization != .lowercase)
        #expect(try soul("Always write in all lowercase.").capitalization == .lowercase)
        #expect(try soul("Don't use emoji.").emoji == .never)
        #expect(try soul("Don’t use emoji.").emoji == .never)
        #expect(try soul("Jamais d'émoji.").emoji == .never)
        #expect(try soul("絵文字は使いません。").emoji == .never)
        let notTerse = try soul("Not terse: give the whole answer.")
        #expect(notTerse.length.maxSentences == nil && notTerse.verbosity == .balanced)
        #expect(try soul("Be terse.").verbosity == .concise)
    }

    /// A soul that names no findings title still titles them: untitled, they read as more
    /// items of a list that ends the summary.
    @Test func findingsAreTitledWhenTheSoulNamesNoTitle() {
        let result = BackendResult(taskID: "t", outcome: .complete, findings: [Finding(content: "More.", source: "a.md")],
                                   text: "Here:\n\n- one\n- two", confidence: 0.5)
        let blocks = SoulRenderer(soul: Soul(name: "bare")).render(result, trustLevel: 0)
        #expect(blocks.first { $0.role == .finding }?.title == "What I found", "\(blocks)")
    }

    /// Reception's own framing does not say what the soul avoids: a casual persona that never
    /// says "heads up", "hang on" or "dig" gets the neutral wording for those slots.
    @Test func theFramingAvoidsWhatTheSoulAvoids() throws {
        let soul = try SoulParser.parse("""
            # Breeze

            Breeze is a relaxed surf instructor, super casual, always chill.

            ## Voice

            - Casual, slang, laid-back. Contractions always.

            ## Never say

            - "heads up"
            - "hang on"
            - "dig"
            - "grain of salt"

            """, fileName: "breeze.md")
        #expect(soul.formality == .casual)
        let effective = VoiceDefaults.effective(soul)
        let framing = [effective.interventions["proactive"]?.label, effective.interventions["pushback"]?.label, effective.titles.findings,
                       effective.outcomes["inconclusive"]?.lead, effective.outcomes["saturated"]?.note, effective.confidence.low]
        for text in framing {
            let said = try #require(text)
            for avoided in ["heads", "hang on", "dig", "dug", "grain of salt"] {
                #expect(!said.lowercased().contains(avoided), "\(said)")
            }
        }
        // What it does not avoid keeps the casual register.
        #expect(effective.outcomes["saturated"]?.lead == "Here's the best I've got.")
    }

    /// A short soul that never speaks of length gets no length limit from a few measured lines
    /// (its name, a one-line description, an emoji after a "!"): it cut every answer.
    @Test func aFewShortLinesSetNoLengthLimit() throws {
        let soul = try SoulParser.parse("""
            # Sprout 🌱

            Sprout is a cheerful garden gnome who loves helping! 🌻

            ## Vibe

            - Casual, bubbly, lots of exclamation marks! 🎉
            - Sign off with "Keep growing! 🌿"

            """, fileName: "sprout.md")
        #expect(soul.length.maxSentences == nil, "\(soul.verbosity)")
    }

    /// A labelled greeting or sign-off is read as a list item, in bold, and quoted at any
    /// length a labelled line takes (they were silently not read).
    @Test func aLabelledGreetingIsReadAsAListItemBoldOrQuoted() throws {
        func soul(_ line: String) throws -> Soul {
            try SoulParser.parse("# G\n\nG is a butler.\n\n## Voice\n\n\(line)\n", fileName: "g.md")
        }
        #expect(try soul("- Greeting: hi there").greeting == "hi there")
        #expect(try soul(#"- Greeting: "Good day. How may I be of service?""#).greeting == "Good day. How may I be of service?")
        #expect(try soul("**Greeting:** Howdy, partner!").greeting == "Howdy, partner!")
        #expect(try soul("- Sign-off: I remain, as ever, at your service.").signOff == "I remain, as ever, at your service.")
        #expect(try soul("- Sign-off: none").signOff == nil)
        #expect(try soul(#"Sign off with "I remain at your service, as ever.""#).signOff == "I remain at your service, as ever.")
        // A code span after the cue is a command, not a phrase.
        #expect(try soul("Does it end with `claude: commit, push and merge the PR.` and not a summary?").signOff == nil)
    }

    /// "Soul" that is part of a name stays: "# Old Soul" is Old Soul, not Old.
    @Test func soulInANameStays() throws {
        func name(_ heading: String) throws -> String { try SoulParser.parse("# \(heading)\n\nA helper.\n", fileName: "x.md").name }
        #expect(try name("Old Soul") == "Old Soul")
        #expect(try name("Garry Tan Soul") == "Garry Tan")
        #expect(try name("Aaron's Soul") == "Aaron")
    }

    /// An opener stated for one venue under a heading over several ("## Platform
    /// Differences", "### Think tanks") is that venue's, not every answer's.
    @Test func anOpenerUnderAPlatformsHeadingIsThatVenues() throws {
        let soul = try SoulParser.parse("""
            # Vee

            Vee is a diplomat.

            ## Platform Differences

            ### Think tanks and foreign audiences

            Conversational but structured. Will start with "Let me step back."

            """, fileName: "vee.md")
        #expect(soul.opener == nil)
    }

    /// Findings a terse voice leaves out are named in the note, as cut sentences are: they may
    /// hold what the summary does not.
    @Test func findingsATerseVoiceLeavesOutAreNamed() {
        var soul = Soul(name: "t")
        soul.verbosity = .terse
        let result = BackendResult(taskID: "t", outcome: .complete, findings: [Finding(content: "Closed on Mondays."), Finding(content: "Free on Sundays.")],
                                   text: "The museum has changed its hours.", confidence: 0.9)
        let blocks = SoulRenderer(soul: soul).render(result, trustLevel: 0)
        #expect(!blocks.contains { $0.role == .finding })
        #expect(blocks.last?.markdown == "Left out for brevity: 2 findings.", "\(blocks.map(\.markdown))")
    }

    /// A finding that says the answer is the whole section is left out when the soul cut the
    /// answer: it would say the opposite of the note under it.
    @Test func aFindingSayingTheAnswerIsWholeIsLeftOutAfterACut() {
        let result = BackendResult(taskID: "t", outcome: .complete,
                                   findings: [Finding(content: Finding.answerIsWhole, source: "museum.md#Parking"), Finding(content: "Valet on weekends.")],
                                   text: "Is there parking? No. Use the garage on 5th Ave. It costs $12.", confidence: 0.5)
        let cut = limited(1).render(result, trustLevel: 0)
        #expect(!cut.contains { $0.markdown.contains("whole of this section") }, "\(cut.map(\.markdown))")
        #expect(cut.contains { $0.role == .finding && $0.markdown.contains("Valet on weekends.") })
        let whole = SoulRenderer(soul: Soul(name: "w")).render(result, trustLevel: 0)
        #expect(whole.contains { $0.markdown.contains("whole of this section") })
    }

    /// Sentence case leaves a word the persona uses in lowercase ("lfg") as written at a
    /// sentence's start; ordinary words are still capitalised.
    @Test func sentenceCaseKeepsThePersonasLowercaseWords() {
        var soul = Soul(name: "g")
        soul.capitalization = .sentence
        soul.vocabulary = Vocabulary(prefer: ["lfg", "founder mode", "the"])
        #expect(SoulRenderer(soul: soul).style("lfg, the launch is today. the rest waits.") == "lfg, the launch is today. The rest waits.")
    }

    /// "Tutoie la personne" is the familiar register, and the French framing says "tu".
    @Test func aFrenchSoulThatSaysTuIsFramedWithTu() throws {
        let soul = try SoulParser.parse("""
            # Amélie

            Amélie est une guide de voyage parisienne, chaleureuse et précise.

            ## Voix

            - Phrases courtes et claires.
            - Tutoie la personne, ton décontracté.

            """, fileName: "amelie.md")
        #expect(soul.language == "fr" && soul.formality == .casual, "\(soul.language) \(soul.formality)")
        let effective = VoiceDefaults.effective(soul)
        #expect(effective.followups.title == "Tu pourrais demander ensuite")
        #expect(effective.outcomes["bounded"]?.note?.hasPrefix("Tu veux") == true)
    }

    /// No space after a Japanese or Chinese full stop between the framing and the answer.
    @Test func noSpaceAfterAJapaneseFullStop() {
        #expect(SoulRenderer.joinedSentences(["調べきれませんでした。", "おそらく正しいと思います。"]) == "調べきれませんでした。おそらく正しいと思います。")
        #expect(SoulRenderer.joinedSentences(["Probably.", "It works."]) == "Probably. It works.")
    }
}
