import Foundation
import ReceptionCore
import Yams

/// Reads soul.md: optional YAML front matter between `---` lines, then a Markdown body.
///
/// Parsing is lenient where files in the wild are (unknown keys, free-form headings, no
/// front matter at all: those are lint warnings), and strict where the file is plainly
/// broken (invalid YAML, a knob with an invalid value): those throw, with every error
/// located by line and column.
///
/// A soul file is foreign text: every string it yields (front matter values, whatever the
/// YAML escapes spell, and the prose) is taken without escape sequences or control
/// characters (`TerminalText.clean`), so nothing read from it can drive the terminal it is
/// printed on; lint warns where some were removed.
public enum SoulParser {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var file: String
        public var line: Int
        public var column: Int
        public var message: String
        /// Every error found (the first one is `line`/`column`/`message`).
        public var diagnostics: [SoulDiagnostic]

        public init(file: String, line: Int, column: Int = 1, message: String, diagnostics: [SoulDiagnostic] = []) {
            self.file = file
            self.line = line
            self.column = column
            self.message = message
            self.diagnostics = diagnostics.isEmpty
                ? [SoulDiagnostic(.error, file: file, line: line, column: column, message: message)] : diagnostics
        }

        /// One `file:line:column: error: message` line per error.
        public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
    }

    /// Reads a soul file, or a soul folder (`SOUL.md` with `STYLE.md` and example outputs
    /// beside it or in `examples/`): the companions add to what the main file says.
    ///
    /// `allTraits`: derive every trait, those the front matter overrides too (for
    /// `soul show --derived`); by default a trait whose knob the front matter sets is not
    /// derived at all, which keeps parsing a fully specified soul as fast as before.
    public static func load(contentsOf url: URL, allTraits: Bool = false) throws -> Soul {
        let (soul, diagnostics) = try SoulAnalyzer.analyze(contentsOf: url, allTraits: allTraits)
        let errors = diagnostics.errors
        if let first = errors.first {
            throw ParseError(file: first.file, line: first.line, column: first.column, message: first.message, diagnostics: errors)
        }
        return soul
    }

    /// Files larger than this are refused (soul files are a few kilobytes).
    public static let maxFileBytes = 1 << 20

    /// The text of a soul file, or a `ParseError` saying in plain words why it cannot be one:
    /// not found, not readable, not a regular file, too large, not UTF-8 text (with the
    /// offset and line of the first invalid byte). Every soul file is read here.
    public static func text(contentsOf url: URL) throws -> String {
        try SoulAnalyzer.text(of: url)
    }

    /// The longest name a soul uses as written; a longer one is cut, with a warning.
    public static let longName = 80

    public static func parse(_ text: String, fileName: String = "soul.md", allTraits: Bool = false) throws -> Soul {
        let (soul, diagnostics) = SoulAnalyzer.analyze(text: text, fileName: fileName, allTraits: allTraits)
        let errors = diagnostics.errors
        if let first = errors.first {
            throw ParseError(file: first.file, line: first.line, column: first.column, message: first.message, diagnostics: errors)
        }
        return soul
    }
}

/// Parser and linter in one pass: builds the soul and collects diagnostics.
enum SoulAnalyzer {
    /// A companion file of a soul folder: `STYLE.md`, or example outputs (`good` true or false).
    struct Companion {
        var fileName: String
        var text: String
        var examples: Bool?
    }

    /// Whether anything says who speaks and how: front matter, a section a soul has, examples,
    /// boundaries, a stated tone, or a line that addresses or introduces the persona (a
    /// statement about the voice is checked by the caller). Measured habits do not count: any
    /// prose has sentence lengths.
    static func readsAsPersona(_ soul: Soul, frontMatter: Set<String>) -> Bool {
        if !frontMatter.isEmpty || soul.tone != nil || !soul.examples.isEmpty || !soul.boundaries.isEmpty || !soul.signaturePhrases.isEmpty { return true }
        if soul.sections.contains(where: { $0.kind != .other }) { return true }
        let cues = ["you are", "you're", "i am", "i'm", "your voice", "you speak", "you write", "you talk"]
        // An instruction to the speaker ("Be kind and brief.", "Never apologise.") is a persona
        // written as a system prompt.
        let instructions = ["be ", "keep ", "speak", "answer", "reply", "respond", "talk", "sound", "always ", "never ", "avoid ", "don't ", "do not "]
        // Only where a persona introduces itself, its first lines: a licence says "You are not
        // required to accept this License" and "keep intact all notices" hundreds of lines in.
        let opening = soul.body.prefix(20_000).split(separator: "\n").filter { !$0.allSatisfy(\.isWhitespace) }.prefix(12)
        return opening.contains { line in
            let lowered = line.lowercased()
            let start = lowered.drop { " \t-*>#".contains($0) }
            let words = Set(lowered.split { !$0.isLetter })
            return cues.contains { lowered.contains($0) } || instructions.contains { start.hasPrefix($0) }
                || words.contains("persona") || words.contains("personality")
        }
    }

    /// A soul folder's files: the main file and its companions.
    struct Folder {
        var main: URL
        var companions: [(url: URL, examples: Bool?)]
    }

