import Foundation
import Testing
import ReceptionCore
@testable import ReceptionSoul
import ReceptionTestSupport

/// Persona files other people published (`../shared/real-souls`, third-party text read in
/// place and never copied into the project): each SOUL.md with its STYLE.md, laid out as the
/// folder their author's template asks for. What a person authoring or choosing a soul would
/// notice if it were read wrong.
@Suite("Published personas", .needsShared("real-souls/aaronjmars"), .onTheCPULane)
struct PublishedPersonaTests {
    static let published = SharedData.url("real-souls/aaronjmars")

    /// The persona `name` as a soul folder (SOUL.md and STYLE.md) in a fresh temporary folder.
    static func load(_ name: String) throws -> Soul {
        let folder = Scratch.root.appendingPathComponent("published-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in ["SOUL", "STYLE"] {
            try FileManager.default.copyItem(at: published.appendingPathComponent("examples_\(name)_\(file).md"),
                                             to: folder.appendingPathComponent("\(file).md"))
        }
        return try SoulParser.load(contentsOf: folder)
    }

    static func trait(_ soul: Soul, _ name: String) -> SoulTrait? { soul.traits.first { $0.name == name } }

    /// "`lfg` — lowercase. No variants. `let's gooo` is off-voice.": the phrase after the dash
    /// is one he does not say, and "lowercase, always" is about that one word.
    @Test func garryTanSaysLfgButNotLetsGoooAndWritesInSentenceCase() throws {
        let soul = try Self.load("garry-tan")
        #expect(soul.signaturePhrases.contains("lfg"))
        #expect(!soul.signaturePhrases.contains { $0.lowercased().hasPrefix("let's go") }, "\(soul.signaturePhrases)")
        #expect(soul.capitalization != .lowercase)
        // Assertive, and for a reason about his writing: not "Californian by conviction" in his
        // biography, nor "not a hedge" about his politics, nor the one topic list he is unsure on.
        #expect(soul.hedging == .assertive)
        let hedging = try #require(Self.trait(soul, "hedging"))
        #expect(hedging.file.hasSuffix("STYLE.md") && hedging.evidence.hasPrefix("Declarative."), "\(hedging)")
    }

    /// "**agent / agents / agentic**" names three words; an epigraph's opening quotation mark
    /// is not left dangling in the description.
    @Test func steinbergersSlashedWordsAreWordsOfTheirOwn() throws {
        let soul = try Self.load("steipete")
        for word in ["agent", "agentic", "claude code", "gpt-5"] {
            #expect(soul.vocabulary.prefer.contains(word), "\(word) in \(soul.vocabulary.prefer)")
        }
        for word in ["empower", "state-of-the-art"] {
            #expect(soul.vocabulary.avoid.contains(word), "\(word) in \(soul.vocabulary.avoid)")
        }
        #expect(soul.vocabulary.prefer.allSatisfy { !$0.contains(" / ") }, "\(soul.vocabulary.prefer)")
        #expect(soul.summary == "I'm a builder at heart.")
    }

    /// "No `utilize` when `use` works": utilize is written as use (and use is not avoided);
    /// "No `folks` — he says `people`, `founders`, `everyone`" names three, which depend on
    /// who is addressed, so folks is only avoided.
    @Test func garryTanWritesUseForUtilize() throws {
        let soul = try Self.load("garry-tan")
        #expect(!soul.vocabulary.avoid.contains("use"), "\(soul.vocabulary.avoid)")
        #expect(soul.vocabulary.replace.contains(VocabularyReplacement(avoid: "utilize", prefer: "use")), "\(soul.vocabulary.replace)")
        #expect(soul.vocabulary.avoid.contains("folks"))
        #expect(!soul.vocabulary.replace.contains { $0.avoid == "folks" }, "\(soul.vocabulary.replace)")
    }

    /// "No `folks` — he says `people` or addresses the audience directly": one word in its place.
    @Test func karpathySaysPeopleForFolks() throws {
        let soul = try Self.load("karpathy")
        #expect(soul.vocabulary.replace.contains(VocabularyReplacement(avoid: "folks", prefer: "people")), "\(soul.vocabulary.replace)")
        #expect(!soul.vocabulary.replace.contains { $0.prefer == "Software 2.0" }, "a topic is no replacement: \(soul.vocabulary.replace)")
    }

    /// "**railguards**, **green gate**, **atomic commits**": every bold term is a word he uses.
    @Test func everyBoldTermOfAListItemIsAWord() throws {
        let soul = try Self.load("steipete")
        for word in ["railguards", "green gate", "atomic commits"] {
            #expect(soul.vocabulary.prefer.contains(word), "\(word) in \(soul.vocabulary.prefer)")
        }
    }

    /// "formal verification" and "no formal authority" say nothing of how Vitalik writes; how a
    /// minister opens a speech in Parliament is not how he opens an answer.
    @Test func registerAndOpenersComeFromTheVoiceNotFromOtherSensesOrVenues() throws {
        let vitalik = try Self.load("vitalik-buterin")
        #expect(vitalik.formality != .formal)
        let vivian = try Self.load("vivian-balakrishnan")
        #expect(vivian.formality == .formal)
        // "**Tone:**" over "- Default: measured, deliberate, structurally controlled." and its shifts.
        #expect(vivian.tone == "measured, deliberate, structurally controlled.", "\(vivian.tone ?? "no tone")")
        // Parliament's opener and the think tanks' ("### CFR / CSIS / Aspen / foreign think
        // tanks" under "## Platform Differences") are those venues', not every answer's.
        #expect(vivian.opener == nil, "\(vivian.opener ?? "")")
        // soul diff shows what sets them apart, read from the prose as it is.
        let differing = SoulDiff.differences(vitalik, vivian).map(\.knob)
        #expect(differing.contains("hedging") && differing.contains("formality"), "\(differing)")
    }

