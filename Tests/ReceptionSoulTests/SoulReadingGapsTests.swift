import ReceptionCore
import Testing
import ReceptionTestSupport
@testable import ReceptionSoul

/// Two gaps found in the soul reader: bad example outputs read as boundaries, and a
/// Vibe written as "Sharp but friendly" that set no tone.
@Suite("Soul reading gaps", .onTheCPULane)
struct SoulReadingGapsTests {
    @Test func aBadExampleLineIsNotABoundary() throws {
        let soul = try SoulParser.parse("""
        # SOUL.md - Flint

        ## Boundaries

        - Never share private data.

        ## Examples

        ✅ "Done. The build is green."
        ❌ "OMG!!! I'm SO excited to help you with this!!!"
        """, fileName: "SOUL.md")
        #expect(soul.boundaries == ["Never share private data."], "\(soul.boundaries)")
        #expect(soul.examples.contains { !$0.good && $0.text.contains("SO excited") })
        #expect(soul.examples.contains { $0.good && $0.text.contains("build is green") })
    }

    /// Tact is not register: a persona that is "diplomatic but frank" about former colleagues
    /// does not write formally (a published persona was read as formal for this).
    @Test func tactIsNotAFormalRegister() throws {
        let soul = try SoulParser.parse("""
        # SOUL.md - Quill

        ## Voice

        Energy: measured, seasoned, diplomatic but frank. Talks like a friend at a bar.
        """, fileName: "SOUL.md")
        #expect(soul.formality != .formal, "\(soul.formality)")
        let polite = try SoulParser.parse("""
        # SOUL.md - Quill

        ## Voice

        Polite and formal, always.
        """, fileName: "SOUL.md")
        #expect(polite.formality == .formal)
    }

    /// `soul show --derived` lists where the description and the tone came from, like every
    /// other trait read from the prose; front matter that sets them is not listed.
    @Test func theDescriptionAndTheToneAreListedWithTheirLines() throws {
        let soul = try SoulParser.parse("""
        # SOUL.md - Quill

        A retired lighthouse keeper who answers in few words.

        ## Vibe

        - Dry but kind
        - Never rushes
        """, fileName: "SOUL.md", allTraits: true)
        let description = soul.traits.first { $0.name == "description" }
        #expect(description?.value == "A retired lighthouse keeper who answers in few words.")
        #expect(description?.line == 3, "\(String(describing: description))")
        let tone = soul.traits.first { $0.name == "tone" }
        #expect(tone?.value == "Dry but kind" && tone?.line == 7, "\(String(describing: tone))")
        #expect(SoulShow.derived(soul).contains("SOUL.md:7: Dry but kind"), "\(SoulShow.derived(soul))")

        let set = try SoulParser.parse("""
        ---
        description: Keeper of the light.
        tone: dry
        ---
        # SOUL.md - Quill

        A retired lighthouse keeper.
        """, fileName: "SOUL.md", allTraits: true)
        #expect(!set.traits.contains { $0.name == "description" || $0.name == "tone" }, "\(set.traits.map(\.name))")
    }

    /// A style file that opens with a note on how to use it ("Voice rules. Use this file with
    /// SOUL.md") takes its tone from the paragraph after the note, not from the note.
    @Test func aNoteOnTheFilesIsNotTheTone() throws {
        let soul = try SoulParser.parse("""
        # STYLE - Quill

        Voice rules. Read this file with `SOUL.md`.

        Dry, unhurried, exact.
        """, fileName: "STYLE.md", allTraits: true)
        #expect(soul.tone == "Dry, unhurried, exact.", "\(String(describing: soul.tone))")
    }

    @Test func aCrossedOutLineUnderBoundariesIsStillABoundary() throws {
        let soul = try SoulParser.parse("""
        # SOUL.md - Flint

        ## Examples

        ✅ "Done."

        ## Boundaries

        ❌ Share private data.
        """, fileName: "SOUL.md")
        #expect(soul.boundaries.count == 1, "\(soul.boundaries)")
        #expect(soul.boundaries.first?.contains("Share private data") == true, "\(soul.boundaries)")
    }

    @Test func aVibeLineSetsTheTone() throws {
        let paragraph = try SoulParser.parse("# SOUL.md - Flint\n\n## Vibe\n\nSharp but friendly\n", fileName: "SOUL.md")
        #expect(paragraph.tone == "Sharp but friendly", "\(paragraph.tone ?? "nil")")
        let rule = try SoulParser.parse("# SOUL.md - Flint\n\n## Core Truths\n\n- **Vibe:** Sharp but friendly.\n- Be useful.\n", fileName: "SOUL.md")
        #expect(rule.tone == "Sharp but friendly.", "\(rule.tone ?? "nil")")
        let item = try SoulParser.parse("# SOUL.md - Flint\n\n## Vibe\n\n- Sharp but friendly\n- Never boring\n", fileName: "SOUL.md")
        #expect(item.tone == "Sharp but friendly", "\(item.tone ?? "nil")")
        // A list of rules under the heading sets no tone.
        let rules = try SoulParser.parse("# SOUL.md - Flint\n\n## Vibe\n\n- Use short sentences\n- Never: emoji\n", fileName: "SOUL.md")
        #expect(rules.tone == nil, "\(rules.tone ?? "nil")")
    }

