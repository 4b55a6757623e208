import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionSoul

enum Paths {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let fixtures = tests.appendingPathComponent("Fixtures")
    static let repository = tests.deletingLastPathComponent().deletingLastPathComponent()
    static let souls = repository.appendingPathComponent("Souls")
    static let prompts = repository.appendingPathComponent("Prompts")

    static func fixture(_ name: String) -> URL { fixtures.appendingPathComponent(name) }

    static var shippedSouls: [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: souls.path)) ?? [])
            .filter { $0.hasSuffix(".md") && $0 != "README.md" }.sorted()
            .map { souls.appendingPathComponent($0) }
    }
}

@Suite("Real-world soul.md files", .onTheCPULane)
struct RealWorldFilesTests {
    static let wildFiles = ["builder-SOUL.md", "builder-STYLE.md", "engineer-STYLE.md", "template-SOUL.md", "droid-SOUL.md",
                            "sentinel-SOUL.md", "assistant-zh-TW.md", "helper-zh-CN.md"]

    @Test(arguments: wildFiles)
    func parsesWithoutError(_ file: String) throws {
        let soul = try SoulParser.load(contentsOf: Paths.fixture(file))
        #expect(!soul.name.isEmpty)
        #expect(soul.sourcePath == Paths.fixture(file).path)
        #expect(SoulLinter.lint(contentsOf: Paths.fixture(file)).errors.isEmpty)
        // And it renders.
        let blocks = SoulRenderer(soul: soul).render(SoulExamples.all[3].response, trustLevel: 0)
        #expect(blocks.first?.role == .summary)
    }

    @Test func soulFileInTheAaronStyle() throws {
        let soul = try SoulParser.load(contentsOf: Paths.fixture("builder-SOUL.md"))
        #expect(soul.name == "Mara")
        #expect(soul.capitalization == .lowercase)
        #expect(soul.emoji == .sparing)
        #expect(soul.vocabulary.prefer.prefix(3) == ["ship it", "bench test", "scope it"])
        #expect(soul.vocabulary.avoid.contains("Going forward"))
        #expect(soul.vocabulary.avoid.contains("utilize"))
        #expect(soul.vocabulary.avoid.contains("I believe, in my humble opinion"))
        #expect(soul.boundaries == ["Won't recommend buying gear she hasn't used.", "Won't pretend a prototype is a product."])
        #expect(soul.sections.map(\.kind).contains(.voice))
    }

    @Test func styleFileInTheAaronStyle() throws {
        let soul = try SoulParser.load(contentsOf: Paths.fixture("builder-STYLE.md"))
        #expect(soul.name == "Mara")
        #expect(soul.capitalization == .lowercase)
        #expect(soul.vocabulary.prefer.contains("ship it"))
        #expect(soul.vocabulary.prefer.contains("good enough"))
        #expect(soul.vocabulary.avoid.contains("Going forward"))
        #expect(soul.vocabulary.replace == [VocabularyReplacement(avoid: "utilize", prefer: "use")])
        #expect(soul.boundaries.contains("Never: Three paragraphs before the point"))  // under "Anti-Patterns (Never Do This)"
        // A vibe line of fragments is one tone: its first word alone would drop two thirds of it.
        #expect(soul.tone == "Blunt. Specific. Kind underneath.")
    }

    @Test func styleFileWithUseAndAvoidLines() throws {
        let soul = try SoulParser.load(contentsOf: Paths.fixture("engineer-STYLE.md"))
        #expect(soul.name == "Teo")
        #expect(soul.emoji == .sparing)
        #expect(soul.vocabulary.prefer.contains("Here's what changed"))
        #expect(soul.vocabulary.avoid.contains("revolutionize"))
        #expect(soul.vocabulary.avoid.contains("seamless"))
    }

    @Test func openClawStyleTemplates() throws {
        let template = try SoulParser.load(contentsOf: Paths.fixture("template-SOUL.md"))
        #expect(template.name == "template-SOUL")  // a generic heading: the file name
        #expect(template.summary == "You're a helper with a point of view, not a vending machine.")
        #expect(template.boundaries.count == 3)
        #expect(template.tone == "Calm, capable, a bit wry.")
        // Their front-matter keys are not knobs, and not worth a warning.
        #expect(SoulLinter.lint(contentsOf: Paths.fixture("template-SOUL.md")).isEmpty)

        let droid = try SoulParser.load(contentsOf: Paths.fixture("droid-SOUL.md"))
        #expect(droid.name == "K-2SX")
        #expect(droid.boundaries.first == "Never: Declare victory before the tests pass")  // under "What I will not do"

        let sentinel = try SoulParser.load(contentsOf: Paths.fixture("sentinel-SOUL.md"))
        #expect(sentinel.name == "Sentinel")
        #expect(sentinel.tone == "Steady, exact, unexcitable.")
    }