    /// "One emoji per sentence max … Never sprinkled" is his rule, whatever the count of 🦞 in
    /// his bio; "41k❤" is a like count, not a favourite emoji. A rule given as a list after
    /// "Emojis:" cites the list, not the heading.
    @Test func statedEmojiRulesWinOverCountsAndCountsAreNoEmoji() throws {
        let steipete = try Self.load("steipete")
        #expect(steipete.emoji == .sparing)
        #expect(!steipete.favouriteEmoji.contains { $0.hasPrefix("❤") }, "\(steipete.favouriteEmoji)")
        let garry = try Self.load("garry-tan")
        let emoji = try #require(Self.trait(garry, "emoji"))
        #expect(!emoji.evidence.hasPrefix("Emojis"), "\(emoji.evidence)")
    }

    /// A ban on one use ("`I think` stacked repeatedly. Uses it sparingly", "`disrupt` as
    /// decoration") is not a flat "never say", nor is a kind of talk described ("partisan
    /// slang from US politics"); a plain ban still is.
    @Test func conditionalBansAndDescriptionsAreNoNeverSayWords() throws {
        let vivian = try Self.load("vivian-balakrishnan")
        #expect(vivian.vocabulary.avoid.contains("awesome"))
        for word in ["I think", "disrupt", "partisan slang from US politics"] {
            #expect(!vivian.vocabulary.avoid.contains(word), "\(word) in \(vivian.vocabulary.avoid)")
        }
    }

    /// Pet peeves are things he cannot stand in others, not things he never does; "Doomers with
    /// no P&L" is one of them for all its "no".
    @Test func petPeevesAreDislikesNotProhibitions() throws {
        let garry = try Self.load("garry-tan")
        #expect(garry.boundaries.contains("Dislikes: Doomers with no P&L."), "\(garry.boundaries)")
        #expect(garry.boundaries.contains("Dislikes: Founders who fundraise before they have a product."))
        #expect(!garry.boundaries.contains { $0.hasPrefix("Never: Founders") })
        #expect(garry.boundaries.contains { $0.hasPrefix("Won't: speak for YC companies") })
    }

    /// "Calm, precise, relentlessly qualified" is cautious; the other four state their views.
    @Test func onlyVitalikHedges() throws {
        #expect(try Self.load("vitalik-buterin").hedging == .cautious)
        for name in ["garry-tan", "karpathy", "steipete", "vivian-balakrishnan"] {
            #expect(try Self.load(name).hedging == .assertive, "\(name)")
        }
    }

    /// Garry Tan's SOUL.md read on its own (without his STYLE.md): "**lfg** — lowercase, always"
    /// is how one word is written, and "Will express uncertainty on: …" names topics; neither
    /// is his voice's capitalisation or hedging.
    @Test func aTermsSpellingAndTopicsOfUncertaintyAreNotTheVoice() throws {
        let soul = try SoulParser.load(contentsOf: SharedData.url("real-souls/aaronjmars/examples_garry-tan_SOUL.md"), allTraits: true)
        #expect(soul.capitalization != .lowercase, "\(soul.traits)")
        #expect(soul.hedging != .cautious, "\(soul.traits)")
    }

    /// Each of them writes about em dashes ("used sparingly, never as a comma substitute",
    /// "one per tweet, two max", "as a verbal tic" among things not to do): limits on them, so
    /// none bans them.
    @Test func limitsOnEmDashesAreNoBan() throws {
        for name in ["garry-tan", "karpathy", "steipete", "vitalik-buterin", "vivian-balakrishnan"] {
            let soul = try Self.load(name)
            #expect(soul.dashes == .allowed, "\(name): \(String(describing: Self.trait(soul, "dashes")))")
        }
    }

    /// The author's blank template (SOUL.template.md, STYLE.template.md) as a folder: its
    /// comments, "[placeholders]" and unticked checklist items are not a persona's traits.
    @Test func theBlankTemplateYieldsNoTraitsFromItsBlanks() throws {
        let folder = Scratch.root.appendingPathComponent("published-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in ["SOUL", "STYLE"] {
            try FileManager.default.copyItem(at: Self.published.appendingPathComponent("\(file).template.md"), to: folder.appendingPathComponent("\(file).md"))
        }
        let soul = try SoulParser.load(contentsOf: folder)
        #expect(soul.name == folder.lastPathComponent, "a placeholder title gives the folder's name, not \(soul.name)")
        #expect(soul.summary.map { !$0.hasPrefix("<!--") } ?? true, "\(soul.summary ?? "")")
        for trait in ["tone", "capitalization", "emoji", "hedging", "words used", "words avoided"] {
            #expect(Self.trait(soul, trait) == nil, "\(trait) from a blank: \(String(describing: Self.trait(soul, trait)))")
        }
        #expect(soul.boundaries.allSatisfy { !$0.contains("[") }, "\(soul.boundaries)")
    }

    /// Every published persona reads without an error, with its own name and voice traits.
    @Test func everyPersonaReadsWithoutErrors() throws {
        let names = ["garry-tan", "karpathy", "steipete", "vitalik-buterin", "vivian-balakrishnan"]
        for name in names {
            let soul = try Self.load(name)
            #expect(!soul.name.isEmpty && soul.name.lowercased() != "soul", "\(name): \(soul.name)")
            #expect(soul.traits.count >= 10, "\(name): \(soul.traits.map(\.name))")
            #expect(!soul.boundaries.isEmpty, "\(name)")
        }
    }
}
