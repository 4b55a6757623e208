import Foundation
import Testing
import ReceptionTestSupport
import ReceptionCore
@testable import ReceptionSoul

/// A soul file is foreign text: whatever escape sequences it spells (YAML `\e`, `\x1b`,
/// `\u001b`, C1 `\u009b`) or holds raw in its prose, none reaches the terminal through the
/// soul tools, the renderer or the prompts, and lint says where they were removed.
@Suite("Control characters in soul files", .onTheCPULane)
struct SoulControlCharacterTests {
    /// Clear screen, window title (OSC 0), clipboard write (OSC 52), hidden hyperlink (OSC 8),
    /// C1 CSI, cursor moves, blink, bidi override: in front matter (YAML escapes) and prose (raw).
    static let file = #"""
    ---
    name: "Evil \e]0;pwned\a \e[2J Name"
    description: "Steals \x1b]52;c;aGVsbG8=\x07your clipboard"
    tone: "Short \u001b[31mand\u001b[0m warm"
    greeting: "Hello \e]8;;http://evil.example\e\\click here\e]8;;\e\\"
    sign_off: "Bye \u009b2Jnow"
    outcomes:
      bounded: { lead: "So far \e[1A\e[2K", note: "More \x9b31m?" }
    confidence:
      medium: "Fairly \e[5msure"
    interventions:
      pushback: { label: "Narrow \e[2Jit", icon: "\e[2J!" }
    followups:
      title: "Next \e]0;x\a"
    titles:
      findings: "Found \e[7m"
    vocabulary:
      prefer: ["help\e[2J"]
      avoid: ["syn\e[8mergy"]
      replace:
        "util\e[2Jize": "u\e[1mse"
    boundaries:
      - "Never \e]52;c;ZXZpbA==\a clip"
    length:
      omitted: "cut \e[2J"
    ---
    # Body \#u{1B}]0;title\#u{07} heading

    ## Voice

    Short \#u{1B}[2J and warm. Sign off with "Ciao\#u{9B}2J now".

    ## Examples

    **Good:** "Done \#u{1B}]8;;http://x.example\#u{1B}\here\#u{1B}]8;;\#u{1B}\ now."

    ## Vocabulary

    Use:
    - tidy\#u{1B}[0m

    ## Boundaries

    - Never \#u{202E}reverse\#u{202C} text.
    """#

    /// Every `String` reachable from a value (fields, optionals, arrays, dictionaries, nested structs).
    static func strings(in value: Any) -> [String] {
        if let text = value as? String { return [text] }
        if let text = value as? Substring { return [String(text)] }
        return Mirror(reflecting: value).children.flatMap { strings(in: $0.value) }
    }

    static func isClean(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            let value = scalar.value
            return (value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
        }
    }

    /// A sequence in front of a name leaves no stray space behind it.
    @Test func aNameCleanedOfASequenceKeepsNoLeadingSpace() throws {
        let soul = try SoulParser.parse("---\nname: \"\\e]0;pwned\\a Evil\"\n---\nA voice.\n", fileName: "esc.md")
        #expect(soul.name == "Evil")
    }

    @Test func noStringASoulYieldsHoldsAControlCharacter() throws {
        let soul = try SoulParser.parse(Self.file, fileName: "esc.md", allTraits: true)
        let strings = Self.strings(in: soul)
        #expect(strings.count > 20)
        for text in strings { #expect(Self.isClean(text), "\(text.debugDescription)") }
        // What the person sees keeps the visible words and loses the sequence's payload.
        #expect(soul.name.hasPrefix("Evil") && soul.name.hasSuffix("Name") && !soul.name.contains("pwned"), "\(soul.name.debugDescription)")
        #expect(soul.greeting == "Hello click here")
        #expect(soul.summary == "Steals your clipboard")
        #expect(soul.vocabulary.prefer.first == "help")
        #expect(soul.vocabulary.replace.first?.avoid == "utilize")
        #expect(soul.boundaries.first == "Never  clip")
        #expect(soul.examples.contains { $0.text.contains("Done here now") }, "\(soul.examples)")
        #expect(soul.signOff == "Bye now")
    }

    @Test func theSoulToolsPrintNoEscapeSequence() throws {
        let soul = try SoulParser.parse(Self.file, fileName: "esc.md", allTraits: true)
        let outputs = [
            "show": SoulShow.summary(soul),
            "show --derived": SoulShow.derived(soul),
            "preview": SoulPreview.render(soul) + (SoulPreview.rewriteOnlyNote(soul) ?? ""),
            "prompt": SoulPrompts().systemPrompt(soul: soul),
            "prompt --rewrite": SoulPrompts().rewritePrompt(soul: soul, text: "Hello."),
            "diff": SoulDiff.report(soul, .plain),
        ]
        for (tool, output) in outputs {
            #expect(Self.isClean(output), "soul \(tool) prints a control character")
            #expect(!output.contains("pwned") && !output.contains("aGVsbG8=") && !output.contains("evil.example"), "soul \(tool)")
        }
    }

    @Test func lintSaysWhereControlCharactersWereRemoved() {
        let diagnostics = SoulLinter.lint(text: Self.file, fileName: "esc.md")
        #expect(diagnostics.errors.isEmpty, "\(diagnostics)")
        let removed = diagnostics.warnings.filter { $0.message.contains("control characters") }
        // The front matter: the key, at its own line.
        #expect(removed.contains { $0.line == 2 && $0.message.contains("`name`") }, "\(removed)")
        #expect(removed.contains { $0.line == 3 && $0.message.contains("`description`") }, "\(removed)")
        #expect(removed.contains { $0.line == 18 && $0.message.contains("`vocabulary.prefer`") }, "\(removed)")
        #expect(removed.contains { $0.line == 21 && $0.message.contains("vocabulary.replace") }, "\(removed)")
        // The prose: the line.
        for line in [27, 31, 35, 40, 44] { #expect(removed.contains { $0.line == line }, "line \(line): \(removed)") }
        for diagnostic in diagnostics { #expect(Self.isClean(diagnostic.description)) }
    }

    /// A name made only of an escape sequence is blank once cleaned: an error, as for `name: ""`.
    @Test func aNameOfNothingButEscapesIsBlank() {
        let diagnostics = SoulLinter.lint(text: "---\nname: \"\\e[2J\"\n---\n", fileName: "x.md")
        #expect(diagnostics.errors.contains { $0.line == 2 && $0.message.contains("blank") }, "\(diagnostics)")
    }

    /// The catalog's names (`soul list`, the REPL's `/soul list`) come from the same parser.
    @Test func theCatalogListsCleanNames() throws {
        let directory = Scratch.root.appendingPathComponent("souls-esc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.file.write(to: directory.appendingPathComponent("esc.md"), atomically: true, encoding: .utf8)
        let catalog = SoulCatalog(directories: [directory], includeBuiltIn: false)
        let entry = try #require(catalog.entries().first)
        #expect(Self.isClean(entry.name) && Self.isClean(entry.summary ?? ""), "\(entry.name.debugDescription)")
        #expect(Self.isClean(try catalog.load("esc").name))
    }
}
