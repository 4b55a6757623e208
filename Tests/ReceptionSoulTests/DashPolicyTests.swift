import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionSoul

/// A persona that writes no dashes ("zero em-dashes. ever. commas, periods, or two sentences",
/// as a SOUL.md published in another repository says): read from its prose or front matter,
/// and the engine's dashes between clauses come out as commas, never inside quotes or code.
@Suite("Dash policy", .onTheCPULane)
struct DashPolicyTests {
    static let soul: Soul = {
        var soul = Soul(name: "d")
        soul.dashes = .none
        return soul
    }()

    func styled(_ text: String) -> String { SoulRenderer(soul: Self.soul).style(text) }

    @Test func aDashBetweenClausesBecomesAComma() {
        #expect(styled("The bridge opened in 1932 — it was the longest.") == "The bridge opened in 1932, it was the longest.")
        #expect(styled("Fast—and cheap.") == "Fast, and cheap.")
        #expect(styled("Two options – both slow.") == "Two options, both slow.")
        #expect(styled("Pick one -- the rest can wait.") == "Pick one, the rest can wait.")
        #expect(styled("It works; — mostly.") == "It works; mostly.")
    }

    @Test func quotesCodeRangesAndFlagsKeepTheirDashes() {
        let text = "He said “a — b”. Run `make -- all` with --force, for 2020–2021.\n\n```\nx — y\n```\n"
        #expect(styled(text) == text)
    }

    @Test func aDashOpeningALineIsDropped() {
        #expect(styled("Stay hungry.\n— Someone") == "Stay hungry.\nSomeone")
    }

    @Test func withoutThePolicyDashesStay() {
        let text = "The bridge opened in 1932 — it was the longest."
        #expect(SoulRenderer(soul: Soul(name: "plain")).style(text) == text)
    }

    @Test func everySplitOfAStreamGivesTheWholeText() {
        let text = "One thing — then another—and a third. Keep “x — y” as it is — done."
        let whole = styled(text)
        #expect(whole == "One thing, then another, and a third. Keep “x — y” as it is, done.")
        for split in 1..<text.unicodeScalars.count {
            let out = streamedInTwo(text, soul: Self.soul, split: split)
            #expect(out == whole, "split at \(split)")
            if out != whole { break }
        }
    }

    @Test func aBanInTheProseSetsThePolicyWithItsLine() throws {
        let soul = try SoulParser.parse("""
        # Wren

        ## how i sound

        - short lines. no padding.
        - zero em-dashes. ever. commas or full stops.
        """, fileName: "SOUL.md")
        #expect(soul.dashes == .none)
        let trait = try #require(soul.traits.first { $0.name == "dashes" })
        #expect(trait.line == 6 && trait.value == "none", "\(trait)")
        #expect(SoulPrompts().systemPrompt(soul: soul).contains("Never put a dash between clauses"))
        #expect(SoulPrompts().rewritePrompt(soul: soul, text: "x").contains("No dashes between clauses"))
    }

    @Test func aLimitOrAnAffirmationIsNoBan() throws {
        for line in ["Em dashes used sparingly, never as a comma substitute.", "Em dashes for asides.", "No more than one em dash per paragraph.",
                     "A dash of humour, never sarcasm."] {
            let soul = try SoulParser.parse("# Wren\n\n## Voice\n\n- \(line)\n", fileName: "SOUL.md")
            #expect(soul.dashes == .allowed, "\(line)")
        }
        let listed = try SoulParser.parse("# Wren\n\n## Never\n\n- Em dashes\n- Exclamation marks\n", fileName: "SOUL.md")
        #expect(listed.dashes == .none, "a bare item under Never")
    }

    @Test func frontMatterSetsItAndABadValueIsLocated() throws {
        let set = try SoulParser.parse("---\ndashes: none\n---\n# Wren\n\nEm dashes for asides.\n", fileName: "SOUL.md")
        #expect(set.dashes == .none)
        let diagnostics = SoulLinter.lint(text: "---\ndashes: never\n---\n# Wren\n", fileName: "SOUL.md")
        let error = try #require(diagnostics.errors.first)
        #expect(error.line == 2 && error.message.contains("`dashes` must be one of allowed, none"), "\(error.message)")
    }

    @Test func lintWarnsOnAnExampleInTheVoiceWithADash() throws {
        let diagnostics = SoulLinter.lint(text: """
        ---
        dashes: none
        ---
        # Wren

        ## Examples

        **Good:** "Shipped it — tests are green."
        """, fileName: "SOUL.md")
        #expect(diagnostics.warnings.contains { $0.line == 8 && $0.message.contains("em dash") }, "\(diagnostics)")
    }
}