    /// A soul that opens with a note to whoever edits it: the note is neither the description
    /// nor the tone; the persona is described under the next heading.
    @Test func aNoteAboutEditingTheFileIsNotTheDescription() throws {
        let soul = try SoulParser.load(contentsOf: Paths.fixture("lowercase-coworker-SOUL.md"))
        #expect(soul.summary == "i'm wren, a build engineer who sits in your terminal.")
        #expect(soul.tone?.contains("edit") != true, "\(soul.tone ?? "no tone")")
        #expect(soul.vocabulary.avoid.contains("as an ai"))
        for note in ["note to whoever maintains this: keep it lowercase and run the linter.",
                     "hey future me, if you change anything here, the bot reloads it on save."] {
            let noted = try SoulParser.parse("# soul\n\n\(note)\n\n## who i am\n\ni'm moss, the quiet one on the ops rota.\n", fileName: "moss.md")
            #expect(noted.summary == "i'm moss, the quiet one on the ops rota.", "\(noted.summary ?? "")")
        }
        // A template's note about the file, then a bracketed example: no description at all,
        // rather than the note or the placeholder.
        let template = try SoulParser.parse("# Good Outputs — [Your Name]\n\n[What this file holds: how many examples,\nwhat contexts they span.]\n\n## 1. [Context — e.g. a reply in your voice]\n\n**Good:**\n> [An example of the right voice.]\n", fileName: "good.md")
        #expect(template.summary == nil, "\(template.summary ?? "")")
    }

    /// A title with nothing under it: the persona is described under the next heading; a
    /// section that opens with a rule gives no description.
    @Test func aTitleWithNothingUnderItTakesTheNextSectionsDescription() throws {
        let soul = try SoulParser.load(contentsOf: Paths.fixture("untitled-persona-SOUL.md"))
        #expect(soul.summary == "i'm moss, the quiet one on the ops rota.")
        let rules = try SoulParser.parse("# Pip\n\n## Rules\n\nNever use exclamation marks.\n", fileName: "rules.md")
        #expect(rules.summary == nil || rules.summary?.hasPrefix("Never") == false, "\(rules.summary ?? "")")
    }

    @Test func templatesNotInEnglish() throws {
        let traditional = try SoulParser.load(contentsOf: Paths.fixture("assistant-zh-TW.md"))
        #expect(traditional.language == "zh-TW")
        #expect(traditional.emoji == .never)
        #expect(traditional.name == "助理個性與語言設定")
        #expect(traditional.tone?.hasPrefix("溫和、清楚、精簡") == true)

        let simplified = try SoulParser.load(contentsOf: Paths.fixture("helper-zh-CN.md"))
        #expect(simplified.language.hasPrefix("zh"))
        #expect(simplified.boundaries == ["用户的私人资料绝不外传。", "对外发布之前先确认。", "不把半成品发到公开渠道。"])
        #expect(simplified.sections.first { $0.heading == "调性" }?.kind == .voice)
    }
}

@Suite("Lint", .onTheCPULane)
struct LintTests {
    @Test func brokenFileGivesLocatedErrorsAndWarnings() throws {
        let url = Paths.fixture("broken-soul.md")
        let diagnostics = SoulLinter.lint(contentsOf: url)
        func find(_ text: String) -> SoulDiagnostic? { diagnostics.first { $0.message.contains(text) } }

        let emoji = try #require(find("`emoji` must be one of"))
        #expect((emoji.severity, emoji.line, emoji.column) == (.error, 4, 8))
        let unknown = try #require(find("unknown key `formalty`"))
        #expect((unknown.severity, unknown.line, unknown.column) == (.warning, 6, 1))
        #expect(unknown.message.contains("did you mean `formality`?"))
        let sentences = try #require(find("`length.max_sentences` must be at least 1"))
        #expect((sentences.line, sentences.column) == (10, 18))
        let both = try #require(find("`assist` is both preferred and avoided"))
        #expect((both.severity, both.line) == (.error, 13))
        let style = try #require(find("`followups.style` must be one of"))
        #expect(style.line == 15)
        let greeting = try #require(find("the greeting is"))
        #expect((greeting.severity, greeting.line, greeting.column) == (.warning, 7, 11))
        let empty = try #require(find("section \"Voice\" is empty"))
        #expect((empty.severity, empty.line) == (.warning, 20))
        #expect(emoji.description.hasSuffix("broken-soul.md:4:8: error: `emoji` must be one of none, sparing, allowed; got `sometimes`"))

        // The parser refuses the same file, listing every error.
        #expect(throws: SoulParser.ParseError.self) { try SoulParser.load(contentsOf: url) }
        do {
            _ = try SoulParser.load(contentsOf: url)
        } catch let error as SoulParser.ParseError {
            #expect(error.diagnostics.count == diagnostics.errors.count)
            #expect(error.line == 4)
        }
    }

