import Foundation
import ReceptionCore

/// Display blocks as plain text, for previews, diffs and pipes.
public enum DisplayBlockText {
    public static func plain(_ blocks: [DisplayBlock]) -> String {
        var lines: [String] = []
        for block in blocks {
            switch block.role {
            case .intervention:
                if let title = block.title {
                    lines.append("┃ \(title)")
                    lines.append(contentsOf: block.markdown.split(separator: "\n", omittingEmptySubsequences: false).map { "┃ \($0)" })
                } else {
                    lines.append("┃ \(block.markdown)")
                }
            case .finding:
                if let title = block.title { lines.append("\(title):") }
                lines.append("• \(block.markdown)")
            case .discrepancy, .followups, .plan:
                if let title = block.title { lines.append("\(title):") }
                if !block.markdown.isEmpty { lines.append(block.role == .followups ? block.markdown : "  " + block.markdown) }
                if block.role == .plan { lines.append(contentsOf: block.items.map { "  - \($0)" }) }
            case .error:
                lines.append("error: " + [block.title, block.markdown].compactMap { $0 }.joined(separator: ": "))
            default:
                if let title = block.title { lines.append("\(title):") }
                lines.append(block.markdown)
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// `reception soul preview`: the built-in example results in a soul's voice.
public enum SoulPreview {
    /// Every example (or only `outcome`'s), each under a header, at `trustLevel`.
    public static func render(_ soul: Soul, outcome: Outcome? = nil, trustLevel: Int = 0) -> String {
        let renderer = SoulRenderer(soul: soul)
        var sections: [String] = []
        if let greeting = renderer.greeting() { sections.append("── greeting ──\n" + greeting.markdown) }
        for example in SoulExamples.all where outcome == nil || example.response.outcome == outcome {
            let confidence = example.response.confidence.map { "confidence \($0), " } ?? ""
            let header = "── \(example.title) (\(confidence)trust level \(trustLevel)) ──"
            sections.append(header + "\n" + DisplayBlockText.plain(renderer.render(example.response, trustLevel: trustLevel)))
        }
        return sections.joined(separator: "\n\n")
    }

    /// What the preview above cannot show, or nil when nothing is left out: the deterministic
    /// renderer applies register, length, capitalisation, emoji and word replacements, while the
    /// tone, signature phrases, words to use or avoid and examples reach the voice only through
    /// a rewrite. Without this note two personas that differ only there preview identically
    /// (Karpathy's and Garry Tan's), and their author cannot tell whether the file was read.
    public static func rewriteOnlyNote(_ soul: Soul) -> String? {
        func count(_ n: Int, _ one: String, _ many: String) -> String? { n == 0 ? nil : "\(n) \(n == 1 ? one : many)" }
        let traits = [
            soul.tone.map { "the tone \"\(Self.clipped($0))\"" },
            count(soul.signaturePhrases.count, "signature phrase", "signature phrases"),
            count(soul.vocabulary.prefer.count, "word to use", "words to use"),
            count(soul.vocabulary.avoid.count, "word to avoid", "words to avoid"),
            count(soul.examples.count, "example", "examples"),
        ].compactMap { $0 }
        guard !traits.isEmpty else { return nil }
        let list = traits.count == 1 ? traits[0] : traits.dropLast().joined(separator: ", ") + " and " + traits.last!
        return "Not in this preview: \(list). They reach the voice through a rewrite: add --rewrite PROFILE."
    }

    private static func clipped(_ text: String) -> String {
        text.count <= 60 ? text : String(text.prefix(59)) + "…"
    }
}

/// `reception soul diff`: how two souls differ, knob by knob, and side by side.
public enum SoulDiff {
    public struct Difference: Sendable, Hashable {
        public var knob: String
        public var left: String
        public var right: String
    }

    /// Every knob as `key → value` text, in a stable order.
    public static func knobs(_ soul: Soul) -> [(String, String)] {
        func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "(default)" }
        func list(_ items: [String]) -> String { items.map { "\"\($0)\"" }.joined(separator: ", ") }
        func number(_ value: Int?) -> String { value.map(String.init) ?? "(none)" }
        var knobs: [(String, String)] = [
            ("name", soul.name), ("description", text(soul.summary)), ("language", soul.language), ("tone", text(soul.tone)),
            ("formality", soul.formality.rawValue), ("verbosity", soul.verbosity.rawValue),
            ("length.max_sentences", number(soul.length.maxSentences)), ("length.max_characters", number(soul.length.maxCharacters)),
            ("length.max_findings", number(soul.length.maxFindings)), ("length.max_followups", number(soul.length.maxFollowups)),
            ("length.omitted", text(soul.length.omittedNote)),
            ("emoji", soul.emoji.rawValue), ("capitalization", soul.capitalization.rawValue), ("dashes", soul.dashes.rawValue),
            ("greeting", text(soul.greeting)), ("sign_off", text(soul.signOff)),
        ]
        for outcome in ["complete", "saturated", "bounded", "inconclusive"] {
            knobs.append(("outcomes.\(outcome).lead", text(soul.outcomes[outcome]?.lead)))
            knobs.append(("outcomes.\(outcome).note", text(soul.outcomes[outcome]?.note)))
        }
        knobs += [("confidence.high", text(soul.confidence.high)), ("confidence.medium", text(soul.confidence.medium)),
                  ("confidence.low", text(soul.confidence.low)),
                  ("confidence.thresholds", "high \(soul.confidence.highThreshold), low \(soul.confidence.lowThreshold)")]
        for type in ["proactive", "pushback", "scoping", "education"] {
            let style = soul.interventions[type]
            knobs.append(("interventions.\(type).label", text(style?.label)))
            knobs.append(("interventions.\(type).style", style?.style?.rawValue ?? "(default)"))
            knobs.append(("interventions.\(type).icon", text(style?.icon)))
        }
        knobs += [("followups.title", text(soul.followups.title)), ("followups.style", soul.followups.style.rawValue),
                  ("titles.findings", text(soul.titles.findings)), ("titles.discrepancy", text(soul.titles.discrepancy)),
                  ("titles.plan", text(soul.titles.plan)), ("titles.error", text(soul.titles.error)),
                  // Each quoted: "Omni-directional, balanced, constructive engagement" is one item.
                  ("vocabulary.prefer", list(soul.vocabulary.prefer)),
                  ("vocabulary.avoid", list(soul.vocabulary.avoid)),
                  ("vocabulary.replace", soul.vocabulary.replace.map { "\($0.avoid) → \($0.prefer)" }.joined(separator: ", ")),
                  ("boundaries", soul.boundaries.joined(separator: " | "))]
        // Read from the prose, no front-matter key of their own, and as much the voice: two
        // souls differing only here (cautious against assertive, one opener against none) differ.
        knobs += [("hedging", soul.hedging.rawValue), ("opener", text(soul.opener)), ("refusal", text(soul.refusal)),
                  ("punctuation", soul.exclamatory ? "exclamatory" : "(default)"),
                  ("signature phrases", list(soul.signaturePhrases)), ("favourite emoji", soul.favouriteEmoji.joined(separator: " "))]
        return knobs
    }

    public static func differences(_ left: Soul, _ right: Soul) -> [Difference] {
        zip(knobs(left), knobs(right)).compactMap { l, r in l.1 == r.1 ? nil : Difference(knob: l.0, left: l.1, right: r.1) }
    }

    /// The knob differences, then the same result rendered through both souls in two columns.
    public static func report(_ left: Soul, _ right: Soul, outcome: Outcome = .inconclusive, trustLevel: Int = 0, width: Int = 120) -> String {
        var lines: [String] = []
        let differences = differences(left, right)
        lines.append("\(Counted.phrase(differences.count, "knob")) \(differences.count == 1 ? "differs" : "differ"): \(left.name) ⟷ \(right.name)")
        for difference in differences {
            lines.append("  \(difference.knob):")
            lines.append("    - \(difference.left)")
            lines.append("    + \(difference.right)")
        }
        let example = SoulExamples.example(outcome) ?? SoulExamples.all[0]
        let column = max(20, (width - 3) / 2)
        let leftText = wrap(DisplayBlockText.plain(SoulRenderer(soul: left).render(example.response, trustLevel: trustLevel)), width: column)
        let rightText = wrap(DisplayBlockText.plain(SoulRenderer(soul: right).render(example.response, trustLevel: trustLevel)), width: column)
        lines.append("")
        lines.append("The \(example.title) example through both:")
        lines.append(pad(left.name, column) + " │ " + right.name)
        lines.append(String(repeating: "─", count: column) + "─┼─" + String(repeating: "─", count: column))
        for index in 0..<max(leftText.count, rightText.count) {
            let l = index < leftText.count ? leftText[index] : ""
            let r = index < rightText.count ? rightText[index] : ""
            lines.append(pad(l, column) + " │ " + r)
        }
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Lines wrapped at spaces to `width` characters (a longer word gets a line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var result: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var current = ""
            for word in line.split(separator: " ", omittingEmptySubsequences: false) {
                if current.isEmpty {
                    current = String(word)
                } else if current.count + 1 + word.count <= width {
                    current += " " + word
                } else {
                    result.append(current)
                    current = "  " + word
                }
            }
            result.append(current)
        }
        return result
    }
}

/// `reception soul new NAME`: a commented starting file that lints clean.
public enum SoulTemplate {
    /// Why `soul new` writes nothing, in words for the person.
    public struct Refusal: Error, CustomStringConvertible, Sendable {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Throws when `name` cannot name a soul: blank, or holding a control character (a
    /// newline, a tab, an escape sequence), which the parser would drop from the name.
    public static func check(name: String) throws {
        if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw Refusal("the name must not be blank")
        }
        // A longer one would be used cut (see `SoulParser`): the starting file would not lint clean.
        if name.count > SoulParser.longName {
            throw Refusal("the name is \(name.count) characters; a soul's name is at most \(SoulParser.longName)")
        }
        // A tab too: `clean(_:singleLine:)` leaves a tab alone when nothing else needs cleaning.
        func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar == "\t" || TerminalText.clean(String(scalar), singleLine: true) != String(scalar) }
        guard let offending = name.unicodeScalars.first(where: isControl) else { return }
        throw Refusal("the name must not contain control characters or escape sequences (it has U+\(hex(offending))); a soul's name is one line of text")
    }

    /// At least four upper-case hex digits: `001B`.
    static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The file `soul new` writes: the name in lowercase with dashes, at most 64 characters.
    public static func fileName(for name: String) -> String {
        var slug = ""
        for character in name.lowercased() {
            let kept: Character = character.isLetter || character.isNumber ? character : "-"
            if kept == "-", slug.isEmpty || slug.last == "-" { continue }
            slug.append(kept)
        }
        slug = String(slug.prefix(64))
        while slug.last == "-" { slug.removeLast() }
        return (slug.isEmpty ? "soul" : slug) + ".md"
    }

    /// Writes the starting file for `name` to `url`: refused for a name `check` refuses, and
    /// for an existing file unless `force`.
    /// A folder is written into, as `cp` does (`-o souls/` writes `souls/NAME.md`). Returns
    /// where the file went.
    @discardableResult
    public static func write(name: String, to given: URL, force: Bool) throws -> URL {
        try check(name: name)
        var url = given
        var isFolder: ObjCBool = false
        // "-o newdir/" names a folder by its slash: it was written as a file called newdir.
        if given.hasDirectoryPath, !FileManager.default.fileExists(atPath: given.path) {
            let parent = given.deletingLastPathComponent()
            guard FileManager.default.fileExists(atPath: parent.path) else {
                throw Refusal("cannot create the folder \(given.path): the folder \(parent.path) does not exist")
            }
            do {
                try FileManager.default.createDirectory(at: given, withIntermediateDirectories: false)
            } catch {
                throw Refusal("cannot create the folder \(given.path): \(PlainFile.reason(of: error))")
            }
        }
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            url = url.appendingPathComponent(fileName(for: name))
        }
        // lstat, not fileExists: a link to nothing is there too, and --force is what replaces it.
        var info = stat()
        if lstat(url.path, &info) == 0, !force {
            let what = info.st_mode & S_IFMT == S_IFLNK ? " (a symbolic link)" : info.st_mode & S_IFMT == S_IFDIR ? " (a folder)" : ""
            throw Refusal("\(url.path) exists\(what); pass --force to replace it")
        }
        if lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw Refusal("\(url.path) is a folder; a folder is not replaced, even with --force")
        }
        let directory = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw Refusal("cannot write \(url.path): the folder \(directory.path) does not exist")
        }
        do {
            try newSoul(name: name).write(to: url, atomically: true, encoding: .utf8)
        } catch {
            throw Refusal("cannot write \(url.path): \(PlainFile.reason(of: error))")
        }
        return url
    }