    /// An all-lowercase persona names itself in lowercase ("i'm wren."), as a SOUL.md published
    /// in another repository does: its name is read, and "i'm tired." names nobody.
    @Test func anAllLowercasePersonaNamesItself() throws {
        let soul = try SoulParser.parse("""
        # soul

        this is wren's voice. edit it as you like.

        ## who i am

        i'm wren. i sort the mail and i keep wren's notes short.
        """, fileName: "SOUL.md")
        #expect(soul.name == "wren", "\(soul.name)")
        let tired = try SoulParser.parse("# soul\n\n## who i am\n\ni'm tired. i answer anyway, tired or not.\n", fileName: "SOUL.md")
        #expect(tired.name != "tired", "\(tired.name)")
    }

    /// A ban written inside a line of the voice ("no \"as an ai\", no hedging"), as a SOUL.md
    /// published in another repository writes it, is an avoided phrase; a quoted word after
    /// any other word is not ("say \"no\"", "called \"the vault\"").
    @Test func aQuotedPhraseAfterNoIsAvoidedWhereverItStands() throws {
        let soul = try SoulParser.parse("""
        # soul

        ## how i sound

        - sure of myself without the gloss. no "as an ai", no hedging, never “circle back”.
        - i say "no" when i mean it. the archive is called "the vault".
        """, fileName: "SOUL.md")
        #expect(soul.vocabulary.avoid == ["as an ai", "circle back"], "\(soul.vocabulary.avoid)")
        #expect(SoulPrompts().systemPrompt(soul: soul.withoutPersonaText).contains("- Never say: \"as an ai\", \"circle back\"."))
    }

    /// A "No …" sentence negates its own sentence, not the rest of the line (a soul author's
    /// "No pleasantries. Casual, texts like a friend." was read as formal).
    @Test(arguments: [
        ("No pleasantries. Casual, texts like a friend.", "formality", "casual"),
        ("no emoji. formal.", "formality", "formal"),
        ("No slang. Formal and courteous.", "formality", "formal"),
        ("no exclamation marks. declarative.", "hedging", "assertive"),
        ("no pleasantries. declarative, no hedging.", "hedging", "assertive"),
        ("No jokes. Always lowercase.", "capitalization", "lowercase"),
    ])
    func aNegationStopsAtItsSentence(line: String, trait: String, value: String) throws {
        let soul = try SoulParser.parse("# Dex\n\n## Voice\n\n\(line)\n", fileName: "SOUL.md")
        #expect(soul.traits.first { $0.name == trait }?.value == value, "\(line): \(soul.traits.map { "\($0.name)=\($0.value)" })")
    }

    /// German, French and Spanish avoid lists: read as avoided, never as words to use (the
    /// prompt told the model to use exactly the words a German author banned).
    @Test func avoidListsInOtherLanguagesAreAvoided() throws {
        let german = try SoulParser.parse("""
        # Frau Lind

        ## Stil

        Höflich und knapp. Kurze Sätze. Keine Emojis.
        Ich sage nie „mega“ oder „lol“.

        ## Wortschatz

        Vermeiden:
        - krass
        - Bock
        """, fileName: "SOUL.md")
        #expect(Set(german.vocabulary.avoid) == ["mega", "lol", "krass", "Bock"], "\(german.vocabulary.avoid)")
        #expect(german.vocabulary.prefer.isEmpty, "\(german.vocabulary.prefer)")
        #expect(german.emoji == .never, "Keine Emojis, in the line's last sentence")
        #expect(!SoulPrompts().systemPrompt(soul: german).contains("Words you like to use"))
        let french = try SoulParser.parse("# Margot\n\n## Vocabulaire\n\nÀ éviter :\n- « genre »\n- « trop stylé »\n", fileName: "SOUL.md")
        #expect(french.vocabulary.avoid == ["genre", "trop stylé"] && french.vocabulary.prefer.isEmpty, "\(french.vocabulary)")
        let spanish = try SoulParser.parse("# Lola\n\n## Palabras prohibidas\n\n- guay\n- mola\n", fileName: "SOUL.md")
        #expect(spanish.vocabulary.avoid == ["guay", "mola"] && spanish.vocabulary.prefer.isEmpty, "\(spanish.vocabulary)")
    }