    static func isDirectory(_ url: URL) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
    }

    /// `SOUL.md` (any case), else the one Markdown file that is not `STYLE.md` or a README;
    /// `STYLE.md`; example outputs in `examples/` or named `*good*`/`*bad*`.
    static func folder(_ url: URL) -> Folder? {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
        let markdown = names.filter { $0.lowercased().hasSuffix(".md") }
        func isExample(_ name: String) -> Bool {
            let lowered = name.lowercased()
            return lowered.contains("good") || lowered.contains("bad") || lowered.contains("example") || lowered.contains("output")
        }
        let mainName = markdown.first { $0.lowercased() == "soul.md" }
            ?? markdown.first { $0.lowercased().contains("soul") && !isExample($0) }
            ?? { () -> String? in
                let others = markdown.filter { !["style.md", "readme.md"].contains($0.lowercased()) && !isExample($0) }
                return others.count == 1 ? others[0] : nil
            }()
        guard let mainName else { return nil }
        var companions: [(URL, Bool?)] = []
        if let style = markdown.first(where: { $0.lowercased() == "style.md" || ($0.lowercased().contains("style") && !isExample($0)) }), style != mainName {
            companions.append((url.appendingPathComponent(style), nil))
        }
        func polarity(_ name: String) -> Bool { !(name.lowercased().contains("bad") || name.lowercased().contains("anti")) }
        for name in markdown where name != mainName && isExample(name) && !name.lowercased().contains("style") {
            companions.append((url.appendingPathComponent(name), polarity(name)))
        }
        let examples = url.appendingPathComponent("examples")
        if isDirectory(examples) {
            let inner = ((try? FileManager.default.contentsOfDirectory(atPath: examples.path)) ?? []).sorted().filter { $0.lowercased().hasSuffix(".md") }
            for name in inner { companions.append((examples.appendingPathComponent(name), polarity(name))) }
        }
        return Folder(main: url.appendingPathComponent(mainName), companions: Array(companions.prefix(12)))
    }

    /// The one place soul files are read (see `SoulParser.text(contentsOf:)`). The bytes come
    /// from `PlainFile`, which refuses a directory, a FIFO or a device before any read (a FIFO
    /// would block, /dev/zero never end) and words its errors plainly; what makes the bytes a
    /// soul's text (UTF-8, no NUL, located by line) is checked here.
    static func text(of url: URL) throws -> String {
        let path = url.path
        func failure(_ message: String, line: Int = 1) -> SoulParser.ParseError {
            SoulParser.ParseError(file: path, line: line, message: message)
        }
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try PlainFile.read(path, limit: SoulParser.maxFileBytes))
        } catch let problem as PlainFile.Problem {
            throw failure(problem.reason + (problem.reason.hasSuffix("not a regular file") ? "; a soul is a Markdown file or a folder" : ""))
        }
        guard bytes.count <= SoulParser.maxFileBytes else {
            throw failure("the file is larger than \(SoulParser.maxFileBytes) bytes, the most a soul file may be")
        }
        func line(at offset: Int) -> Int { bytes[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 } }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            throw failure("not UTF-8 text (UTF-16, by its byte-order mark); save the file as UTF-8")
        }
        let invalid = PlainFile.firstInvalidUTF8Offset(Data(bytes))
        if let offset = bytes.firstIndex(of: 0), offset < invalid ?? .max {
            throw failure("not a text file (a NUL byte at offset \(offset))", line: line(at: offset))
        }
        if let offset = invalid {
            throw failure("not UTF-8 text (first invalid byte, 0x\(String(bytes[offset], radix: 16, uppercase: true)), at offset \(offset)); save the file as UTF-8",
                          line: line(at: offset))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A file or a folder, parsed and linted; the soul's `sourcePath` is what was given.
    static func analyze(contentsOf url: URL, allTraits: Bool = false) throws -> (soul: Soul, diagnostics: [SoulDiagnostic]) {
        if isDirectory(url) {
            guard let folder = folder(url) else {
                throw SoulParser.ParseError(file: url.path, line: 1, message: "no SOUL.md in this folder (a soul folder holds SOUL.md, optionally STYLE.md and examples/)")
            }
            var companions: [Companion] = []
            var diagnostics: [SoulDiagnostic] = []
            for (companionURL, examples) in folder.companions {
                do {
                    companions.append(Companion(fileName: companionURL.path, text: try text(of: companionURL), examples: examples))
                } catch let error as SoulParser.ParseError {
                    diagnostics.append(SoulDiagnostic(.warning, file: companionURL.path, line: 1, message: error.message + "; skipped"))
                } catch {
                    diagnostics.append(SoulDiagnostic(.warning, file: companionURL.path, line: 1, message: "cannot read the file; skipped"))
                }
            }
            var (soul, found) = analyze(text: try text(of: folder.main), fileName: folder.main.path, companions: companions, allTraits: allTraits)
            soul.sourcePath = url.path
            return (soul, (found + diagnostics).sorted { ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column) })
        }
        var (soul, diagnostics) = analyze(text: try text(of: url), fileName: url.path, allTraits: allTraits)
        soul.sourcePath = url.path
        return (soul, diagnostics)
    }

    static func analyze(text: String, fileName: String, companions: [Companion] = [], allTraits: Bool = false) -> (soul: Soul, diagnostics: [SoulDiagnostic]) {
        var analyzer = Analysis(fileName: fileName)
        analyzer.allTraits = allTraits
        _ = analyzer.run(text)
        for companion in companions { analyzer.companion(companion) }
        let soul = analyzer.finish()
        // A licence or a project's README loads as every default with a name and a line: lint
        // said "0 errors, 0 warnings" and nothing told the author that no persona was read.
        // (An empty file has its own warning; front matter with unknown keys has theirs.)
        if soul.body.contains(where: { !$0.isWhitespace }), analyzer.frontMatterLines.isEmpty, !analyzer.statesTheVoice,
           !readsAsPersona(soul, frontMatter: analyzer.setByFrontMatter) {
            analyzer.report(.warning, 1, 1, "nothing here reads as a persona: no front matter, no section such as Identity, Voice or Boundaries, no examples, nothing said about how it speaks and no \"you are\" or \"I am\" line; answers come in the default voice (`reception soul new NAME` writes a starting file)")
        }
        let sorted = analyzer.diagnostics.sorted { ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column) }
        return (soul, sorted)
    }
}

private struct Analysis {
    let fileName: String
    var diagnostics: [SoulDiagnostic] = []
    var soul: Soul
    /// Knobs the front matter set; prose never overrides them.
    var setByFrontMatter: Set<String> = []
    /// Where each front-matter string knob sits, for later cross-checks.
    var stringLocations: [String: (line: Int, column: Int, text: String)] = [:]
    var greetingLocation: (line: Int, column: Int)?
    var nameLocation: (line: Int, column: Int)?

    /// Where the name came from, when not the front matter: "heading" or "file".
    var nameFrom = "file"
    var nameLine = 1
    /// The bodies read so far, for deriving traits at the end.
    var sources: [TraitDeriver.Source] = []
    /// The main file's lines up to the body (the front matter), for the evidence of what it sets.
    var frontMatterLines: [Substring] = []
    var signature: [(String, String, Int)] = []
    var languageFromRule: (String, Int)?
    /// Derive the traits the front matter overrides too (for `soul show --derived`).
    var allTraits = false
    /// The prose states how the persona speaks (see `TraitDeriver.statesTheVoice`).
    var statesTheVoice = false

    init(fileName: String) {
        self.fileName = fileName
        soul = Soul(name: TerminalText.clean(Self.fileNameStem(fileName), singleLine: true))
    }

    /// The file name without extension; for a generic name (`SOUL.md`, `soul.md`, `STYLE.md`)
    /// the folder's name, which names the persona in a soul folder.
    static func fileNameStem(_ fileName: String) -> String {
        let stem = ((fileName as NSString).lastPathComponent as NSString).deletingPathExtension
        if ["soul", "style", "persona", "readme", "identity", "agents"].contains(stem.lowercased()) {
            let folder = ((fileName as NSString).deletingLastPathComponent as NSString).lastPathComponent
            if !folder.isEmpty, folder != ".", folder != "/" { return folder }
        }
        return stem
    }

    mutating func report(_ severity: SoulDiagnostic.Severity, _ line: Int, _ column: Int, _ message: String, file: String? = nil) {
        // Messages quote the file's words (keys, values, headings): cleaned like them.
        diagnostics.append(SoulDiagnostic(severity, file: file ?? fileName, line: line, column: column, message: TerminalText.clean(message, singleLine: true)))
    }

    /// Drops escape sequences and control characters from prose lines (a line's tabs stay),
    /// with a warning for each line that had some; true when any line changed.
    mutating func cleanProse(_ lines: inout [Substring], firstLine: Int, file: String? = nil) -> Bool {
        var changed = false
        for index in lines.indices {
            let line = String(lines[index])
            let cleaned = TerminalText.clean(line)
            guard cleaned != line else { continue }
            // A carriage return inside a line (not a line ending) becomes a newline: keep one line.
            lines[index] = Substring(String(cleaned.map { $0 == "\n" ? " " : $0 }))
            report(.warning, firstLine + index, 1, "control characters and escape sequences removed from this line", file: file)
            changed = true
        }
        return changed
    }

    /// Front-matter text without escape sequences or control characters (a YAML escape such as
    /// `\e`, `\x1b` or `\u009b` spells them), with a warning at the value when some were removed.
    /// `what` names the value in the warning: "`greeting`", "a key in front matter".
    mutating func cleaned(_ text: String, what: String, line: Int, column: Int, singleLine: Bool = false) -> String {
        var cleaned = TerminalText.clean(text, singleLine: singleLine)
        if cleaned != text {
            report(.warning, line, column, "\(what): control characters and escape sequences removed")
            // What stood between a sequence and the text ("\e]0;x\a Evil") is not part of it.
            if singleLine { cleaned = cleaned.trimmingCharacters(in: .whitespaces) }
        }
        return cleaned
    }

    mutating func run(_ rawText: String) -> Soul {
        var text = rawText
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        // An empty file loads as every default, which looks like a soul that did not take.
        if !text.contains(where: { !$0.isWhitespace }) {
            report(.warning, 1, 1, "the file is empty: every setting is the default (`reception soul new NAME` writes a starting file)")
        }
        let lines = text.utf8.split(separator: 10, omittingEmptySubsequences: false).map { bytes -> Substring in
            let line = Substring(bytes)
            return bytes.last == 13 ? line.dropLast() : line
        }
        var bodyStart = 0
        if let first = lines.first, first.trimmedSpaces == "---" {
            if let end = lines.indices.dropFirst().first(where: {
                let trimmed = lines[$0].trimmedSpaces
                return trimmed == "---" || trimmed == "..."
            }) {
                frontMatter(end > 1 ? String(text[lines[1].startIndex..<lines[end - 1].endIndex]) : "", endLine: end + 1)
                bodyStart = end + 1
            } else {
                report(.error, 1, 1, "front matter starts here but has no closing `---` line")
                bodyStart = lines.count
            }
        }
        frontMatterLines = Array(lines[..<bodyStart])
        var body = Array(lines[bodyStart...])
        if cleanProse(&body, firstLine: bodyStart + 1) {
            soul.body = body.joined(separator: "\n")
        } else {
            soul.body = bodyStart < lines.count ? String(text[lines[bodyStart].startIndex...]) : ""
        }
        markdownBody(body, firstLine: bodyStart + 1)
        return soul
    }