    @Test func badYAMLIsLocated() throws {
        let diagnostics = SoulLinter.lint(contentsOf: Paths.fixture("bad-yaml.md"))
        let error = try #require(diagnostics.errors.first)
        #expect(error.message.hasPrefix("invalid YAML"))
        #expect((4...6).contains(error.line))
        #expect(error.column >= 1)
    }

    /// A key without its colon: libyaml notices on the next line and names the key's line as
    /// its context. Said once, at the key's line, with no second line number in the message.
    @Test func aYAMLErrorHasOnePlace() {
        let text = "---\nname: Pirate\ntone warm\nformality: casual\n---\n\nArr.\n"
        let error = SoulLinter.lint(text: text, fileName: "pirate.md").errors.first
        #expect(error?.line == 3, "the key's line: \(String(describing: error))")
        #expect(error?.message.contains("could not find expected ':'") == true, "\(String(describing: error))")
        #expect(error?.message.contains("(line") == false, "one place only: \(String(describing: error))")
    }

    @Test func unclosedFrontMatterAndNonMapping() {
        #expect(SoulLinter.lint(text: "---\nname: x\n# X\n", fileName: "a.md").errors.first?.message.contains("no closing") == true)
        let list = SoulLinter.lint(text: "---\n- a\n- b\n---\n# X\n", fileName: "b.md")
        #expect(list.errors.first?.line == 2)
        #expect(list.errors.first?.column == 1)
        #expect(list.errors.first?.message.contains("mapping") == true)
    }

    /// A 200,000-character name flooded the terminal at start and on every /soul, and lint said
    /// nothing: it is used cut to 80 characters, with a warning where it was written.
    @Test func aVeryLongNameIsCutAndSaid() throws {
        let text = "---\nname: " + String(repeating: "A", count: 2_000) + "\n---\nYou are long.\n"
        let diagnostics = SoulLinter.lint(text: text, fileName: "n.md")
        #expect(diagnostics.map(\.description) == ["n.md:2:7: warning: the name is 2000 characters; it is used cut to 80 (it heads the prompt, the start line and /soul)"])
        let soul = try SoulParser.parse(text, fileName: "n.md")
        #expect(soul.name == String(repeating: "A", count: 79) + "…")
        #expect(try SoulParser.parse("---\nname: Ada\n---\nYou are Ada.\n", fileName: "a.md").name == "Ada")
    }

    @Test func wrongTypesAndDuplicates() {
        let text = "---\nname: [a, b]\ngreeting: hi\nconfidence:\n  thresholds: { high: 0.4, low: 0.6 }\nlanguage: english language\n---\n"
        let diagnostics = SoulLinter.lint(text: text, fileName: "c.md")
        #expect(diagnostics.contains { $0.line == 2 && $0.column == 7 && $0.message.contains("`name` must be text") })
        #expect(diagnostics.contains { $0.line == 5 && $0.message.contains("must not be above") })
        #expect(diagnostics.contains { $0.line == 6 && $0.message.contains("language tag") })
        let duplicate = SoulLinter.lint(text: "---\ngreeting: hi\ngreeting: again\n---\n", fileName: "e.md")
        #expect(duplicate.errors.first?.message == "`greeting` is set twice (first on line 2)", "\(duplicate)")
        #expect(duplicate.errors.first?.line == 3)
        // A key set twice no longer hides the file's other problems, nested or after it; the
        // first value is the one read.
        let many = "---\nformality: formal\nlength:\n  max_sentences: 2\n  max_sentences: 3\nformality: casual\nemoji: lots\ntonne: calm\n---\nYou are Dup.\n"
        let all = SoulLinter.lint(text: many, fileName: "d.md")
        #expect(all.map(\.description) == ["d.md:5:3: error: `max_sentences` is set twice (first on line 4)",
                                            "d.md:6:1: error: `formality` is set twice (first on line 2)",
                                            "d.md:7:8: error: `emoji` must be one of none, sparing, allowed; got `lots`",
                                            "d.md:8:1: warning: unknown key `tonne` in front matter, ignored; did you mean `tone`?"], "\(all)")
        // Nesting past libyaml's limit is said in words, not the name of its C function.
        let deep = SoulLinter.lint(text: "---\nk: " + String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000) + "\n---\n", fileName: "n.md")
        #expect(deep.errors.first?.message.hasSuffix("nested too deep (more than libyaml's limit of brackets or indented levels)") == true
                && !deep.errors.contains { $0.message.contains("yaml_set") }, "\(deep)")
        // A tab in the indentation is named: the scanner's own words do not say it.
        let tabbed = SoulLinter.lint(text: "---\nlength:\n\tmax_sentences: 2\n---\n", fileName: "t.md")
        #expect(tabbed.errors.first?.line == 3 && tabbed.errors.first?.message.contains("indented with a tab") == true, "\(tabbed)")
    }

    @Test func ownWordingThatBreaksOwnRules() {
        let text = "---\nemoji: none\ngreeting: \"Let's utilize this 🚀\"\nvocabulary:\n  avoid: [utilize]\n---\n# X\n\nBody.\n"
        let diagnostics = SoulLinter.lint(text: text, fileName: "d.md")
        #expect(diagnostics.contains { $0.line == 3 && $0.message.contains("uses `utilize`") })
        #expect(diagnostics.contains { $0.line == 3 && $0.message.contains("contains emoji") })
        #expect(!diagnostics.hasErrors)
    }
}

