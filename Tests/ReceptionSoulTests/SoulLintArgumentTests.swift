import Foundation
import Testing
import ReceptionTestSupport
@testable import ReceptionSoul

/// `reception soul lint SOUL` takes what the other soul tools take: a file, a folder, or the
/// id or name of a known soul.
@Suite("soul lint by id or name", .onTheCPULane)
struct SoulLintArgumentTests {
    @Test func aKnownSoulIsLintedByIdOrName() {
        let catalog = SoulCatalog(directories: [])
        for argument in ["butler", "Ambrose", "default", "plain"] {
            let diagnostics = SoulLinter.lint(argument, catalog: catalog)
            #expect(diagnostics.errors.isEmpty, "\(argument): \(diagnostics)")
        }
        #expect(SoulLinter.lint("butler", catalog: catalog) == SoulLinter.lint(text: SoulCatalog.builtInText("butler")!, fileName: "butler.md"))
    }

    /// An example in the voice that says a word the soul avoids, or shows emoji it forbids,
    /// teaches a rewriting model the opposite of the rule: lint says so at the example.
    @Test func anExampleThatBreaksTheSoulsOwnRulesIsAWarning() {
        let text = "---\nemoji: none\n---\n# Pip\n\nA careful guide.\n\n## Words to avoid\n\n- awesome\n\n## Examples\n\n> \"That is awesome news 🎉, the train leaves at 9.\"\n"
        let diagnostics = SoulLinter.lint(text: text, fileName: "pip.md")
        #expect(diagnostics.warnings.contains { $0.line == 14 && $0.message.contains("uses `awesome`, which this soul avoids") }, "\(diagnostics)")
        #expect(diagnostics.warnings.contains { $0.line == 14 && $0.message.contains("contains emoji but `emoji` is `none`") }, "\(diagnostics)")
        let clean = SoulLinter.lint(text: text.replacingOccurrences(of: "awesome news 🎉", with: "good news"), fileName: "pip.md")
        #expect(!clean.warnings.contains { $0.line == 14 }, "\(clean)")
    }

    /// A label that says a word the soul replaces is shown with the replacement ("Could you …"
    /// reads "Could ye …" in a soul that replaces you by ye): no warning. A word the soul avoids
    /// outright, with nothing to put in its place, still is one.
    @Test func aLabelWithAReplacedWordIsNoWarningButAnAvoidedOneIs() {
        let text = "---\nname: Captain\nvocabulary:\n  replace:\n    you: ye\n  avoid: [synergy]\ninterventions:\n  pushback:\n    label: \"Could you narrow it down?\"\n  scoping:\n    label: \"Synergy ahead\"\n---\n\n# Captain\n"
        let diagnostics = SoulLinter.lint(text: text, fileName: "captain.md")
        #expect(!diagnostics.warnings.contains { $0.message.contains("uses `you`") }, "\(diagnostics)")
        #expect(diagnostics.warnings.contains { $0.line == 11 && $0.message.contains("uses `synergy`, which this soul avoids") }, "\(diagnostics)")
        let soul = try? SoulParser.parse(text)
        let rendered = soul.map { SoulRenderer(soul: $0).own("Could you narrow it down?") }
        #expect(rendered == "Could ye narrow it down?", "the renderer replaces it: \(rendered ?? "no soul")")
    }

    @Test func aSoulInADirectoryIsLintedAtItsPath() throws {
        let directory = Scratch.root.appendingPathComponent("soul-lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("mine.md")
        try "---\nname: Mine\nemoji: lots\n---\n".write(to: url, atomically: true, encoding: .utf8)
        let diagnostics = SoulLinter.lint("mine", catalog: SoulCatalog(directories: [directory]))
        #expect(diagnostics.errors.contains { $0.file == url.path && $0.line == 3 }, "\(diagnostics)")
    }

    /// Front matter in a soul folder's STYLE.md is not read: lint says so at that file, rather
    /// than let its settings look applied.
    @Test func frontMatterInACompanionIsAWarningAtThatFile() throws {
        let folder = Scratch.root.appendingPathComponent("soul-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "# Plainy\n\nA helper.\n".write(to: folder.appendingPathComponent("SOUL.md"), atomically: true, encoding: .utf8)
        try "---\nemoji: none\n---\n# Style\n\nShort sentences.\n".write(to: folder.appendingPathComponent("STYLE.md"), atomically: true, encoding: .utf8)
        let diagnostics = SoulLinter.lint(folder.path, catalog: SoulCatalog(directories: []))
        #expect(diagnostics.contains { $0.severity == .warning && $0.file.hasSuffix("STYLE.md") && $0.message.contains("front matter in a companion file is not read") },
                "\(diagnostics)")
    }

    @Test func anUnknownArgumentSaysWhatIsKnown() {
        let diagnostics = SoulLinter.lint("no-such-soul", catalog: SoulCatalog(directories: []))
        let error = diagnostics.first
        #expect(diagnostics.count == 1 && error?.severity == .error)
        #expect(error?.message.contains("no such file or known soul") == true && error?.message.contains("butler") == true, "\(diagnostics)")
    }
}