    /// Splits a text into lines (LF or CRLF), without a leading byte-order mark.
    static func lines(of rawText: String) -> (String, [Substring]) {
        var text = rawText
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let lines = text.utf8.split(separator: 10, omittingEmptySubsequences: false).map { bytes -> Substring in
            let line = Substring(bytes)
            return bytes.last == 13 ? line.dropLast() : line
        }
        return (text, lines)
    }

    /// A companion file: its prose fills what the main file left open, its lists add to the
    /// main file's, its examples join the soul's. Its own front matter (rare) is skipped, and
    /// lint says so: settings there would otherwise look applied when they are not.
    mutating func companion(_ companion: SoulAnalyzer.Companion) {
        let (text, allLines) = Self.lines(of: companion.text)
        var start = 0
        if let first = allLines.first, first.trimmedSpaces == "---",
           let end = allLines.indices.dropFirst().first(where: { allLines[$0].trimmedSpaces == "---" }) {
            start = end + 1
            report(.warning, 1, 1, "front matter in a companion file is not read: settings go in the main file's front matter", file: companion.fileName)
        }
        var lines = Array(allLines[start...])
        let cleanedLines = cleanProse(&lines, firstLine: start + 1, file: companion.fileName)
        var body = MarkdownSoulReader(lines: lines, firstLine: start + 1)
        body.fileName = companion.fileName
        body.documentExamples = companion.examples
        body.detectsLanguage = false
        body.read()
        let companionText = cleanedLines ? lines.joined(separator: "\n") : start < allLines.count ? String(text[allLines[start].startIndex...]) : ""
        soul.companions.append(SoulDocument(name: TerminalText.clean((companion.fileName as NSString).lastPathComponent, singleLine: true), text: companionText))
        for empty in body.emptySections where companion.examples == nil {
            report(.warning, empty.line, 1, "section \"\(empty.heading)\" is empty", file: companion.fileName)
        }
        if companion.examples == nil {
            soul.sections += body.sections
            if nameFrom == "file", let name = body.name { soul.name = name; nameFrom = "heading \(companion.fileName)"; nameLine = body.nameLine }
            if soul.summary == nil, let summary = body.summary { soul.summary = summary; summaryFromProse = (companion.fileName, body.summaryLine) }
            if soul.tone == nil, let tone = body.tone { soul.tone = tone; toneFromProse = (companion.fileName, body.toneLine) }
            if !setByFrontMatter.contains("emoji"), emojiFromProse == nil, let emoji = body.emoji { soul.emoji = emoji; emojiFromProse = (companion.fileName, body.emojiLine) }
            if !setByFrontMatter.contains("capitalization"), capitalizationFromProse == nil, let value = body.capitalization {
                soul.capitalization = value
                capitalizationFromProse = (companion.fileName, body.capitalizationLine)
            }
            if !setByFrontMatter.contains("boundaries") {
                soul.boundaries += body.boundaries.filter { !soul.boundaries.contains($0) }
            }
            if boundaryLine == nil, let line = body.boundaryLine { boundaryLine = (companion.fileName, line) }
            do {
                for (word, line) in body.preferLines where !soul.vocabulary.prefer.contains(where: { $0.lowercased() == word.lowercased() }) {
                    soul.vocabulary.prefer.append(word)
                    proseVocabulary.insert("prefer:\(word.lowercased())")
                    vocabularyFiles["prefer:\(word.lowercased())"] = (companion.fileName, line)
                }
                for (word, line) in body.avoidLines where !soul.vocabulary.avoid.contains(where: { $0.lowercased() == word.lowercased() }) {
                    if body.replacements.contains(where: { $0.avoid == word }) {
                        if vocabularyFiles["replace:\(word.lowercased())"] == nil { vocabularyFiles["replace:\(word.lowercased())"] = (companion.fileName, line) }
                        continue
                    }
                    soul.vocabulary.avoid.append(word)
                    proseVocabulary.insert("avoid:\(word.lowercased())")
                    vocabularyFiles["avoid:\(word.lowercased())"] = (companion.fileName, line)
                }
                if !setByFrontMatter.contains("vocabulary") {
                    soul.vocabulary.replace += body.replacements.filter { r in !soul.vocabulary.replace.contains { $0.avoid.lowercased() == r.avoid.lowercased() } }
                }
            }
        }
        soul.examples += body.examples
        signature += body.signature.map { ($0.0, companion.fileName, $0.1) }
        noteStatements(of: body)
        sources.append(TraitDeriver.Source(file: companion.fileName, lines: lines, firstLine: start + 1, read: body))
    }

    var emojiFromProse: (String, Int)?
    var capitalizationFromProse: (String, Int)?
    var summaryFromProse: (String, Int)?
    var toneFromProse: (String, Int)?
    var vocabularyFiles: [String: (String, Int)] = [:]

