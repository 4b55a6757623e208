import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionSoul

/// Personas written the way people write them for language-model agents (our own text, in
/// the styles found in the wild): each must get its own voice from its prose alone.
@Suite("Derived voice traits", .onTheCPULane)
struct DerivedTraitsTests {
    static let styles = Paths.fixtures.appendingPathComponent("styles")
    static let personas = ["quill", "harbor-SOUL.md", "override-soul.md", "never-uses.md", "lexicon.md", "lowercase.md",
                           "emoji.md", "ja-SOUL.md", "de-SOUL.md"]

    static func load(_ name: String) throws -> Soul {
        try SoulParser.load(contentsOf: styles.appendingPathComponent(name))
    }

    static func trait(_ soul: Soul, _ name: String) -> SoulTrait? {
        soul.traits.first { $0.name == name }
    }

    @Test func previewsArePairwiseDistinctAndNotTheDefaultOrAnEmptySoul() throws {
        var previews: [String: String] = [:]
        for name in Self.personas { previews[name] = SoulPreview.render(try Self.load(name)) }
        let defaultPreview = SoulPreview.render(try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("default.md")))
        let emptyPreview = SoulPreview.render(try SoulParser.parse("# Nobody\n", fileName: "nobody.md"))
        for (name, preview) in previews {
            #expect(preview != defaultPreview, "\(name) previews like the default soul")
            #expect(preview != emptyPreview, "\(name) previews like an empty soul")
        }
        let names = Self.personas
        for i in names.indices {
            for j in names.indices where j > i {
                #expect(previews[names[i]] != previews[names[j]], "\(names[i]) and \(names[j]) preview the same")
            }
        }
    }

    @Test func aaronStyleFolderReadsAllItsFiles() throws {
        let soul = try Self.load("quill")
        #expect(soul.name == "Quill")
        #expect(soul.companions.map(\.name) == ["STYLE.md", "bad-outputs.md", "good-outputs.md"])
        // Polarity: the uses list is used, the avoids list avoided, never the wrong way round.
        #expect(soul.vocabulary.prefer == ["set it tight", "pull a proof", "clean impression"])
        #expect(soul.vocabulary.avoid == ["game-changer", "seamless", "at the end of the day"])
        #expect(soul.signaturePhrases.contains("That one sits right"))
        // From STYLE.md: no emoji; from the good examples: short sentences.
        #expect(soul.emoji == .never)
        #expect(soul.verbosity == .terse || soul.verbosity == .concise)
        #expect(soul.examples.filter(\.good).map(\.text).contains("Proof pulled. Margins hold. Ship it."))
        #expect(soul.examples.filter { !$0.good }.count == 1)
        #expect(soul.examples.allSatisfy { !$0.text.contains("Calibration") })
        // The bad example's exclamation marks are not the voice.
        #expect(!soul.exclamatory)
        #expect(soul.boundaries == ["Won't pretend a rough proof is a final print.", "Won't rush a job past the proof stage."])
        // Lint looks at the companions too, and names their files.
        let diagnostics = SoulLinter.lint(contentsOf: Self.styles.appendingPathComponent("quill"))
        #expect(diagnostics.errors.isEmpty)
    }

    @Test func openClawSingleFile() throws {
        let soul = try Self.load("harbor-SOUL.md")
        #expect(soul.name == "The Harbor Master")
        #expect(soul.signOff == "Fair winds.")
        #expect(soul.boundaries == ["Never send a crew out on a guess.", "Keep the manifest private."])
        #expect(soul.verbosity == .terse)
        #expect(soul.length.maxSentences == 2)
        let preview = SoulPreview.render(soul, outcome: .complete)
        #expect(preview.hasSuffix("Fair winds."))
        #expect(preview.contains("Left out for brevity"))
    }

    @Test func frontMatterOverridesEveryDerivedTrait() throws {
        let soul = try Self.load("override-soul.md")
        #expect(soul.name == "Magistrate")
        #expect(soul.formality == .formal)
        #expect(soul.verbosity == .detailed)
        #expect(soul.emoji == .never)
        #expect(soul.length.maxSentences == nil)  // the length the prose implies goes with its verbosity
        for name in ["formality", "verbosity", "emoji", "length"] {
            #expect(Self.trait(soul, name)?.overridden == true, "\(name) should be marked overridden")
        }
        #expect(Self.trait(soul, "formality")?.value == "casual")
        // Other tools' keys pass quietly; a near miss gets one short suggestion.
        let diagnostics = SoulLinter.lint(contentsOf: Self.styles.appendingPathComponent("override-soul.md"))
        #expect(!diagnostics.contains { $0.message.contains("`type`") || $0.message.contains("`created`") })
        let tonne = diagnostics.filter { $0.message.contains("`tonne`") }
        #expect(tonne.count == 1)
        #expect(tonne.first?.message.contains("did you mean `tone`?") == true)
        #expect(!diagnostics.contains { $0.message.contains("known:") })
    }

    @Test func anEmptyFileIsSaidToBeEmpty() {
        for text in ["", "\n\n  \n"] {
            let diagnostics = SoulLinter.lint(text: text, fileName: "empty.md")
            #expect(diagnostics.map(\.severity) == [.warning] && diagnostics.first?.message.contains("the file is empty") == true, "\(diagnostics)")
        }
        #expect(SoulLinter.lint(text: "# Wren\n\nA short voice.\n", fileName: "wren.md").allSatisfy { !$0.message.contains("empty") })
    }

    /// Numbers where words belong, and a greeting that would flood every session's first
    /// screen, are each named at their line; the same values quoted as text, or a short
    /// greeting, pass.
    @Test func aNumberForToneOrFollowupsAndAnOverlongGreetingAreNamed() throws {
        let greeting = String(repeating: "x", count: 300_000)
        let text = "---\nname: X\ntone: 5\nfollowups: 7\ngreeting: \(greeting)\n---\n# X\n\nBody.\n"
        let diagnostics = SoulLinter.lint(text: text, fileName: "n.md")
        let tone = diagnostics.first { $0.message.contains("`tone`") }
        #expect(tone?.line == 3 && tone?.severity == .warning && tone?.message.contains("not as a number") == true, "\(diagnostics)")
        let followups = diagnostics.first { $0.message.contains("followups: 7") }
        #expect(followups?.line == 4 && followups?.message.contains("max_followups: 7") == true, "\(diagnostics)")
        let long = diagnostics.first { $0.message.contains("the greeting is 300000 characters") }
        #expect(long?.line == 5, "\(diagnostics)")
        let soul = try SoulParser.parse(text, fileName: "n.md")
        #expect(soul.tone == nil && soul.followups.title == nil)
        let quoted = SoulLinter.lint(text: "---\nname: X\ntone: \"5\"\nfollowups: \"7\"\ngreeting: Hi.\n---\n# X\n\nBody.\n", fileName: "q.md")
        #expect(quoted.isEmpty, "quoted, a number is the author's text: \(quoted)")
    }

    /// "Greeting: hi there" in the prose sets the greeting, unquoted, and is not taken for the
    /// persona's description.
    @Test func aLabelledGreetingLineIsTheGreetingNotTheDescription() throws {
        for text in ["Greeting: hi there\n\nA calm voice that answers briefly.\n", "# Calm\n\nGreeting: hi there\nSign-off: Be well.\n\nA calm voice that answers briefly.\n"] {
            let soul = try SoulParser.parse(text, fileName: "calm.md")
            #expect(soul.greeting == "hi there", "\(text)")
            #expect(soul.summary == "A calm voice that answers briefly.", "\(soul.summary ?? "none")")
        }
        let signed = try SoulParser.parse("# Calm\n\nSign-off: Be well.\n\nA calm voice.\n", fileName: "calm.md")
        #expect(signed.signOff == "Be well.")
        // Typographic characters do not hide the phrase.
        let curly = try SoulParser.parse("# Calm\n\nGreeting: Hey — glad you’re here.\n\nA calm voice.\n", fileName: "calm.md")
        #expect(curly.greeting == "Hey — glad you’re here.", "\(curly.greeting ?? "none")")
        // A note about the phrase is not the phrase.
        for note in ["Sign-off: none", "Greeting: never 'Hey guys'", "Greeting: warm but brief"] {
            let soul = try SoulParser.parse("# Calm\n\n\(note)\n\nA calm voice.\n", fileName: "calm.md")
            #expect(soul.greeting == nil && soul.signOff == nil, "\(note): \(soul.greeting ?? "") \(soul.signOff ?? "")")
        }
    }

    /// A licence passed lint with "0 errors, 0 warnings": nothing told its author that no
    /// persona was read from it. A file that says nothing about who speaks or how is warned of;
    /// a persona of one line, or one written as instructions, is not.
    @Test func aFileThatReadsAsNoPersonaIsWarnedOf() {
        let licence = "MIT License\n\nCopyright (c) 2024 Someone\n\nPermission is hereby granted, free of charge, to any person obtaining a copy of this software.\n"
        let warned = SoulLinter.lint(text: licence, fileName: "LICENSE.md")
        #expect(warned.map(\.severity) == [.warning] && warned.first?.message.hasPrefix("nothing here reads as a persona") == true, "\(warned)")
        // A long licence addresses its reader ("You are not required…") and gives orders ("keep
        // intact…") far from its opening: no persona either.
        let long = "Apache License\n\n" + (1...20).map { "Clause \($0). The licensor grants the rights set out in this section to the licensee.\n" }.joined()
            + "You are not required to accept this License.\nkeep intact all notices of the absence of any warranty.\n"
        #expect(SoulLinter.lint(text: long, fileName: "apache.md").contains { $0.message.hasPrefix("nothing here reads as a persona") })
        for persona in ["# Wren\n\nA calm librarian. Short sentences, no slang.\n", "Be kind and brief.\n", "You are Wren, a calm librarian.\n",
                        "# Wren\n\n## Voice\n\nQuiet.\n", "---\nname: Wren\n---\nThe library opens at nine.\n"] {
            let diagnostics = SoulLinter.lint(text: persona, fileName: "wren.md")
            #expect(!diagnostics.contains { $0.message.contains("reads as a persona") }, "\(persona): \(diagnostics)")
        }
    }

    /// The first persona a newcomer writes, on one line: "Never say" in its third sentence was
    /// not read (only a line that starts with it was), and "Be brief." set no length.
    @Test func aBanInALaterSentenceAndBeBriefAreRead() throws {
        let soul = try SoulParser.parse("# Grumpy Gus\nYou are Gus. Be brief. Never say \"awesome\".\n", fileName: "gus.md")
        #expect(soul.vocabulary.avoid == ["awesome"], "\(soul.vocabulary.avoid)")
        #expect(soul.verbosity == .concise)
        #expect(try SoulParser.parse("Keep it short.\n", fileName: "k.md").verbosity == .concise)
        // A quoted sentence end is not a sentence of the line: "Say \"Stop. Never say 'x'.\"" bans nothing.
        #expect(try SoulParser.parse("# A\nGreet with \"Hello. Never say \u{201C}bye\u{201D} here\".\n", fileName: "a.md").vocabulary.avoid.isEmpty)
    }

    /// `max_sentences: 99999999999999999999` was said to be no whole number.
    @Test func aNumberPastTheIntegersRangeIsSaidToBeTooLarge() {
        let large = SoulLinter.lint(text: "---\nlength:\n  max_sentences: 99999999999999999999\n---\nYou are W.\n", fileName: "w.md")
        #expect(large.map(\.description) == ["w.md:3:18: error: `length.max_sentences` is too large a number (at most \(Int.max))"], "\(large)")
        let small = SoulLinter.lint(text: "---\nlength:\n  max_sentences: -99999999999999999999\n---\nYou are W.\n", fileName: "w.md")
        #expect(small.map(\.message) == ["`length.max_sentences` must be at least 1"], "\(small)")
        let word = SoulLinter.lint(text: "---\nlength:\n  max_sentences: three\n---\nYou are W.\n", fileName: "w.md")
        #expect(word.map(\.message) == ["`length.max_sentences` must be a whole number"], "\(word)")
    }

    @Test func typeIsNotANearMissForTone() {
        let diagnostics = SoulLinter.lint(text: "---\nfoo: 1\ntyp: x\nlanguaje: en\n---\n# X\n\nBody.\n", fileName: "k.md")
        #expect(diagnostics.count == 3)
        #expect(diagnostics.first { $0.message.contains("`foo`") }?.message.contains("did you mean") == false)
        #expect(diagnostics.first { $0.message.contains("`typ`") }?.message.contains("did you mean") == false)
        #expect(diagnostics.first { $0.message.contains("`languaje`") }?.message.contains("did you mean `language`?") == true)
    }

    @Test func neverUsesListIsAvoidedAndTheRegisterIsFormal() throws {
        let soul = try Self.load("never-uses.md")
        #expect(soul.vocabulary.avoid == ["awesome", "super", "no worries", "kinda"])
        #expect(soul.vocabulary.prefer == ["it follows that", "with respect"])
        // "No "utilise" when "use" will do": the word to write instead, written in its place.
        #expect(soul.vocabulary.replace == [VocabularyReplacement(avoid: "utilise", prefer: "use")])
        #expect(SoulRenderer(soul: soul).style("We utilise the archive.") == "We use the archive.")
        #expect(Self.trait(soul, "words replaced").map { "\($0.value) at line \($0.line)" } == "\"utilise\" → \"use\" at line 15")
        #expect(soul.formality == .formal)
        #expect(soul.verbosity == .detailed)
        #expect(soul.boundaries == ["Never offers legal advice on a particular case."])
        // The system prompt carries the lists once, in the persona's own text; listed apart
        // (a soul without that text), "Never say" holds the avoided words only.
        let prompt = SoulPrompts().systemPrompt(soul: soul)
        #expect(prompt.components(separatedBy: "no worries").count == 2 && !prompt.contains("- Never say:"), "\(prompt)")
        let listed = SoulPrompts().systemPrompt(soul: soul.withoutPersonaText)
        let never = try #require(listed.split(separator: "\n").first { $0.hasPrefix("- Never say:") })
        #expect(never == "- Never say: \"awesome\", \"super\", \"no worries\", \"kinda\".")
        #expect(listed.contains("- Words you like to use: \"it follows that\", \"with respect\"."))
        // Formal: the framing is formal; the engine's prose keeps its own words (expanding
        // contractions one by one wrote "Is not it odd").
        let rendered = SoulRenderer(soul: soul).style("It doesn't open on Mondays. Isn't it odd? It is what it is.")
        #expect(rendered == "It doesn't open on Mondays. Isn't it odd? It is what it is.")
    }

    @Test func signatureLexiconIsUsedNeverAvoided() throws {
        let soul = try Self.load("lexicon.md")
        #expect(soul.name == "Captain Bly")
        #expect(soul.signaturePhrases == ["Hoist the findings", "All hands", "Steady as she goes"])
        #expect(soul.vocabulary.prefer == ["Hoist the findings", "All hands", "Steady as she goes"])
        #expect(soul.vocabulary.avoid == ["I guess", "hopefully"])
        #expect(soul.opener == "Right then:")
        #expect(soul.signOff == "Onward, crew.")
        #expect(soul.refusal == "Not on my deck.")
        #expect(soul.hedging == .assertive)
        #expect(SoulPrompts().systemPrompt(soul: soul).components(separatedBy: "Hoist the findings").count == 2, "the phrases once, in the persona's text")
        let prompt = SoulPrompts().systemPrompt(soul: soul.withoutPersonaText)
        #expect(prompt.contains("- Never say: \"I guess\", \"hopefully\"."))
        #expect(prompt.contains("- Phrases that are yours: \"Hoist the findings\", \"All hands\", \"Steady as she goes\"."))
        #expect(!prompt.split(separator: "\n").contains { $0.hasPrefix("- Never say:") && $0.contains("Hoist") })
        #expect(prompt.contains("- Open your answers with \"Right then:\"."))
        // Assertive: the prompt does not ask for the hedge the renderer drops.
        #expect(prompt.contains("do not hedge when you are fairly sure") && !prompt.contains("When fairly sure, say so"), "\(prompt)")
        let preview = SoulPreview.render(soul, outcome: .complete)
        #expect(preview.contains("Right then: Take the Nozomi"))
        #expect(preview.contains("┃ Not on my deck."))
        // Assertive: no hedge when fairly sure (the saturated example is at 0.68).
        #expect(!SoulPreview.render(soul, outcome: .saturated).contains("fairly"))
    }

    @Test func allLowercasePersona() throws {
        let soul = try Self.load("lowercase.md")
        #expect(soul.capitalization == .lowercase)
        #expect(soul.formality == .casual)
        let trait = try #require(Self.trait(soul, "capitalization"))
        #expect(trait.line == 3)
        let rendered = SoulRenderer(soul: soul).style("The museum is not open. It opens at 10:00.")
        #expect(rendered == "the museum is not open. it opens at 10:00.", "lowercased, its words kept")
        // A casual register contracted the engine's words one by one: "That's what it's."
        #expect(SoulRenderer(soul: soul).style("That is what it is.") == "that is what it is.")
        // The voice's own words (leads, hedges, labels, notes) start in lowercase whatever their
        // first word; the engine's keep a capital that may be a name, and write "i" for "I".
        let preview = SoulPreview.render(soul)
        for line in preview.split(separator: "\n") where !line.hasPrefix("──") && !line.first!.isNumber {
            let sentences = line.replacingOccurrences(of: "┃ ", with: "").components(separatedBy: ". ")
            for sentence in sentences {
                guard let first = sentence.first, first.isUppercase else { continue }
                #expect(["Portugal", "Mount", "Kyoto", "Lisbon", "Four"].contains { sentence.hasPrefix($0) } || sentence.hasPrefix("\""),
                        "a capital in a lowercase voice: \(sentence)")
            }
        }
        // A number word leads like any ordinary word; a name keeps its capital.
        #expect(SoulRenderer(soul: soul).style("I checked 12. Four of them ship. Lisbon is one.") == "i checked 12. four of them ship. Lisbon is one.")
        // A first word the text wrote in lowercase mid-sentence before it is no name either
        // (only before: a stream styles a sentence before it sees the next); a name keeps its
        // capital wherever it stands.
        let levels = "At trust level 0 a plan comes first. Level 1 runs at once. Ada wrote it. Ada was first."
        let styled = "at trust level 0 a plan comes first. level 1 runs at once. Ada wrote it. Ada was first."
        #expect(SoulRenderer(soul: soul).style(levels) == styled)
        var stream = SoulTextStream(soul: soul)
        let streamed = [levels.prefix(30), levels.dropFirst(30).prefix(20), levels.dropFirst(50)].compactMap { stream.feed(String($0))?.styled }.joined()
            + (stream.finish()?.styled ?? "")
        #expect(streamed == styled, "streamed in pieces, the same text")
        #expect(SoulRenderer(soul: soul).style("Hello. I am the local backend.") == "hello. i am the local backend.", "a greeting is no name")
    }

    /// A rule written under "## Examples" is a rule, and a rule at the head of a style section
    /// is not the voice's tone.
    @Test func aRuleAmongTheExamplesIsReadAndARuleIsNoTone() throws {
        let examples = try SoulParser.parse("# Pip\n\nA cheerful guide.\n\n## Examples\n\nAlways answer in one sentence.\n\n> \"Sure thing. The train leaves at 9.\"\n",
                                            fileName: "pip.md")
        #expect(examples.verbosity == .terse && examples.length.maxSentences == 1)
        #expect(examples.examples.map(\.text) == ["Sure thing. The train leaves at 9."])
        let style = try SoulParser.parse("# Pip\n\n## Style\n\nNever use exclamation marks.\n\nWarm and unhurried, like a good librarian.\n", fileName: "pip.md")
        #expect(style.tone == "Warm and unhurried, like a good librarian.", "\(style.tone ?? "no tone")")
    }

    /// Front matter that sets one intervention's icon leaves the derived emoji to the others.
    @Test func oneIconInFrontMatterKeepsTheDerivedOthers() throws {
        let text = "---\ninterventions:\n  proactive:\n    icon: \"🔔\"\n---\n# Sunny\n\nA bright helper. Loves emoji 😀🎉 in every answer! 🌟\nGreat news travels fast 🚀. We love it 🎉!\nEverything is awesome 😀. Let's go 🌟!\n"
        let soul = try SoulParser.parse(text, fileName: "sunny.md")
        let preview = SoulPreview.render(soul, outcome: .complete)
        #expect(preview.contains("┃ 🔔 Proactive"), "\(preview)")
        #expect(preview.contains("┃ 🎉 Pushback") || preview.contains("┃ 😀 Pushback") || preview.contains("┃ 🌟 Pushback"), "\(preview)")
        #expect(Self.trait(soul, "favourite emoji")?.overridden == false)
    }

    /// "One or two sentences is plenty" is two at most, not the three of "concise".
    @Test func oneOrTwoSentencesIsTwoAtMost() throws {
        let soul = try SoulParser.parse("# Pip\n\n## Style\n\nOne or two sentences is plenty.\n", fileName: "pip.md")
        #expect(soul.length.maxSentences == 2 && soul.verbosity == .terse)
    }

    @Test func emojiHeavyPersona() throws {
        let soul = try Self.load("emoji.md")
        #expect(soul.emoji == .allowed)
        #expect(soul.favouriteEmoji.first == "🌞" || soul.favouriteEmoji.first == "🎉")
        #expect(soul.exclamatory)
        let preview = SoulPreview.render(soul, outcome: .bounded)
        #expect(preview.contains("before finishing!"))  // the framing takes the persona's "!"
        #expect(soul.favouriteEmoji.contains { preview.contains($0) })
    }

    @Test func japanesePersonaIsAnsweredInJapanese() throws {
        let soul = try Self.load("ja-SOUL.md")
        #expect(soul.name == "案内人アオイ")
        #expect(soul.language == "ja")
        #expect(soul.formality == .formal)
        #expect(soul.boundaries.count == 2)
        let preview = SoulPreview.render(soul, outcome: .bounded)
        #expect(preview.contains("途中までの回答です"))
        #expect(preview.contains("€3.20"))  // facts untouched
        #expect(SoulPrompts().systemPrompt(soul: soul).contains("- Answer in ja unless the person writes in another language."))
    }

    @Test func germanPersonaIsAnsweredInGerman() throws {
        let soul = try Self.load("de-SOUL.md")
        #expect(soul.language == "de")
        #expect(soul.formality == .casual)
        let preview = SoulPreview.render(soul, outcome: .inconclusive)
        #expect(preview.contains("Die Quellen widersprechen sich."))
        #expect(preview.contains("Du könntest als Nächstes fragen"))
    }

    @Test func everyDerivedTraitPointsToItsSourceLine() throws {
        var seen: Set<String> = []
        for name in Self.personas {
            let soul = try Self.load(name)
            let report = SoulShow.derived(soul)
            for trait in soul.traits {
                seen.insert(trait.name)
                #expect(report.contains("\(trait.file):\(trait.line):"), "\(name): \(trait.name) has no location in the report")
                let text = try String(contentsOf: URL(fileURLWithPath: trait.file), encoding: .utf8)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                try #require(trait.line >= 1 && trait.line <= lines.count, "\(name): \(trait.name) points past the end")
                let line = MarkdownSoulReader.plainText(String(lines[trait.line - 1]))
                #expect(!line.trimmedSpaces.isEmpty, "\(name): \(trait.name) points to a blank line")
                // A statement's evidence is the line itself.
                let evidence = trait.evidence.hasSuffix("…") ? String(trait.evidence.dropLast()) : trait.evidence
                if !evidence.hasPrefix("about "), !evidence.contains(" of "), !evidence.contains(" emoji "), !evidence.contains(" exclamation ") {
                    #expect(line.contains(evidence.prefix(20)), "\(name): \(trait.name) evidence \"\(evidence)\" is not on line \(trait.line): \(line)")
                }
            }
        }
        for name in ["name", "language", "verbosity", "length", "formality", "capitalization", "emoji", "favourite emoji", "punctuation",
                     "hedging", "opener", "closer", "refusal", "signature", "words used", "words avoided", "words replaced", "refuses"] {
            #expect(seen.contains(name), "no fixture derives \(name)")
        }
    }

    /// `soul show --derived` quoted a long boundary cut mid-word ("Speaks about experien"),
    /// which reads as the persona's own typo; it is cut after a word and marked as cut.
    @Test func aLongBoundaryIsQuotedToAWholeWord() throws {
        let text = """
        # Ada

        I am Ada, a printer.

        ## Boundaries
        - Won't trash other printers or their presses, and speaks about experience rather than taking sides.
        - Keep the manifest private.
        """
        let (soul, _) = SoulAnalyzer.analyze(text: text, fileName: "ada.md")
        let refuses = try #require(soul.traits.first { $0.name == "refuses" })
        #expect(refuses.value == "2 boundaries, e.g. Won't trash other printers or their presses, and speaks…", "\(refuses.value)")
        // Cut in the word after a sentence's end: the quotation is that sentence.
        let cutAfterASentence = text.replacingOccurrences(of: ", and speaks about experience rather than taking sides.",
                                                          with: " directly. Speaking plainly, always.")
        let sentence = try #require(SoulAnalyzer.analyze(text: cutAfterASentence, fileName: "ada.md").0.traits.first { $0.name == "refuses" })
        #expect(sentence.value == "2 boundaries, e.g. Won't trash other printers or their presses directly.", "\(sentence.value)")
    }

    @Test func oddInputNeverCrashes() throws {
        let long = String(repeating: "word ", count: 50_000)
        let odd = [
            "", "#", "# ", "---", "---\n---", "```", "<!--", "> ", "- ", "❌", "**Good:**", "**Bad:**\n> ",
            "# SOUL.md - \n\nYou are ", "## Never\n- \n- \"\"", String(repeating: "# h\n", count: 2_000),
            "Open with \"" + long, "# A\n\n" + long, String(repeating: "🎉", count: 10_000), "\u{FEFF}# B\r\n\r\nI am \r\n",
        ]
        for text in odd {
            let (soul, _) = SoulAnalyzer.analyze(text: text, fileName: "odd.md")
            _ = SoulPreview.render(soul)
            _ = SoulPrompts().systemPrompt(soul: soul)
        }
    }

    /// `soul show --derived` never lists a trait with nothing after its location: a trait
    /// read from the front matter (words used, at `vocabulary.prefer`) quotes that line.
    @Test func everyListedTraitQuotesItsEvidence() throws {
        var souls = try Self.personas.map { ($0, try SoulParser.load(contentsOf: Self.styles.appendingPathComponent($0), allTraits: true)) }
        souls += try Paths.shippedSouls.map { ($0.lastPathComponent, try SoulParser.load(contentsOf: $0, allTraits: true)) }
        souls += try RealWorldFilesTests.wildFiles.map { ($0, try SoulParser.load(contentsOf: Paths.fixture($0), allTraits: true)) }
        for (name, soul) in souls {
            for trait in soul.traits {
                #expect(!trait.evidence.trimmingCharacters(in: .whitespaces).isEmpty, "\(name): \(trait.name) has no evidence")
            }
            for line in SoulShow.derived(soul).split(separator: "\n") where line.hasPrefix("    ") {
                #expect(!line.hasSuffix(": "), "\(name): \(line)")
            }
        }
        let defaultSoul = try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("default.md"), allTraits: true)
        let words = try #require(Self.trait(defaultSoul, "words used"))
        let text = try String(contentsOf: Paths.souls.appendingPathComponent("default.md"), encoding: .utf8)
        let preferLine = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("prefer: [") }) + 1
        #expect(words.line == preferLine && words.evidence.contains("help"), "\(words), the prefer line is \(preferLine)")
    }

    /// A trait word inside a negation or a contrast says the opposite: "instead of hedging
    /// every sentence" does not make a persona cautious (Souls/default.md was read so).
    @Test(arguments: [
        "When the evidence is thin I say so once, plainly, instead of hedging every sentence.",
        "Say it once rather than hedging every line.",
        "I don't hedge.",
        "Never hedges.",
        "Avoid hedging.",
        "Not tentative, not vague.",
        // steipete's STYLE.md: "He prefers concrete over abstract, opinion over hedge".
        "He prefers concrete over abstract, opinion over hedge.",
    ])
    func aNegatedOrContrastedMentionDoesNotSetTheTrait(_ sentence: String) throws {
        let soul = try SoulParser.parse("# Vox\n\n## Voice\n\nWarm and clear. \(sentence)\n", fileName: "vox.md", allTraits: true)
        #expect(Self.trait(soul, "hedging")?.value != "cautious", "\(sentence): \(soul.traits)")
        #expect(soul.hedging != .cautious)
    }

    /// A vocabulary entry that says how one term is written ("**yolo** — lowercase, always")
    /// is that term's rule; the voice's capitalisation stays as the rest of the file has it.
    @Test(arguments: [
        "- **yolo** — lowercase, always. Said at launches.",
        "- **ship it**: lowercase, always.",
        "- `gm` - lowercase only, every morning.",
    ])
    func aRuleAboutOneTermDoesNotLowercaseTheVoice(_ entry: String) throws {
        let text = "# Vox\n\n## Voice\n\nWarm and clear. Short sentences.\n\n## Vocabulary\n\n\(entry)\n"
        let soul = try SoulParser.parse(text, fileName: "vox.md", allTraits: true)
        #expect(soul.capitalization != .lowercase, "\(entry): \(soul.traits)")
        // Said of the writing itself, it still counts.
        let stated = try SoulParser.parse("# Vox\n\n## Voice\n\nMessages — lowercase, always.\n", fileName: "vox.md")
        #expect(stated.capitalization == .lowercase)
    }

    /// Uncertainty about named topics is not a hedging voice; hedging on everything is.
    @Test func uncertaintyAboutNamedTopicsIsNotACautiousVoice() throws {
        let topics = try SoulParser.parse(
            "# Vox\n\n## Boundaries\n\n- **Will express uncertainty on:** rocket timelines; markets abroad; anything in biology.\n",
            fileName: "vox.md", allTraits: true)
        #expect(topics.hedging != .cautious, "\(topics.traits)")
        let everything = try SoulParser.parse("# Vox\n\n## Voice\n\nHedges on everything, qualifies every claim.\n", fileName: "vox.md")
        #expect(everything.hedging == .cautious)
    }

    @Test func aContrastCountsTheOtherWayForEveryStatement() throws {
        let warm = try SoulParser.parse("# Vox\n\n## Voice\n\nWarm and direct rather than formal.\n", fileName: "vox.md")
        #expect(warm.formality != .formal)
        let plain = try SoulParser.parse("# Vox\n\n## Voice\n\nPlain words instead of long, detailed answers.\n", fileName: "vox.md")
        #expect(plain.verbosity != .detailed)
        // Still read the right way round when there is no contrast.
        #expect(try SoulParser.parse("# Vox\n\n## Voice\n\nCareful and tentative; hedges often.\n", fileName: "vox.md").hedging == .cautious)
        #expect(try SoulParser.parse("# Vox\n\n## Voice\n\nInstead, formal and polite.\n", fileName: "vox.md").formality == .formal)
    }

    @Test func theDefaultSoulIsNotReadAsCautious() throws {
        let soul = try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("default.md"), allTraits: true)
        #expect(Self.trait(soul, "hedging")?.value != "cautious", "\(soul.traits)")
    }

    @Test func plainIsABuiltInSoul() throws {
        let catalog = SoulCatalog(directories: [], includeBuiltIn: true)
        #expect(try catalog.load("plain") == Soul.plain)
        #expect(catalog.entries().contains { $0.id == "plain" })
        // Listed and loadable, so also a built-in by id (it answered nil).
        #expect(SoulCatalog.builtIn("plain") == Soul.plain)
    }
}

extension Soul {
    /// The soul without its prose and companion files: what a prompt lists of it then stands
    /// alone, instead of being left to the persona's text the prompt would carry.
    var withoutPersonaText: Soul {
        var soul = self
        soul.body = ""
        soul.companions = []
        return soul
    }
}