    /// `text` as a YAML double-quoted scalar: quotes and backslashes escaped, and every
    /// character YAML does not take as it is (C0, C1, line separators, byte-order marks) as `\u`.
    static func yamlQuoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: quoted += "\\\""
            case 0x5C: quoted += "\\\\"
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF:
                quoted += "\\u" + hex(scalar)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// The commented starting file; its name is quoted, so any name `check` accepts gives a
    /// file that parses, keeps the name and lints clean.
    public static func newSoul(name: String) -> String {
        // The heading is for tools that read only the prose; one line, whatever the name holds.
        let heading = TerminalText.clean(name, singleLine: true)
        return """
        ---
        # A soul for Reception. Every knob is optional: delete a line to get the default.
        # Format: Souls/README.md. Check it: reception soul lint FILE. See it: reception soul preview FILE.
        name: \(yamlQuoted(name))
        description: Say in one line what this personality is like.
        language: en                  # a language tag: en, en-GB, fr, zh-TW...
        tone: friendly, clear         # free words, used in prompts for language models
        formality: neutral            # casual | neutral | formal
        verbosity: balanced           # terse | concise | balanced | detailed
        length:
          max_sentences: 4            # summary sentences shown; the rest are named in a note
          max_characters: 400         # summary characters shown, cut at a sentence boundary
          max_findings: 4
          max_followups: 3
        emoji: sparing                # none | sparing | allowed
        capitalization: as-written    # as-written | sentence | lowercase
        greeting: Hi! What can I look into for you?
        sign_off: ""                  # said after every result; "" for nothing
        outcomes:                     # how each kind of result is framed
          complete: ""
          saturated:
            lead: This is the best answer available.
            note: Digging further is unlikely to change it.
          bounded:
            lead: "Here's what I have so far; I hit my limits before finishing."
            note: Want me to keep going? Ask me to continue.
          inconclusive:
            lead: The sources disagree.
            note: Pick one of the follow-ups and I'll try to settle it.
        confidence:                   # said before the summary, by confidence band
          high: ""
          medium: I'm fairly sure of this.
          low: Treat this as a first guess.
          thresholds: { high: 0.8, low: 0.5 }
        interventions:                # cards for the engine's suggestions; style: card | inline
          proactive: { label: Heads-up, style: card }
          pushback: { label: Could we narrow this down?, style: card }
          scoping: { label: This has several parts, style: card }
          education: { label: Did you know, style: card }
        followups:
          title: You could ask next
          style: numbered             # numbered | bulleted | inline
        titles:
          findings: What I found
          discrepancy: Where the sources disagree
        vocabulary:
          prefer: [help]              # words to favour (guidance for language models)
          avoid: [synergy]            # words to avoid (guidance for language models)
          replace:                    # applied to every answer: avoid → prefer
            utilize: use
        boundaries:
          - I never change the facts I was given.
        ---

        # \(heading)

        ## Who I am

        Describe the persona in a few sentences: who they are and what they care about.

        ## Voice

        How they sound: sentence length, warmth, humour, what they lead with.

        ## Vocabulary

        Use:
        - help

        Avoid:
        - synergy

        ## Boundaries

        - What this persona will not do.

        """
    }
}