    /// Derives the voice traits from every body read, applies those the front matter left
    /// open, records all of them with their evidence, and runs the cross-checks.
    mutating func finish() -> Soul {
        var deriver = TraitDeriver(sources: sources, language: soul.language)
        // Parsing is on the REPL's start path: a soul whose front matter sets every knob a
        // derived trait would fill needs no derivation.
        let knobs = ["verbosity", "formality", "capitalization", "emoji", "confidence", "outcomes", "sign_off", "interventions", "dashes"]
        if allTraits || !knobs.allSatisfy(setByFrontMatter.contains) { deriver.derive() }
        statesTheVoice = deriver.statesTheVoice
        var traits: [SoulTrait] = []
        func record(_ name: String, _ value: String, _ file: String, _ line: Int, _ evidence: String, knob: String?) {
            let overridden = knob.map { setByFrontMatter.contains($0) } ?? false
            traits.append(SoulTrait(name: name, value: value, file: file, line: line, evidence: evidence, overridden: overridden))
        }
        func record(_ name: String, _ found: TraitDeriver.Found?, knob: String?, overridden: Bool? = nil, apply: (String) -> Void) {
            guard let found else { return }
            let overridden = overridden ?? knob.map { setByFrontMatter.contains($0) } ?? false
            traits.append(SoulTrait(name: name, value: found.value, file: found.file, line: found.line, evidence: found.evidence, overridden: overridden))
            if !overridden { apply(found.value) }
        }
        if !setByFrontMatter.contains("name"), nameFrom != "file" {
            let file = nameFrom.hasPrefix("heading ") ? String(nameFrom.dropFirst(8)) : fileName
            record("name", soul.name, file, nameLine, evidence(file: file, line: nameLine), knob: nil)
        }
        if let (file, line) = summaryFromProse, let summary = soul.summary {
            record("description", summary, file, line, evidence(file: file, line: line), knob: nil)
        }
        if let (file, line) = toneFromProse, let tone = soul.tone {
            record("tone", tone, file, line, evidence(file: file, line: line), knob: nil)
        }
        if let (file, line) = languageFromRule ?? languageEvidence() {
            record("language", soul.language, file, line, languageEvidenceText(file: file, line: line), knob: "language")
        }
        record("verbosity", deriver.verbosity, knob: "verbosity") { value in
            if let verbosity = Verbosity(rawValue: value) { soul.verbosity = verbosity }
        }
        if let limit = deriver.maxSentences, let found = deriver.verbosity {
            // `length` overrides it; `verbosity` only a limit that follows from a length word.
            let overridden = setByFrontMatter.contains("length") || (setByFrontMatter.contains("verbosity") && !deriver.maxSentencesStated)
            traits.append(SoulTrait(name: "length", value: "at most \(limit) sentence\(limit == 1 ? "" : "s")", file: found.file, line: found.line, evidence: found.evidence, overridden: overridden))
            if !overridden { soul.length.maxSentences = limit }
        }
        record("formality", deriver.formality, knob: "formality") { value in
            if let formality = Formality(rawValue: value) { soul.formality = formality }
        }
        if let (file, line) = capitalizationFromProse {
            record("capitalization", soul.capitalization.rawValue, file, line, evidence(file: file, line: line), knob: "capitalization")
        } else {
            record("capitalization", deriver.capitalization, knob: "capitalization") { value in
                if let value = Capitalization(rawValue: value) { soul.capitalization = value }
            }
        }
        if let (file, line) = emojiFromProse {
            record("emoji", soul.emoji.rawValue, file, line, evidence(file: file, line: line), knob: "emoji")
        } else {
            record("emoji", deriver.emoji, knob: "emoji") { value in
                if let value = EmojiPolicy(rawValue: value) { soul.emoji = value }
            }
        }
        // Front matter overrides per intervention type: an icon set for one type leaves the
        // derived emoji as the others' icons, a label set for pushback the derived refusal.
        let everyIconSet = InterventionType.knownCases.allSatisfy { soul.interventions[$0.rawValue]?.icon != nil }
        if !deriver.favouriteEmoji.isEmpty, soul.emoji != .never, let first = deriver.emoji ?? nil {
            traits.append(SoulTrait(name: "favourite emoji", value: deriver.favouriteEmoji.joined(separator: " "), file: first.file, line: first.line,
                                    evidence: first.evidence, overridden: everyIconSet))
        }
        if !everyIconSet { soul.favouriteEmoji = deriver.favouriteEmoji }
        record("punctuation", deriver.punctuation, knob: nil) { value in soul.exclamatory = value == "exclamatory" }
        record("dashes", deriver.dashes, knob: "dashes") { value in if let value = DashPolicy(rawValue: value) { soul.dashes = value } }
        record("hedging", deriver.hedging, knob: "confidence") { value in
            if let value = Hedging(rawValue: value) { soul.hedging = value }
        }
        record("opener", deriver.opener, knob: "outcomes") { value in soul.opener = value }
        record("greeting", deriver.greeting, knob: "greeting") { value in soul.greeting = value }
        record("closer", deriver.closer, knob: "sign_off") { value in soul.signOff = value }
        record("refusal", deriver.refusal, knob: nil, overridden: soul.interventions["pushback"]?.label != nil) { value in soul.refusal = value }
        // Signature phrases: quick reactions and catch-phrases, then the words the persona uses.
        var phrases: [String] = []
        var phraseSource: (String, Int)?
        for (phrase, file, line) in signature where !phrases.contains(where: { $0.lowercased() == phrase.lowercased() }) && phrases.count < 24 {
            phrases.append(phrase)
            if phraseSource == nil { phraseSource = (file, line) }
        }
        soul.signaturePhrases = phrases
        if let (file, line) = phraseSource {
            record("signature", phrases.prefix(4).map { "\"\($0)\"" }.joined(separator: ", ") + (phrases.count > 4 ? " (\(phrases.count) in all)" : ""), file, line, evidence(file: file, line: line), knob: nil)
        }
        for (key, words) in [("prefer", soul.vocabulary.prefer), ("avoid", soul.vocabulary.avoid)] where !words.isEmpty {
            let first = words[0].lowercased()
            let (file, line) = vocabularyFiles["\(key):\(first)"] ?? (fileName, vocabularyLocations["\(key):\(first)"]?.line ?? 1)
            let shown = words.prefix(4).map { "\"\($0)\"" }.joined(separator: ", ") + (words.count > 4 ? " (\(words.count) in all)" : "")
            record(key == "prefer" ? "words used" : "words avoided", shown, file, line, evidence(file: file, line: line), knob: nil)
        }
        // Replacements read from the prose ("No `utilize` when `use` works"), not those the
        // front matter declares: their author can check where each came from.
        let replaced = soul.vocabulary.replace.filter { r in
            vocabularyFiles["replace:\(r.avoid.lowercased())"] != nil || proseVocabulary.contains("replace:\(r.avoid.lowercased())")
        }
        if let first = replaced.first?.avoid.lowercased() {
            let (file, line) = vocabularyFiles["replace:\(first)"] ?? (fileName, vocabularyLocations["replace:\(first)"]?.line ?? 1)
            let shown = replaced.prefix(4).map { "\"\($0.avoid)\" → \"\($0.prefer)\"" }.joined(separator: ", ")
                + (replaced.count > 4 ? " (\(replaced.count) in all)" : "")
            record("words replaced", shown, file, line, evidence(file: file, line: line), knob: nil)
        }
        if !soul.boundaries.isEmpty, let line = boundaryLine {
            record("refuses", "\(soul.boundaries.count) boundar\(soul.boundaries.count == 1 ? "y" : "ies"), e.g. \(soul.boundaries[0].cutAtWord(60))", line.0, line.1, evidence(file: line.0, line: line.1), knob: "boundaries")
        }
        // A trait without evidence cannot be checked by its author: never listed.
        soul.traits = traits.filter { !$0.evidence.trimmedSpaces.isEmpty }
        // The name heads the prompt, the start line and every /soul listing: a name of 200,000
        // characters flooded the terminal on each. Cut, and said where it was written.
        if soul.name.count > SoulParser.longName {
            let (line, column) = setByFrontMatter.contains("name") ? (nameLocation ?? (1, 1)) : (nameFrom == "file" ? 1 : nameLine, 1)
            report(.warning, line, column, "the name is \(soul.name.count) characters; it is used cut to \(SoulParser.longName) (it heads the prompt, the start line and /soul)")
            soul.name = String(soul.name.prefix(SoulParser.longName - 1)) + "…"
        }
        crossChecks()
        return soul
    }

    /// Where the first boundary was read (prose), nil when there is none or the front matter set them.
    var boundaryLine: (String, Int)?

    /// The text of a line of one of the bodies, or of the front matter (words lists set there),
    /// shortened, as evidence.
    func evidence(file: String, line: Int) -> String {
        if file == fileName, line >= 1, line <= frontMatterLines.count {
            let text = TerminalText.clean(frontMatterLines[line - 1].trimmedSpaces, singleLine: true)
            return text.count <= 80 ? text : String(text.prefix(79)) + "…"
        }
        guard let source = sources.first(where: { $0.file == file }) else { return "" }
        let index = line - source.firstLine
        guard index >= 0, index < source.lines.count else { return "" }
        return TraitDeriver.evidence(source.lines[index].trimmedSpaces)
    }

    /// The first line written in the soul's language, when it is not English.
    func languageEvidence() -> (String, Int)? {
        guard !setByFrontMatter.contains("language") else { return nil }
        let tag = soul.language
        guard tag != "en" else { return nil }
        for source in sources {
            for (index, line) in source.lines.prefix(TraitDeriver.maxLines).enumerated() where source.roles[index] == .prose || source.roles[index] == .heading {
                if let detected = MarkdownSoulReader.detectLanguage([line] + [line] + [line]), detected.prefix(2) == tag.prefix(2) {
                    return (source.file, source.firstLine + index)
                }
            }
        }
        return nil
    }

    func languageEvidenceText(file: String, line: Int) -> String {
        let text = evidence(file: file, line: line)
        return text.isEmpty ? "front matter" : text
    }

    // MARK: Front matter

