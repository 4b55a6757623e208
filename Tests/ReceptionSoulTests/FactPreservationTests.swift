import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionSoul

/// The renderer may change wording, never facts.
@Suite("Fact preservation", .onTheCPULane)
struct FactPreservationTests {
    /// A soul that would damage facts if protection failed: it replaces words that also
    /// occur inside URLs, code, quotes, names and units, lowercases, and strips emoji.
    static let aggressive: Soul = {
        var soul = Soul(name: "aggressive")
        soul.capitalization = .lowercase
        soul.emoji = .never
        soul.vocabulary.replace = [
            VocabularyReplacement(avoid: "utilize", prefer: "use"),
            VocabularyReplacement(avoid: "example", prefer: "sample"),
            VocabularyReplacement(avoid: "km", prefer: "kilometres"),
            VocabularyReplacement(avoid: "apple", prefer: "pear"),
            VocabularyReplacement(avoid: "docs", prefer: "documents"),
            VocabularyReplacement(avoid: "run", prefer: "execute"),
            VocabularyReplacement(avoid: "in order to", prefer: "to"),
            VocabularyReplacement(avoid: "said", prefer: "stated"),
            VocabularyReplacement(avoid: "percent", prefer: "pc"),
        ]
        return soul
    }()

    /// Facts that must survive byte for byte.
    static let facts = [
        "https://example.com/docs/run?q=utilize&x=1",
        "`swift run --example utilize`",
        "\"we utilize the apple example\"",
        "“Run the docs”",
        "12.5 km",
        "3.2GB",
        "$40M",
        "2026-02-10",
        "v1.2.3",
        "Apple",
        "iPhone",
        "NASA",
        "Example Corp",
        "ops@example.com",
        "[the docs](https://docs.example.com/run)",
        "45 percent",
        "‘utilize’",
    ]

    static let summary = """
    To utilize the cache in order to run faster, see https://example.com/docs/run?q=utilize&x=1 and run \
    `swift run --example utilize` today. The vendor said "we utilize the apple example" and the manual says “Run the docs” 🚀. \
    The route is 12.5 km long, the image is 3.2GB, the round raised $40M on 2026-02-10 with v1.2.3. Talk to Apple about the \
    iPhone or to NASA, or to Example Corp at ops@example.com. Read [the docs](https://docs.example.com/run) first. \
    Growth was 45 percent. Some call it ‘utilize’ anyway.
    """

    @Test func styledProseKeepsEveryFactByteForByte() {
        let styled = SoulRenderer(soul: Self.aggressive).style(Self.summary)
        for fact in Self.facts {
            #expect(styled.utf8.contains(fact.utf8), "lost: \(fact)\n\(styled)")
        }
        // …while the soul's rules did apply to ordinary prose.
        #expect(styled.hasPrefix("to use the cache to execute faster"), "\(styled)")
        #expect(styled.contains("and execute `swift"))
        #expect(styled.contains("The vendor stated \"we") == false)
        #expect(styled.contains("the vendor stated \"we utilize the apple example\""))
        #expect(!styled.contains("🚀"))
    }

    @Test func renderedResultKeepsFacts() {
        let response = BackendResult(
            taskID: "r1", outcome: .inconclusive,
            findings: [Finding(content: "Sensor A reads 21.4 °C at 10:30; see `sensor --id A7`.", source: "https://lab.example.org/a7"),
                       Finding(content: "Sensor B said \"27 degrees\" at 10:31.", source: "log-B.txt")],
            text: Self.summary, confidence: 0.4,
            discrepancy: "A says 21.4 °C, B says \"27 degrees\"; 5.6 °C apart.",
            followups: [.plain("Which sensor was calibrated on 2026-01-03?"), SuggestedFollowup(parsing: "[scoping] Split the 3 rooms into separate checks")])
        let blocks = SoulRenderer(soul: Self.aggressive).render(response, trustLevel: 0)
        let all = blocks.map { ([$0.title ?? "", $0.markdown] + $0.items).joined(separator: "\n") }.joined(separator: "\n")
        for fact in Self.facts + ["21.4 °C", "10:30", "`sensor --id A7`", "https://lab.example.org/a7", "\"27 degrees\"", "10:31", "log-B.txt", "5.6 °C", "2026-01-03", "3 rooms"] {
            #expect(all.utf8.contains(fact.utf8), "lost: \(fact)")
        }
        // Follow-up items are passed on exactly (people may send them as their next message).
        #expect(blocks.first { $0.role == .followups }?.items == ["Which sensor was calibrated on 2026-01-03?"])
    }

    @Test func errorMessagesAreNeverRestyled() {
        let message = "Server said: utilize failed at https://x.example/run (HTTP 503)."
        let blocks = SoulRenderer(soul: Self.aggressive).render(.failure(TaskFailure(message: message)), trustLevel: 0)
        #expect(blocks.first?.markdown == message)
    }

    @Test func fencedAndIndentedCodeAndBlockQuotesPassThrough() {
        let text = """
        Utilize this:

        ```swift
        let example = utilize(apple)   // run it
        ```

            indented utilize example
        > quoted utilize example line
        Then run it.
        """
        let styled = SoulRenderer(soul: Self.aggressive).style(text)
        #expect(styled.contains("```swift\nlet example = utilize(apple)   // run it\n```"))
        #expect(styled.contains("    indented utilize example"))
        #expect(styled.contains("> quoted utilize example line"))
        #expect(styled.hasPrefix("use this:"))
        #expect(styled.hasSuffix("then execute it."))
    }

    @Test func identitySoulReturnsTheTextUnchanged() {
        var soul = Soul(name: "n")
        soul.emoji = .allowed
        let text = Self.summary + "\n\n  odd   spacing\t\there 🚀 "
        #expect(SoulRenderer(soul: soul).style(text) == text)
        // A soul whose rules match nothing also gives back identical bytes.
        #expect(SoulRenderer(soul: Self.aggressive).style("plain words only, nothing to change") == "plain words only, nothing to change")
    }

    @Test func replacementsAreWholeWordAndCasePreserving() {
        var soul = Soul(name: "v")
        soul.vocabulary.replace = [VocabularyReplacement(avoid: "utilize", prefer: "use"), VocabularyReplacement(avoid: "in order to", prefer: "so as to")]
        let renderer = SoulRenderer(soul: soul)
        #expect(renderer.style("Utilize it. We utilize it. UTILIZE IT. utilized. reutilize.") == "Use it. We use it. USE IT. utilized. reutilize.")
        #expect(renderer.style("In order to win, work in order to learn; IN ORDER TO") == "So as to win, work so as to learn; SO AS TO")
        // A phrase broken by punctuation or a line break is not a phrase.
        #expect(renderer.style("in order, to win; in\norder to") == "in order, to win; in\norder to")
    }
}

@Suite("Renderer internals", .onTheCPULane)
struct RendererInternalsTests {
    @Test func quickNoMatchCheckAgreesWithTheFullPass() {
        var soul = Soul(name: "q")
        soul.vocabulary.replace = [VocabularyReplacement(avoid: "utilize", prefer: "use"), VocabularyReplacement(avoid: "in order to", prefer: "to")]
        let styler = ProseStyler(soul: soul)
        for text in ["nothing here", "UTILIZE now", "x-utilize", "in the end", "order in", "utilized", "café utilize", "in order to win"] {
            var state = ProseStyler.State()
            let full = styler.style(text, state: &state)
            #expect(styler.style(text) == full, "\(text)")
        }
    }
}