/// `reception soul show`: what was read from a soul.
public enum SoulShow {
    /// Each derived trait as `file:line: trait = value  ← evidence`, in a stable order;
    /// traits the front matter overrides say so.
    public static func derived(_ soul: Soul) -> String {
        var lines = ["\(soul.name): \(soul.traits.count) trait\(soul.traits.count == 1 ? "" : "s") read from the prose"
                     + (soul.companions.isEmpty ? "" : " of \(1 + soul.companions.count) files")]
        if soul.traits.isEmpty { lines.append("  (nothing derived: the renderer uses the front matter and its defaults)") }
        for trait in soul.traits {
            lines.append("  \(trait.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(trait.value)\(trait.overridden ? "   [overridden by front matter]" : "")")
            lines.append("    \(TerminalText.clean(trait.file, singleLine: true)):\(trait.line): \(trait.evidence)")
        }
        let good = soul.examples.filter(\.good).count, bad = soul.examples.count - good
        if good + bad > 0 { lines.append("  examples         \(good) in the voice, \(bad) of what it must not sound like") }
        return lines.joined(separator: "\n")
    }

    /// The knobs the renderer uses, one per line.
    public static func summary(_ soul: Soul) -> String {
        SoulDiff.knobs(soul).map { "\($0.0): \($0.1)" }.joined(separator: "\n")
    }
}