    static let topKeys = ["name", "description", "language", "tone", "formality", "verbosity", "length",
                          "emoji", "capitalization", "capitalisation", "dashes", "greeting", "sign_off", "signoff", "outcomes",
                          "confidence", "interventions", "followups", "followups_title", "titles", "vocabulary", "boundaries"]
    /// Keys other tools put in soul.md front matter (OpenClaw's templates): read without a warning, used for nothing.
    static let foreignKeys: Set<String> = [
        "title", "summary", "read_when", "tags", "tag", "version", "author", "authors", "date", "type", "created", "created_at", "updated",
        "updated_at", "modified", "draft", "order", "enabled", "label", "labels", "id", "slug", "aliases", "category", "categories",
        "status", "license", "permalink", "layout", "published", "weight", "model", "owner", "source", "url", "homepage", "keywords",
        "priority", "scope", "kind", "template", "private", "hidden", "archived", "lang", "locale", "icon", "avatar", "emoji_icon",
        "color", "colour", "website", "repository", "repo", "metadata", "meta", "schema", "owners", "maintainer", "role", "persona",
        "agent", "agents", "workspace", "channel", "channels", "sort", "position", "notes", "comment", "comments", "visibility",
        "contributors", "license_url", "updated_by", "created_by", "description_long", "short_description", "image", "cover", "series",
        "audience", "platform", "platforms", "requires", "depends", "when", "triggers", "globs", "alwaysapply", "always_apply",
    ]

    /// Keys set twice that are each said before the front matter is read past them.
    static let duplicateKeysRead = 20

    /// Past this a greeting is a wall of text at the top of every session.
    static let longGreeting = 400

    /// The text of a plain (unquoted) scalar that is a number: `tone: 5` but not `tone: "5"`.
    static func plainNumber(_ node: Node) -> String? {
        guard let scalar = node.scalar, scalar.style == .plain, Double(scalar.string) != nil else { return nil }
        return scalar.string
    }

