import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionSoul

@Suite("Prompts", .onTheCPULane)
struct PromptTests {
    @Test func systemPromptCarriesTheSoulOnceAndTheConversation() throws {
        let soul = try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("butler.md"))
        let history = [ConversationTurn(query: "Is the museum open on Monday?", intent: .validation, outcome: .inconclusive, summary: "The sources disagree.")]
        let prompt = SoulPrompts().systemPrompt(soul: soul, history: history)
        #expect(prompt.hasPrefix("You are Ambrose. A formal butler of the old school"), "\(prompt)")
        #expect(prompt.contains("- Tone: formal, courteous, composed."))
        #expect(prompt.contains("- No emoji."))
        #expect(prompt.contains("1. Person: Is the museum open on Monday? [validation]"))
        #expect(prompt.contains("You (inconclusive): The sources disagree."))
        #expect(prompt.contains("\n\n# Ambrose\n\n## Who I am\n"), "the persona's own text")
        // Boundaries from the front matter are listed; the persona's own are in its text.
        #expect(prompt.contains("- I do not speculate before a guest."))
        #expect(prompt.components(separatedBy: "I do not presume.").count == 2, "the persona's boundary twice:\n\(prompt)")
        // The persona's word lists are in its text once, not listed again beside it.
        for word in ["okay", "enquire"] {
            #expect(prompt.components(separatedBy: word).count == 2, "\(word) not exactly once:\n\(prompt)")
        }
        #expect(!prompt.contains("{{"))
        #expect(!prompt.contains("&quot;"))  // text, not HTML-escaped
    }

    /// A chat model writes its answer; the renderer frames outcomes, hedges by confidence and
    /// shows interventions and follow-ups itself. Telling the model about them would have it
    /// say them twice, or try to produce what it never does.
    @Test func systemPromptHoldsOnlyWhatAChatModelActsOn() throws {
        for url in Paths.shippedSouls {
            let prompt = SoulPrompts().systemPrompt(soul: try SoulParser.load(contentsOf: url))
            for word in ["saturated", "bounded", "inconclusive", "proactive", "pushback", "scoping", "education", "follow-up", "intent", "urgency"] {
                #expect(!prompt.lowercased().contains(word), "\(url.lastPathComponent): \(word) in\n\(prompt)")
            }
        }
    }

    /// What a local model pays for on every new conversation: the default soul's prompt was
    /// 2.7 KB (749 tokens on SmolLM2); its stable part is now under half of that.
    @Test func theDefaultSoulsSystemPromptIsUnderHalfItsFormerSize() throws {
        let prompt = SoulPrompts().systemPrompt(soul: try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("default.md")))
        #expect(prompt.utf8.count <= 1_350, "\(prompt.utf8.count) bytes:\n\(prompt)")
    }

    @Test func withoutIntentOrHistoryThoseSectionsAreLeftOut() throws {
        let prompt = SoulPrompts().systemPrompt(soul: .plain)
        #expect(!prompt.contains("# This request"))
        #expect(!prompt.contains("# Conversation so far"))
        #expect(!prompt.contains("\n\n\n"))
    }

    @Test func rewritePrompt() throws {
        let soul = try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("terse-engineer.md"))
        let prompt = SoulPrompts().rewritePrompt(soul: soul, text: "We utilize `make test` at https://x.example <b>.", outcome: .bounded)
        #expect(prompt.contains("in the voice of Ops (dry, exact)"))
        #expect(prompt.contains("- Lowercase, except names"))
        #expect(prompt.contains("\"use\" instead of \"utilize\""))
        #expect(prompt.contains("open with \"partial:\""))
        #expect(prompt.hasSuffix("Text:\nWe utilize `make test` at https://x.example <b>.\n"))
    }

    @Test func templatesInPromptsDirectoryParseAndMatchTheBuiltInCopies() throws {
        let fromDisk = try SoulPromptTemplates(directory: Paths.prompts)
        let soul = try SoulParser.load(contentsOf: Paths.souls.appendingPathComponent("default.md"))
        #expect(SoulPrompts(templates: fromDisk).systemPrompt(soul: soul) == SoulPrompts().systemPrompt(soul: soul))
    }

    /// An edited template that does not parse is said with its line and in words: it was the
    /// library's type dump ("ParserError(context: Mustache.MustacheParserContext(…").
    @Test func aTemplateThatDoesNotParseIsLocatedInWords() {
        #expect { try SoulPromptTemplates(system: "Hello {{soul.name}}\n{{#broken}}\n", rewrite: "x") } throws: { error in
            let said = "\(error)"
            return said.hasPrefix("prompt template system.mustache does not parse: line ") && said.contains("a section is not closed")
                && !said.contains("Mustache.")
        }
    }
}

