import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionSoul

/// Lists read the way their author meant them, in the two shapes published personas use that
/// are not "a list under a heading": a list under a bold label line, and a heading whose
/// negation is about how to use the words, not about the words. The files are our own,
/// written in those shapes.
@Suite("Soul list polarity", .onTheCPULane)
struct SoulListPolarityTests {
    static func load(_ name: String) throws -> Soul {
        try SoulParser.load(contentsOf: DerivedTraitsTests.styles.appendingPathComponent(name))
    }

    static func lowered(_ words: [String]) -> Set<String> { Set(words.map { $0.lowercased() }) }

    /// "**Never uses:**" then items: avoided, never words to use, in a vocabulary section and
    /// out of one, on a line of its own, as a list item over a nested list, or with its words
    /// after it on the same line.
    @Test func aListUnderANeverLabelIsAvoided() throws {
        let soul = try Self.load("bold-labels.md")
        let avoid = Self.lowered(soul.vocabulary.avoid), prefer = Self.lowered(soul.vocabulary.prefer)
        for word in ["game-changer", "synergy", "literally", "deep dive", "circle back", "bombshell"] {
            #expect(avoid.contains(word), "\(word) is not avoided: avoid \(soul.vocabulary.avoid)")
            #expect(!prefer.contains(word), "\(word) is a word to use: prefer \(soul.vocabulary.prefer)")
        }
        for word in ["on the record", "filed", "scoop", "copy desk"] {
            #expect(prefer.contains(word), "\(word) is not a word to use: prefer \(soul.vocabulary.prefer)")
        }
        // The labels themselves are no words.
        #expect(!(avoid.union(prefer)).contains { $0.contains("never") || $0.contains("reaches") }, "\(avoid) \(prefer)")
        // "**Won't:**" under the voice: things she does not do, not her voice.
        #expect(soul.boundaries.contains("Never: print a rumour as news"), "\(soul.boundaries)")
        #expect(!soul.boundaries.contains { $0.contains("Won't") }, "\(soul.boundaries)")
        // What a language model is told, when the list is not in the persona's text it carries.
        let prompt = SoulPrompts().systemPrompt(soul: soul.withoutPersonaText)
        #expect(prompt.contains("- Never say: ") && prompt.contains("\"game-changer\""), "\(prompt)")
        #expect(!(prompt.components(separatedBy: "\n").first { $0.hasPrefix("- Words you like to use") } ?? "").contains("synergy"), "\(prompt)")
    }

    /// "Lexicon (Use Naturally, Don't Force It)": the persona's signature phrases, to use; the
    /// negation is about forcing them. A plain "Never say" heading still avoids.
    @Test func aNegationAboutMannerKeepsPhrasesToUse() throws {
        let soul = try Self.load("slang-lexicon.md")
        for phrase in ["shipshape", "she'll float", "tide's turning", "Right as rain"] {
            #expect(soul.signaturePhrases.contains(phrase) || soul.vocabulary.prefer.contains(phrase),
                    "\(phrase): phrases \(soul.signaturePhrases), prefer \(soul.vocabulary.prefer)")
            #expect(!soul.vocabulary.avoid.contains(phrase), "\(phrase) is avoided: \(soul.vocabulary.avoid)")
        }
        #expect(soul.vocabulary.avoid == ["synergy"], "\(soul.vocabulary.avoid)")
        #expect(!soul.boundaries.contains { $0.contains("shipshape") || $0.contains("Right as rain") }, "\(soul.boundaries)")
    }

    @Test(arguments: [
        ("Authentic Slang Lexicon (Use Naturally, Don't Force It)", false),
        ("Lexicon — never all at once", false),
        ("Catch-phrases (don't overuse them)", false),
        ("Words to use (not forced)", false),
        ("Never say", true),
        ("Words I never use", true),
        ("Don't say", true),
        ("Avoid (don't even think about it)", true),
    ])
    func headingPolarity(heading: String, avoids: Bool) {
        #expect((MarkdownSoulReader.headingPolarity(heading) == .avoid) == avoids, "\(heading)")
        #expect((MarkdownSoulReader.polarity(of: heading) == .avoid) == avoids, "\(heading)")
    }

    /// A persona written in Portuguese previews in Portuguese (the framing; the engine's own
    /// text is not translated), whether its front matter says so or its prose does.
    @Test func aPortugueseSoulPreviewsInPortuguese() throws {
        let soul = try Self.load("pt-SOUL.md")
        #expect(soul.language == "pt")
        #expect(soul.name == "Lia", "\(soul.name)")
        // A label under the bold one, and a plain one opening with a negation whose quoted list
        // wraps onto the next line.
        #expect(Set(soul.vocabulary.avoid) == ["tipo assim", "top", "Que pergunta incrível", "Com toda a certeza", "Excelente escolha"]
                && soul.vocabulary.prefer.isEmpty, "\(soul.vocabulary)")
        #expect(soul.dashes == .none, "Sem travessões")
        #expect(soul.tone == "Calma, gentil e direta.", "\(soul.tone ?? "nil"): not the wrapped line of a list")
        let preview = SoulPreview.render(soul)
        for portuguese in ["Uma resposta parcial", "As fontes não concordam.", "Perguntas que poderia fazer a seguir", "O que encontrei"] {
            #expect(preview.contains(portuguese), "\(portuguese) not in:\n\(preview)")
        }
        for english in ["A partial answer", "The evidence is mixed", "You could ask next", "What I found", "Want me to keep going"] {
            #expect(!preview.contains(english), "\(english) in:\n\(preview)")
        }
        #expect(preview.contains("€3.20"), "facts untouched")
        let stated = try SoulParser.parse("---\nlanguage: pt-BR\nlength:\n  max_sentences: 1\n---\n# Lia\n\nUma livreira.\n", fileName: "SOUL.md")
        let blocks = SoulRenderer(soul: stated).render(.result(BackendResult(outcome: .bounded, text: "Primeira frase. Segunda frase.")), trustLevel: 1)
        let text = blocks.map(\.markdown).joined(separator: "\n")
        #expect(text.contains("Uma resposta parcial") && text.contains("Omitido por brevidade: 1 frase do resumo."), "\(text)")
    }
}