    /// "One sentence when possible." holds when the front matter sets only `verbosity` (it was
    /// marked overridden and answers ran to three sentences); `length` overrides it.
    @Test func aStatedSentenceCountHoldsUnlessTheFrontMatterSetsLength() throws {
        let body = "# Ada\n\n## Voice\n\nOne sentence when possible.\n"
        let terse = try SoulParser.parse("---\nverbosity: terse\n---\n" + body, fileName: "SOUL.md")
        #expect(terse.length.maxSentences == 1 && terse.traits.first { $0.name == "length" }?.overridden == false, "\(terse.length)")
        let set = try SoulParser.parse("---\nlength:\n  max_sentences: 4\n---\n" + body, fileName: "SOUL.md")
        #expect(set.length.maxSentences == 4 && set.traits.first { $0.name == "length" }?.overridden == true)
        // A limit that only follows from a length word gives way to the front matter's verbosity.
        let measured = try SoulParser.parse("---\nverbosity: detailed\n---\n# Ada\n\n## Voice\n\nShort answers.\n", fileName: "SOUL.md")
        #expect(measured.length.maxSentences == nil, "\(measured.length)")
    }

    /// A German soul's framing is German everywhere: the note on what a limit cut (it stayed
    /// "Left out for brevity: …"), and the leads its prompt quotes (they were English).
    @Test func aGermanSoulsLeftOutNoteAndPromptAreGerman() throws {
        let soul = try SoulParser.parse("---\nlanguage: de\nlength:\n  max_sentences: 1\n---\n# Lind\n\nEine Bibliothekarin.\n", fileName: "SOUL.md")
        let blocks = SoulRenderer(soul: soul).render(.result(BackendResult(outcome: .complete, text: "Erster Satz. Zweiter Satz. Dritter Satz.")), trustLevel: 1)
        let text = blocks.map(\.markdown).joined(separator: "\n")
        #expect(text.contains("Der Kürze halber weggelassen: 2 Sätze der Zusammenfassung."), "\(text)")
        #expect(!text.contains("Left out"), "\(text)")
        let prompt = SoulPrompts().systemPrompt(soul: soul)
        #expect(!prompt.contains("This is the best answer available."), "the English lead in a German soul's prompt")
    }

    /// Hard-wrapped prose reads as the same prose on one line: the tone is the sentence, not
    /// the first line of it, and a line break inside a sentence is no sentence end (wrapped,
    /// the same text measured "concise"; on one line, "balanced").
    @Test func hardWrappedProseReadsAsItsParagraphs() throws {
        let wrapped = try SoulParser.parse("# Hale\n\nA historian.\n\n## Voice\n\nDry, patient and\nslightly mischievous. He likes tea.\n", fileName: "SOUL.md")
        #expect(wrapped.tone == "Dry, patient and slightly mischievous.", "\(wrapped.tone ?? "nil")")
        let sentences = [
            "The keeper of the lighthouse answers every question about the coast with the patience of someone who has watched the same tide come in for forty years",
            "She knows the name of every rock, every wreck and every family along the shore, and she will tell you about them if you let her talk long enough",
            "Ask her about the weather and you will hear about the storm of nineteen sixty two, the boats that were lost and the ones that came home against the odds",
            "She never hurries an answer, because in her experience the people who hurry are the ones who end up on the rocks when the fog comes down without warning",
        ].map { $0 + "." }
        // Enough of them for a measured length (`TraitDeriver.sentencesForLength`).
        let paragraph = Array(repeating: sentences.joined(separator: " "), count: 3).joined(separator: " ")
        let oneLine = "# Keeper\n\n## Voice\n\n" + paragraph + "\n"
        var folded = "# Keeper\n\n## Voice\n\n"
        var line = ""
        for word in paragraph.split(separator: " ") {
            if line.count + word.count + 1 > 72 { folded += line + "\n"; line = "" }
            line += (line.isEmpty ? "" : " ") + word
        }
        folded += line + "\n"
        let (a, b) = (try SoulParser.parse(oneLine, fileName: "SOUL.md"), try SoulParser.parse(folded, fileName: "SOUL.md"))
        #expect(a.verbosity == b.verbosity && a.length.maxSentences == b.length.maxSentences, "one line \(a.verbosity), wrapped \(b.verbosity)")
        // A first sentence too long for a description is cut at a word, not dropped.
        let long = try SoulParser.parse("# Keeper\n\n" + sentences.prefix(2).joined(separator: " ").replacingOccurrences(of: ".", with: ",") + " and that is all.\n", fileName: "SOUL.md")
        #expect(long.summary?.hasSuffix("…") == true && (long.summary?.count ?? 0) <= 201, "\(long.summary ?? "nil")")
    }
}