    mutating func frontMatter(_ text: String, endLine: Int) {
        var yaml = text
        var node: Node?
        // Yams stops at a key set twice; the rest of the file was left unchecked, and the
        // author met its other problems one run of lint at a time. The second occurrence is
        // blanked (line numbers stay) and the front matter read again, a bounded number of times.
        for attempt in 0... {
            do {
                // The basic resolver: every scalar stays text, and this file types it (faster, and
                // `emoji: no` or `name: null` mean what the author wrote).
                node = try Yams.compose(yaml: yaml, .basic, .default, .utf8)
                break
            } catch let error as YamlError {
                var (line, column, message) = Self.describe(error)
                var lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
                if case .duplicatedKeysInMapping(let duplicates, _) = error, let key = duplicates.first {
                    // Point at the second occurrence of the key, in the words the other knobs use.
                    let hits = lines.indices.filter { lines[$0].trimmedSpaces.hasPrefix(key + ":") }
                    if hits.count > 1 {
                        let second = hits[1]
                        let indent = lines[second].prefix { $0 == " " }.count
                        report(.error, second + 2, indent + 1, "`\(key)` is set twice (first on line \(hits[0] + 2))")
                        guard attempt < Self.duplicateKeysRead else { return }
                        // The key's line and what is indented under it.
                        var end = second + 1
                        while end < lines.count, lines[end].trimmedSpaces.isEmpty || lines[end].prefix(while: { $0 == " " }).count > indent { end += 1 }
                        for index in second..<end { lines[index] = "" }
                        yaml = lines.joined(separator: "\n")
                        continue
                    }
                }
                // A tab in a line's indentation is the usual cause of the scanner's "cannot start
                // any token", which does not say so.
                if (1...lines.count).contains(line), lines[line - 1].prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") {
                    message += "; this line is indented with a tab, and YAML indents with spaces only"
                }
                report(.error, line + 1, column, "invalid YAML: \(message)")
                return
            } catch {
                report(.error, 2, 1, "invalid YAML: \(error)")
                return
            }
        }
        guard let node else { return }  // empty front matter: allowed
        guard let mapping = node.mapping else {
            let (line, column) = location(node)
            report(.error, line, column, "front matter must be a mapping of keys to values (e.g. `name: Ada`)")
            return
        }
        for (key, value) in checkedPairs(mapping, known: Self.topKeys + Self.foreignKeys.sorted(), context: "front matter") {
            topLevel(key, value)
        }
    }

    /// The key/value pairs of a mapping whose keys are known; reports unknown and duplicated keys.
    mutating func checkedPairs(_ mapping: Node.Mapping, known: [String], context: String) -> [(String, Node)] {
        let knownSet = Set(known)
        var seen: Set<String> = []
        var pairs: [(String, Node)] = []
        for (keyNode, value) in mapping {
            let (line, column) = location(keyNode)
            guard let rawKey = keyNode.scalar?.string else {
                report(.error, line, column, "keys must be plain words")
                continue
            }
            let key = cleaned(rawKey, what: "a key in \(context)", line: line, column: column, singleLine: true)
            if !seen.insert(key).inserted {
                report(.error, line, column, "`\(key)` is set twice in \(context)")
                continue
            }
            if !knownSet.contains(key) {
                // Other tools' metadata passes quietly at the top level; anything else gets one
                // short warning, with a suggestion only for a near miss (a typo).
                if context == "front matter", Self.foreignKeys.contains(key.lowercased()) { continue }
                var message = "unknown key `\(key)` in \(context), ignored"
                if let suggestion = Self.nearMiss(key, among: known.filter { !Self.foreignKeys.contains($0) }) {
                    message += "; did you mean `\(suggestion)`?"
                }
                report(.warning, line, column, message)
                continue
            }
            pairs.append((key, value))
        }
        return pairs
    }

    mutating func topLevel(_ key: String, _ value: Node) {
        if Self.foreignKeys.contains(key) { return }
        setByFrontMatter.insert(key)
        switch key {
        case "name":
            if let name = string(value, key: key, allowEmpty: false, singleLine: true) { soul.name = name; nameLocation = location(value) }
        case "description": soul.summary = string(value, key: key)
        case "language":
            if let language = string(value, key: key, allowEmpty: false) {
                if Self.isLanguageTag(language) {
                    soul.language = language
                } else {
                    let (line, column) = location(value)
                    report(.error, line, column, "`language` must be a language tag such as `en`, `fr` or `zh-TW`, not `\(language)`")
                }
            }
        case "tone":
            // A score ("tone: 5") is a common slip from other persona formats: it says nothing
            // about the voice, and as text it would reach a rewriting model as the tone "5".
            if let number = Self.plainNumber(value) {
                let (line, column) = location(value)
                report(.warning, line, column, "`tone` describes the voice in words (such as `warm, playful`), not as a number; `\(number)` ignored")
            } else {
                soul.tone = string(value, key: key)
            }
        case "formality": if let v = enumValue(value, key: key, Formality.self) { soul.formality = v }
        case "verbosity": if let v = enumValue(value, key: key, Verbosity.self) { soul.verbosity = v }
        case "emoji":
            if let bool = value.scalar.flatMap({ Self.bool($0) }) {
                soul.emoji = bool ? .allowed : .never
            } else if let v = enumValue(value, key: key, EmojiPolicy.self) {
                soul.emoji = v
            }
        case "capitalization", "capitalisation":
            if let v = enumValue(value, key: key, Capitalization.self) { soul.capitalization = v }
            setByFrontMatter.insert("capitalization")
        case "dashes":
            if let v = enumValue(value, key: key, DashPolicy.self) { soul.dashes = v }
            setByFrontMatter.insert("dashes")
        case "greeting":
            soul.greeting = string(value, key: key)
            greetingLocation = location(value)
            remember("greeting", value)
        case "sign_off", "signoff":
            soul.signOff = string(value, key: key)
            remember("sign_off", value)
        case "length": length(value)
        case "outcomes": outcomes(value)
        case "confidence": confidence(value)
        case "interventions": interventions(value)
        case "followups":
            if let number = Self.plainNumber(value) {
                // `followups: 7` reads as "seven follow-ups"; as a title it would print "7".
                let (line, column) = location(value)
                report(.warning, line, column, "`followups: \(number)` would make `\(number)` the follow-ups' title, so it is ignored; " +
                       "to show at most \(number) follow-ups, write `max_followups: \(number)` under `length:`")
            } else if value.scalar != nil {
                soul.followups.title = string(value, key: key)
            } else if let mapping = mappingValue(value, key: key) {
                for (k, v) in checkedPairs(mapping, known: ["title", "style"], context: "followups") {
                    if k == "title" { soul.followups.title = string(v, key: "followups.title"); remember("followups.title", v) }
                    if k == "style", let style = enumValue(v, key: "followups.style", FollowupStyle.ListStyle.self) { soul.followups.style = style }
                }
            }
        case "followups_title": soul.followups.title = string(value, key: key)
        case "titles":
            if let mapping = mappingValue(value, key: key) {
                for (k, v) in checkedPairs(mapping, known: ["findings", "discrepancy", "plan", "error"], context: "titles") {
                    let text = string(v, key: "titles.\(k)")
                    remember("titles.\(k)", v)
                    switch k {
                    case "findings": soul.titles.findings = text
                    case "discrepancy": soul.titles.discrepancy = text
                    case "plan": soul.titles.plan = text
                    default: soul.titles.error = text
                    }
                }
            }
        case "vocabulary": vocabulary(value)
        case "boundaries":
            if let items = stringList(value, key: key) { soul.boundaries = items }
        default: break
        }
    }

    mutating func remember(_ key: String, _ node: Node) {
        if let text = node.scalar.map({ TerminalText.clean($0.string) }), !text.isEmpty {
            let (line, column) = location(node)
            stringLocations[key] = (line, column, text)
        }
    }

    mutating func length(_ value: Node) {
        guard let mapping = mappingValue(value, key: "length") else { return }
        let known = ["max_sentences", "max_characters", "max_findings", "max_followups", "omitted"]
        for (key, node) in checkedPairs(mapping, known: known, context: "length") {
            if key == "omitted" {
                soul.length.omittedNote = string(node, key: "length.omitted")
                continue
            }
            let minimum = key == "max_characters" ? 20 : key == "max_sentences" ? 1 : 0
            guard let number = integer(node, key: "length.\(key)", minimum: minimum) else { continue }
            switch key {
            case "max_sentences": soul.length.maxSentences = number
            case "max_characters": soul.length.maxCharacters = number
            case "max_findings": soul.length.maxFindings = number
            default: soul.length.maxFollowups = number
            }
        }
    }

    static let outcomeNames = ["complete", "saturated", "bounded", "inconclusive"]

    mutating func outcomes(_ value: Node) {
        guard let mapping = mappingValue(value, key: "outcomes") else { return }
        for (outcome, node) in checkedPairs(mapping, known: Self.outcomeNames, context: "outcomes") {
            if node.scalar != nil {
                soul.outcomes[outcome, default: OutcomeStyle()].lead = string(node, key: "outcomes.\(outcome)")
                remember("outcomes.\(outcome)", node)
            } else if let inner = mappingValue(node, key: "outcomes.\(outcome)") {
                for (k, v) in checkedPairs(inner, known: ["lead", "note"], context: "outcomes.\(outcome)") {
                    let text = string(v, key: "outcomes.\(outcome).\(k)")
                    remember("outcomes.\(outcome).\(k)", v)
                    if k == "lead" { soul.outcomes[outcome, default: OutcomeStyle()].lead = text } else { soul.outcomes[outcome, default: OutcomeStyle()].note = text }
                }
            }
        }
    }

    mutating func confidence(_ value: Node) {
        guard let mapping = mappingValue(value, key: "confidence") else { return }
        for (key, node) in checkedPairs(mapping, known: ["high", "medium", "low", "thresholds"], context: "confidence") {
            switch key {
            case "high": soul.confidence.high = string(node, key: "confidence.high"); remember("confidence.high", node)
            case "medium": soul.confidence.medium = string(node, key: "confidence.medium"); remember("confidence.medium", node)
            case "low": soul.confidence.low = string(node, key: "confidence.low"); remember("confidence.low", node)
            default:
                guard let inner = mappingValue(node, key: "confidence.thresholds") else { continue }
                for (k, v) in checkedPairs(inner, known: ["high", "low"], context: "confidence.thresholds") {
                    guard let number = fraction(v, key: "confidence.thresholds.\(k)") else { continue }
                    if k == "high" { soul.confidence.highThreshold = number } else { soul.confidence.lowThreshold = number }
                }
                if soul.confidence.lowThreshold > soul.confidence.highThreshold {
                    let (line, column) = location(node)
                    report(.error, line, column, "confidence.thresholds: `low` (\(soul.confidence.lowThreshold)) must not be above `high` (\(soul.confidence.highThreshold))")
                }
            }
        }
    }

    static let interventionNames = ["proactive", "pushback", "scoping", "education"]

    mutating func interventions(_ value: Node) {
        guard let mapping = mappingValue(value, key: "interventions") else { return }
        for (type, node) in checkedPairs(mapping, known: Self.interventionNames, context: "interventions") {
            if node.scalar != nil {
                soul.interventions[type, default: InterventionStyle()].label = string(node, key: "interventions.\(type)")
                remember("interventions.\(type).label", node)
            } else if let inner = mappingValue(node, key: "interventions.\(type)") {
                for (k, v) in checkedPairs(inner, known: ["label", "style", "icon"], context: "interventions.\(type)") {
                    switch k {
                    case "label":
                        soul.interventions[type, default: InterventionStyle()].label = string(v, key: "interventions.\(type).label")
                        remember("interventions.\(type).label", v)
                    case "style":
                        if let style = enumValue(v, key: "interventions.\(type).style", InterventionStyle.Presentation.self) {
                            soul.interventions[type, default: InterventionStyle()].style = style
                        }
                    default:
                        soul.interventions[type, default: InterventionStyle()].icon = string(v, key: "interventions.\(type).icon")
                    }
                }
            }
        }
    }

    /// Where each vocabulary word was declared, for the "both preferred and avoided" check.
    var vocabularyLocations: [String: (line: Int, column: Int)] = [:]
    /// Vocabulary entries read from the Markdown body ("prefer:word", "avoid:word").
    var proseVocabulary: Set<String> = []

    mutating func vocabulary(_ value: Node) {
        guard let mapping = mappingValue(value, key: "vocabulary") else { return }
        for (key, node) in checkedPairs(mapping, known: ["prefer", "avoid", "replace"], context: "vocabulary") {
            switch key {
            case "prefer", "avoid":
                guard let sequence = node.sequence else {
                    if let words = stringList(node, key: "vocabulary.\(key)") { assignWords(key, words, node) }
                    continue
                }
                var words: [String] = []
                for item in sequence {
                    guard let word = string(item, key: "vocabulary.\(key)", allowEmpty: false) else { continue }
                    words.append(word)
                    vocabularyLocations["\(key):\(word.lowercased())"] = location(item)
                }
                if key == "prefer" { soul.vocabulary.prefer = words } else { soul.vocabulary.avoid = words }
            default:
                guard let inner = mappingValue(node, key: "vocabulary.replace") else { continue }
                var replacements: [VocabularyReplacement] = []
                var seen: Set<String> = []
                for (keyNode, valueNode) in inner {
                    let (line, column) = location(keyNode)
                    guard let avoid = keyNode.scalar.map({ cleaned($0.string, what: "a key of `vocabulary.replace`", line: line, column: column, singleLine: true) }),
                          !avoid.trimmedSpaces.isEmpty else {
                        report(.error, line, column, "vocabulary.replace: each key is a word or phrase to avoid")
                        continue
                    }
                    guard seen.insert(avoid.lowercased()).inserted else {
                        report(.error, line, column, "vocabulary.replace: `\(avoid)` is listed twice")
                        continue
                    }
                    guard let prefer = string(valueNode, key: "vocabulary.replace.\(avoid)") else { continue }
                    replacements.append(VocabularyReplacement(avoid: avoid, prefer: prefer))
                    vocabularyLocations["replace:\(avoid.lowercased())"] = (line, column)
                }
                soul.vocabulary.replace = replacements
            }
        }
    }

    mutating func assignWords(_ key: String, _ words: [String], _ node: Node) {
        for word in words { vocabularyLocations["\(key):\(word.lowercased())"] = location(node) }
        if key == "prefer" { soul.vocabulary.prefer = words } else { soul.vocabulary.avoid = words }
    }

    // MARK: Typed values

    func location(_ node: Node) -> (Int, Int) {
        // Marks are relative to the YAML text, which starts on the file's second line.
        guard let mark = node.mark else { return (2, 1) }
        return (mark.line + 1, mark.column)
    }

    /// A text value, without escape sequences or control characters; `singleLine` for values
    /// that must stay on one line (the name), whose newlines and tabs become spaces.
    mutating func string(_ node: Node, key: String, allowEmpty: Bool = true, singleLine: Bool = false) -> String? {
        let (line, column) = location(node)
        guard let scalar = node.scalar else {
            report(.error, line, column, "`\(key)` must be text, not a \(node.mapping != nil ? "mapping" : "list")")
            return nil
        }
        if scalar.style == .plain, ["~", "null", "Null", "NULL", ""].contains(scalar.string) {
            report(.warning, line, column, "`\(key)` is empty; remove it or give it a value")
            return nil
        }
        let text = cleaned(scalar.string, what: "`\(key)`", line: line, column: column, singleLine: singleLine)
        if !allowEmpty, text.trimmedSpaces.isEmpty {
            report(.error, line, column, "`\(key)` must not be blank")
            return nil
        }
        return text
    }

    mutating func stringList(_ node: Node, key: String) -> [String]? {
        if let sequence = node.sequence {
            return sequence.compactMap { string($0, key: key, allowEmpty: false) }
        }
        if node.scalar != nil, let single = string(node, key: key, allowEmpty: false) { return [single] }
        let (line, column) = location(node)
        report(.error, line, column, "`\(key)` must be a list of text")
        return nil
    }

    mutating func mappingValue(_ node: Node, key: String) -> Node.Mapping? {
        if let mapping = node.mapping { return mapping }
        let (line, column) = location(node)
        report(.error, line, column, "`\(key)` must be a mapping of keys to values")
        return nil
    }

    mutating func enumValue<E: RawRepresentable & CaseIterable>(_ node: Node, key: String, _ type: E.Type) -> E? where E.RawValue == String {
        guard let raw = string(node, key: key, allowEmpty: false) else { return nil }
        let normalized = raw.trimmedSpaces.lowercased().replacingOccurrences(of: "_", with: "-").replacingOccurrences(of: " ", with: "-")
        if let value = E(rawValue: normalized) { return value }
        let choices = E.allCases.map(\.rawValue)
        let (line, column) = location(node)
        var message = "`\(key)` must be one of \(choices.joined(separator: ", ")); got `\(raw)`"
        if let suggestion = Self.didYouMean(normalized, among: choices) { message += "; did you mean `\(suggestion)`?" }
        report(.error, line, column, message)
        return nil
    }

    mutating func integer(_ node: Node, key: String, minimum: Int) -> Int? {
        let (line, column) = location(node)
        guard let scalar = node.scalar, let number = Int(scalar.string.trimmedSpaces) else {
            // Digits past Int's range are a whole number all the same: "must be a whole number"
            // told the author of `max_sentences: 99999999999999999999` something untrue.
            let text = node.scalar?.string.trimmedSpaces ?? ""
            let digits = text.drop { $0 == "+" || $0 == "-" }
            let outOfRange = !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
            report(.error, line, column, !outOfRange ? "`\(key)` must be a whole number"
                   : text.hasPrefix("-") ? "`\(key)` must be at least \(minimum)" : "`\(key)` is too large a number (at most \(Int.max))")
            return nil
        }
        guard number >= minimum else {
            report(.error, line, column, "`\(key)` must be at least \(minimum); got \(number)")
            return nil
        }
        return number
    }

    mutating func fraction(_ node: Node, key: String) -> Double? {
        let (line, column) = location(node)
        guard let scalar = node.scalar, let number = Double(scalar.string.trimmedSpaces) else {
            report(.error, line, column, "`\(key)` must be a number between 0 and 1")
            return nil
        }
        guard (0...1).contains(number) else {
            report(.error, line, column, "`\(key)` must be between 0 and 1; got \(number)")
            return nil
        }
        return number
    }

    static func bool(_ scalar: Node.Scalar) -> Bool? {
        guard scalar.style == .plain else { return nil }
        switch scalar.string.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: return nil
        }
    }

    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    static func describe(_ error: YamlError) -> (line: Int, column: Int, message: String) {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _), .composer(let context, let problem, let mark, _):
            // libyaml's own words name its C function ("set with yaml_set_max_nest_level()").
            if problem.hasPrefix("Maximum nesting level reached") {
                return (mark.line, mark.column, "nested too deep (more than libyaml's limit of brackets or indented levels)")
            }
            return YAMLErrorPlace.choose(problem: problem, line: mark.line, column: mark.column,
                                         context: context?.text, contextLine: context?.mark.line, contextColumn: context?.mark.column)
        case .reader(let problem, let offset, let value, let yaml):
            // A character the YAML reader refuses (a raw control character): its own line and column.
            guard let offset, let index = yaml.index(yaml.startIndex, offsetBy: offset, limitedBy: yaml.endIndex) else { return (1, 1, problem) }
            let before = yaml[..<index]
            let lineStart = before.lastIndex(where: \.isNewline).map { before.index(after: $0) } ?? before.startIndex
            let character = value >= 0 ? Unicode.Scalar(UInt32(value)).map { " (U+\(SoulTemplate.hex($0)))" } ?? "" : ""
            return (before.reduce(1) { $1.isNewline ? $0 + 1 : $0 }, before[lineStart...].count + 1, problem + character)
        case .duplicatedKeysInMapping(let duplicates, let context):
            return (context.mark.line, context.mark.column, "duplicated keys \(duplicates.joined(separator: ", "))")
        default: return (1, 1, "\(error)")
        }
    }

    static func didYouMean(_ word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased()
        let scored = candidates.map { ($0, editDistance(lowered, $0)) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored else { return nil }
        let allowed = max(2, best.count / 3)
        if distance <= allowed { return best }
        if best.hasPrefix(lowered) || lowered.hasPrefix(best) { return best }
        return nil
    }

    /// A known key one typo away (two for long keys), or the key with a missing ending
    /// (`capital` → `capitalization`): `type` is not `tone`.
    static func nearMiss(_ word: String, among candidates: [String]) -> String? {
        let lowered = word.lowercased().replacingOccurrences(of: "-", with: "_")
        if let exact = candidates.first(where: { $0 == lowered }) { return exact }
        let scored = candidates.map { ($0, editDistance(lowered, $0)) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored else { return nil }
        let allowed = lowered.count <= 4 ? 1 : lowered.count <= 8 ? 2 : 3
        if distance <= allowed, distance < best.count / 2 + 1 { return best }
        if lowered.count >= 5, let prefixed = candidates.first(where: { $0.hasPrefix(lowered) }) { return prefixed }
        return nil
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    // MARK: Markdown body

    mutating func markdownBody(_ lines: [Substring], firstLine: Int) {
        var body = MarkdownSoulReader(lines: lines, firstLine: firstLine)
        body.fileName = fileName
        body.detectsLanguage = !setByFrontMatter.contains("language")
        body.read()
        soul.sections = body.sections
        soul.examples = body.examples
        signature = body.signature.map { ($0.0, fileName, $0.1) }
        sources.append(TraitDeriver.Source(file: fileName, lines: lines, firstLine: firstLine, read: body))
        for empty in body.emptySections {
            report(.warning, empty.line, 1, "section \"\(empty.heading)\" is empty")
        }
        if !setByFrontMatter.contains("name"), let name = body.name { soul.name = name; nameFrom = "heading"; nameLine = body.nameLine }
        if soul.summary == nil, let summary = body.summary { soul.summary = summary; summaryFromProse = (fileName, body.summaryLine) }
        if soul.tone == nil, let tone = body.tone { soul.tone = tone; toneFromProse = (fileName, body.toneLine) }
        if !setByFrontMatter.contains("emoji"), let emoji = body.emoji { soul.emoji = emoji; emojiFromProse = (fileName, body.emojiLine) }
        if !setByFrontMatter.contains("capitalization"), let capitalization = body.capitalization {
            soul.capitalization = capitalization
            capitalizationFromProse = (fileName, body.capitalizationLine)
        }
        if !setByFrontMatter.contains("language"), let language = body.language {
            soul.language = language
            if let line = body.languageLine { languageFromRule = (fileName, line) }
        }
        if !setByFrontMatter.contains("boundaries") { soul.boundaries = body.boundaries }
        if let line = body.boundaryLine { boundaryLine = (fileName, line) }
        if !setByFrontMatter.contains("vocabulary") {
            soul.vocabulary.prefer = body.prefer
            soul.vocabulary.avoid = body.avoid
            soul.vocabulary.replace = body.replacements
            for (word, line) in body.preferLines { vocabularyLocations["prefer:\(word.lowercased())"] = (line, 1) }
            for (word, line) in body.avoidLines {
                let replaced = body.replacements.contains { $0.avoid == word }
                vocabularyLocations["\(replaced ? "replace" : "avoid"):\(word.lowercased())"] = (line, 1)
                if replaced { proseVocabulary.insert("replace:\(word.lowercased())") }
            }
        }
        for (word, _) in body.preferLines { proseVocabulary.insert("prefer:\(word.lowercased())") }
        for (word, _) in body.avoidLines { proseVocabulary.insert("avoid:\(word.lowercased())") }
        noteStatements(of: body)
        if setByFrontMatter.contains("vocabulary") {
            // Front matter lists come first; the prose may add more.
            soul.vocabulary.prefer += body.prefer.filter { word in !soul.vocabulary.prefer.contains { $0.lowercased() == word.lowercased() } }
            soul.vocabulary.avoid += body.avoid.filter { word in !soul.vocabulary.avoid.contains { $0.lowercased() == word.lowercased() } }
        }
    }

    /// Records what a file's prose states, so a prompt carrying that prose does not list it again.
    mutating func noteStatements(of body: MarkdownSoulReader) {
        soul.statedInProse.prefer.formUnion(body.preferLines.map { $0.0.lowercased() })
        soul.statedInProse.avoid.formUnion(body.avoidLines.map { $0.0.lowercased() })
        soul.statedInProse.boundaries.formUnion(body.boundaries)
    }

    // MARK: Cross-checks

    mutating func crossChecks() {
        let preferred = Dictionary(soul.vocabulary.prefer.map { ($0.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        for word in soul.vocabulary.avoid where preferred[word.lowercased()] != nil {
            let key = word.lowercased()
            let (line, column) = vocabularyLocations["avoid:\(key)"] ?? vocabularyLocations["prefer:\(key)"] ?? (1, 1)
            // Lists written in the front matter contradict each other: an error. Lists read
            // from prose (files in the wild) may just mention a word twice: a warning.
            let declared = !proseVocabulary.contains("avoid:\(key)") && !proseVocabulary.contains("prefer:\(key)")
            report(declared ? .error : .warning, line, column, "`\(word)` is both preferred and avoided")
        }
        for replacement in soul.vocabulary.replace {
            let (line, column) = vocabularyLocations["replace:\(replacement.avoid.lowercased())"] ?? (1, 1)
            if preferred[replacement.avoid.lowercased()] != nil {
                report(.error, line, column, "`\(replacement.avoid)` is preferred but also replaced by `\(replacement.prefer)`")
            }
            if soul.vocabulary.avoid.contains(where: { $0.lowercased() == replacement.prefer.lowercased() }) {
                report(.warning, line, column, "`\(replacement.avoid)` is replaced by `\(replacement.prefer)`, which is itself avoided")
            }
            if replacement.avoid.lowercased() == replacement.prefer.lowercased() {
                report(.warning, line, column, "`\(replacement.avoid)` is replaced by itself")
            }
        }
        if let greeting = soul.greeting, let (line, column) = greetingLocation {
            if let limit = soul.length.maxCharacters, greeting.count > limit {
                report(.warning, line, column, "the greeting is \(greeting.count) characters, longer than `length.max_characters` (\(limit))")
            } else if soul.length.maxCharacters == nil, greeting.count > Self.longGreeting {
                report(.warning, line, column, "the greeting is \(greeting.count) characters; it opens every session, " +
                       "so a line or two (under \(Self.longGreeting)) reads best")
            }
        }
        // The soul's own wording should follow its own rules. Its labels, leads and greeting are
        // rendered through its replacements ("Could you …" shows as "Could ye …" in a soul that
        // replaces you by ye), so only words it avoids without a replacement are worth a word.
        let avoidedOutright = soul.vocabulary.avoid.map { $0.lowercased() }
        let avoided = avoidedOutright + soul.vocabulary.replace.map { $0.avoid.lowercased() }
        for (key, location) in stringLocations.sorted(by: { $0.key < $1.key }) {
            let lowered = location.text.lowercased()
            for term in avoidedOutright where ProseWords.containsWord(lowered, term) {
                report(.warning, location.line, location.column, "`\(key)` uses `\(term)`, which this soul avoids")
            }
            if soul.emoji == .never, ProseWords.containsEmoji(location.text) {
                report(.warning, location.line, location.column, "`\(key)` contains emoji but `emoji` is `none`")
            }
        }
        // Its examples in the voice too: one that says an avoided word, or shows emoji the soul
        // forbids, teaches a rewriting model the opposite of the rule.
        for example in soul.examples where example.good {
            let lowered = example.text.lowercased()
            for term in avoided where ProseWords.containsWord(lowered, term) {
                report(.warning, example.line, 1, "this example in the voice uses `\(term)`, which this soul avoids", file: example.file)
            }
            if soul.emoji == .never, ProseWords.containsEmoji(example.text) {
                report(.warning, example.line, 1, "this example in the voice contains emoji but `emoji` is `none`", file: example.file)
            }
            if soul.dashes == .none, example.text.contains("—") {
                report(.warning, example.line, 1, "this example in the voice has an em dash but `dashes` is `none`", file: example.file)
            }
        }
        if soul.emoji == .never {
            for (type, style) in soul.interventions.sorted(by: { $0.key < $1.key }) where style.icon != nil {
                report(.note, 1, 1, "interventions.\(type).icon is never shown because `emoji` is `none`")
            }
        }
    }
}

/// Small word utilities shared by the linter and the renderer.
enum ProseWords {
    static func words(in text: String) -> [Substring] {
        text.split { !($0.isLetter || $0.isNumber || $0 == "'" || $0 == "’" || $0 == "-") }
    }

    /// `term` occurs in `text` as whole words (both already lowercased).
    static func containsWord(_ text: String, _ term: String) -> Bool {
        var text = text, term = term
        return text.withUTF8 { t in
            term.withUTF8 { w in
                guard !w.isEmpty, t.count >= w.count else { return false }
                func isWordByte(_ b: UInt8) -> Bool { b >= 0x80 || (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A || (b >= 0x30 && b <= 0x39) || b == 0x27 }
                var i = 0
                while i + w.count <= t.count {
                    if t[i] == w[0] {
                        var k = 1
                        while k < w.count, t[i + k] == w[k] { k += 1 }
                        if k == w.count, i == 0 || !isWordByte(t[i - 1]), i + k == t.count || !isWordByte(t[i + k]) { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }

    static func containsEmoji(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isEmoji)
    }

    static func isEmoji(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x2000 { return false }
        if (0x1F000...0x1FAFF).contains(value) { return true }
        if (0x2600...0x27BF).contains(value) { return true }
        if (0x2B00...0x2BFF).contains(value) { return scalar.properties.isEmojiPresentation }
        return scalar.properties.isEmojiPresentation
    }
}