@Suite("Embedded copies", .onTheCPULane)
struct EmbeddedResourceTests {
    @Test func embeddedSoulsAndPromptsMatchTheFiles() throws {
        for url in Paths.shippedSouls {
            #expect(EmbeddedResources.souls[url.lastPathComponent] == (try String(contentsOf: url, encoding: .utf8)),
                    "stale copy of \(url.lastPathComponent): run scripts/embed-soul-resources.py")
        }
        #expect(EmbeddedResources.souls.count == Paths.shippedSouls.count)
        for name in ["system.mustache", "rewrite.mustache"] {
            #expect(EmbeddedResources.prompts[name] == (try String(contentsOf: Paths.prompts.appendingPathComponent(name), encoding: .utf8)),
                    "stale copy of \(name): run scripts/embed-soul-resources.py")
        }
    }
}

@Suite("Catalog and reload")
struct CatalogTests {
    func temporaryDirectory() throws -> URL {
        let url = Scratch.root.appendingPathComponent("soul-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func listsBuiltInAndUserSoulsAndLoadsByIdOrName() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "---\nname: Vesper\n---\n# Vesper\n\nNight owl.\n".write(to: directory.appendingPathComponent("night.md"), atomically: true, encoding: .utf8)
        try "---\nemoji: maybe\n---\n# Bad\n".write(to: directory.appendingPathComponent("bad.md"), atomically: true, encoding: .utf8)
        let catalog = SoulCatalog(directories: [directory])
        let entries = catalog.entries()
        #expect(Set(entries.map(\.id)).isSuperset(of: ["default", "butler", "concierge", "playful", "terse-engineer", "night", "bad"]))
        #expect(entries.first { $0.id == "butler" }?.isBuiltIn == true)
        #expect(entries.first { $0.id == "night" }?.name == "Vesper")
        #expect(entries.first { $0.id == "bad" }?.errors.first?.line == 2)
        #expect(try catalog.load("vesper").name == "Vesper")
        #expect(try catalog.load("AMBROSE").name == "Ambrose")
        #expect(throws: SoulParser.ParseError.self) { try catalog.load("bad") }
        #expect(throws: SoulCatalog.LookupError.self) { try catalog.load("nobody") }
        #expect(catalog.defaultSoul().name == "Reception")
        #expect(SoulCatalog(directories: [], includeBuiltIn: false).defaultSoul() == .plain)
    }

    @Test func userDirectoryFollowsXDG() {
        #expect(SoulCatalog.userDirectory(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"]).path == "/x/cfg/reception/souls")
        #expect(SoulCatalog.userDirectory(environment: ["HOME": "/h"]).path == "/h/.config/reception/souls")
    }

    @Test func reloadKeepsTheLastGoodSoulOnABrokenEdit() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("mine.md")
        try "---\nname: First\n---\n# First\n".write(to: url, atomically: true, encoding: .utf8)
        let store = SoulStore(try SoulParser.load(contentsOf: url))
        let reloader = SoulReloader(store: store, url: url)
        #expect(reloader.checkForChanges() == nil)

        try "---\nname: Second\n---\n# Second\n".write(to: url, atomically: true, encoding: .utf8)
        guard case .reloaded(let soul, _) = reloader.checkForChanges() else { Issue.record("no reload"); return }
        #expect(soul.name == "Second")
        #expect(store.current.name == "Second")
        #expect(store.current.sourcePath == url.path)

        try "---\nname: Third\nemoji: lots\n---\n# Third\n".write(to: url, atomically: true, encoding: .utf8)
        guard case .failed(let errors) = reloader.checkForChanges() else { Issue.record("broken edit accepted"); return }
        #expect(errors.first?.line == 3)
        #expect(errors.first?.description.contains("mine.md:3:8: error:") == true)
        #expect(store.current.name == "Second")
        #expect(reloader.checkForChanges() == nil)  // same broken text: nothing new to say

        try "---\nname: Fourth\n---\n# Fourth\n".write(to: url, atomically: true, encoding: .utf8)
        if case .reloaded = reloader.reload() {} else { Issue.record("reload failed") }
        #expect(store.current.name == "Fourth")
    }

    @Test func watchNoticesChanges() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("w.md")
        try "# One\n".write(to: url, atomically: true, encoding: .utf8)
        let store = SoulStore(.plain)
        let reloader = SoulReloader(store: store, url: url)
        let (events, continuation) = AsyncStream<SoulReloader.Event>.makeStream()
        let task = reloader.watch(every: .milliseconds(20)) { continuation.yield($0) }
        defer { task.cancel() }
        try "# Two\n".write(to: url, atomically: true, encoding: .utf8)
        for await event in events {
            if case .reloaded(let soul, _) = event { #expect(soul.name == "Two"); break }
        }
        #expect(store.current.name == "Two")
    }
}