@Suite("Shipped souls", .onTheCPULane)
struct ShippedSoulsTests {
    @Test func atLeastFiveAndAllLintClean() throws {
        let files = Paths.shippedSouls
        #expect(files.count >= 5)
        for url in files {
            let diagnostics = SoulLinter.lint(contentsOf: url)
            #expect(diagnostics.isEmpty, "\(url.lastPathComponent): \(diagnostics.map(\.description))")
        }
        #expect(files.contains { $0.lastPathComponent == "default.md" })
    }

    @Test func previewsOfTheSameResultAreVisiblyDifferent() throws {
        let souls = try Paths.shippedSouls.map { try SoulParser.load(contentsOf: $0) }
        #expect(Set(souls.map(\.name)).count == souls.count)
        for example in SoulExamples.all {
            let renders = souls.map { DisplayBlockText.plain(SoulRenderer(soul: $0).render(example.response, trustLevel: 0)) }
            for i in renders.indices {
                for j in renders.indices where j > i {
                    // Visibly different: many lines differ, not a word here and there.
                    let a = Set(renders[i].split(separator: "\n")), b = Set(renders[j].split(separator: "\n"))
                    let shared = a.intersection(b).count
                    #expect(Double(shared) / Double(max(a.count, b.count)) < 0.6,
                            "\(souls[i].name) and \(souls[j].name) render \(example.title) too alike:\n\(renders[i])\n---\n\(renders[j])")
                }
            }
        }
    }

    /// Two personas that differ only in what a rewrite uses preview the same: the preview says
    /// what it left out, so the author knows the file was read.
    @Test func thePreviewNamesWhatOnlyARewriteShows() throws {
        let builder = try SoulParser.load(contentsOf: Paths.fixture("builder-STYLE.md"))
        let note = try #require(SoulPreview.rewriteOnlyNote(builder))
        #expect(note.contains("the tone \"Blunt. Specific. Kind underneath.\""), "\(note)")
        #expect(note.contains("words to use") && note.contains("--rewrite PROFILE"), "\(note)")
        let bare = try SoulParser.parse("---\nname: Bare\n---\n", fileName: "bare.md")
        #expect(SoulPreview.rewriteOnlyNote(bare) == nil, "a soul with nothing of the kind gets no note")
    }

    @Test func previewCoversEveryOutcomeAndInterventionType() throws {
        let soul = try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("default.md"))
        let preview = SoulPreview.render(soul, trustLevel: 0)
        for outcome in ["complete", "saturated", "bounded", "inconclusive"] { #expect(preview.contains("── \(outcome) ")) }
        for label in ["A heads-up", "Could we narrow this down?", "This has a few parts", "Something you might not know"] {
            #expect(preview.contains(label))
        }
        // Trust level 2 keeps only proactive and pushback.
        let gated = SoulPreview.render(soul, outcome: .complete, trustLevel: 2)
        #expect(gated.contains("Could we narrow this down?"))
        #expect(!gated.contains("Something you might not know"))
        #expect(!gated.contains("── bounded"))
    }

    @Test func newSoulTemplateLintsClean() throws {
        let text = SoulTemplate.newSoul(name: "Nova")
        #expect(SoulLinter.lint(text: text, fileName: "nova.md").isEmpty)
        #expect(try SoulParser.parse(text, fileName: "nova.md").name == "Nova")
    }

    @Test func diffShowsKnobsAndBothRenders() throws {
        let a = try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("butler.md"))
        let b = try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("playful.md"))
        let differences = SoulDiff.differences(a, b)
        #expect(differences.contains { $0.knob == "emoji" && $0.left == "none" && $0.right == "allowed" })
        #expect(SoulDiff.differences(a, a).isEmpty)
        let report = SoulDiff.report(a, b, width: 140)
        #expect(report.contains("Points of disagreement"))
        #expect(report.contains("The plot twist"))
    }
}
