import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionSoul

/// `reception soul …`: authoring tools for soul.md personalities.
struct SoulCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soul",
        abstract: "Write, check and compare soul.md personalities.",
        discussion: """
            lint, preview, diff, prompt and show take SOUL as a file or folder path, or the id or name of a known soul \
            (see `reception soul list`); bench takes a file or a known soul (a folder is several files: it times one); \
            new takes a NAME. Format: Souls/README.md.
            """,
        subcommands: [Lint.self, Preview.self, New.self, Diff.self, Prompt.self, List.self, Bench.self, Show.self])

    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report errors and warnings with line and column; exit 1 if there are errors.")

        @Argument(help: ArgumentHelp("soul.md files or folders, or the ids or names of known souls.", valueName: "soul"))
        var files: [String]

        @Flag(name: .long, help: "Show only errors.")
        var errorsOnly = false

        @Flag(name: .long, help: "Show every diagnostic; by default a message repeated more than \(Lint.shownAlike) times in a soul is shown \(Lint.shownAlike) times, then counted.")
        var all = false

        /// How many diagnostics with the same message a soul shows before the rest are counted:
        /// 800 KB of empty sections gave 200,000 lines of the same warning, and the one
        /// different message among them was lost.
        static let shownAlike = 5

        /// A message with what it quotes left out: `section "…" is empty`, "unknown key `…` in
        /// front matter, ignored" (ten unknown keys were ten kinds, each shown). One with a
        /// did-you-mean stays a kind of its own, so the suggestion is not counted away.
        static func kind(of message: String) -> String {
            message.replacingOccurrences(of: #""[^"]*""#, with: "\"…\"", options: .regularExpression)
                .replacingOccurrences(of: #"`[^`]*`"#, with: "`…`", options: .regularExpression)
        }

        func run() throws {
            var errors = 0, warnings = 0
            let catalog = SoulCatalog(directories: SoulCatalog.standardDirectories())
            for file in files {
                let diagnostics = SoulLinter.lint(file, catalog: catalog)
                var alike: [String: (first: SoulDiagnostic, count: Int)] = [:]
                var order: [String] = []
                for diagnostic in diagnostics where !errorsOnly || diagnostic.severity == .error {
                    // Alike by kind: what a message quotes (a section's name) differs from one to the next.
                    let key = diagnostic.severity.rawValue + ":" + Self.kind(of: diagnostic.message)
                    let count = (alike[key]?.count ?? 0) + 1
                    if count == 1 { order.append(key) }
                    alike[key] = (alike[key]?.first ?? diagnostic, count)
                    if all || count <= Self.shownAlike { print(diagnostic) }
                }
                for key in order {
                    guard let (first, count) = alike[key], !all, count > Self.shownAlike else { continue }
                    let more = count - Self.shownAlike
                    print("\(TerminalText.clean(first.file, singleLine: true)): \(more) more \(first.severity.rawValue)\(more == 1 ? "" : "s") " +
                          "of this kind: \(TerminalText.line(Self.kind(of: first.message), limit: 80)) (--all shows them)")
                }
                errors += diagnostics.errors.count
                warnings += diagnostics.warnings.count
            }
            // Souls, not files: a folder soul is several files (SOUL.md, STYLE.md, examples).
            let summary = "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s") in \(files.count) soul\(files.count == 1 ? "" : "s")"
            SoulCommand.printError(summary)
            if errors > 0 { throw ExitCode(1) }
        }
    }

    struct Preview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render the built-in example results (every outcome and intervention type) in a soul's voice.")

        @Argument(help: "A soul file or folder, or the id or name of a known soul.")
        var soul: String

        @Option(help: "Only this outcome: complete, saturated, bounded or inconclusive.")
        var outcome: String?

        @Option(help: "Trust level 0, 1 or 2 (gates the intervention types shown).")
        var trust: Int = 0

        @Option(help: ArgumentHelp("Also show each example rewritten by this language-model profile (an openai profile), facts checked.", valueName: "profile"))
        var rewrite: String?

        func validate() throws {
            guard (0...2).contains(trust) else { throw ValidationError("--trust must be 0, 1 or 2") }
            if let outcome, !Outcome.knownCases.map(\.rawValue).contains(outcome) {
                throw ValidationError("--outcome must be one of complete, saturated, bounded, inconclusive")
            }
        }

        func run() async throws {
            let soul = try SoulCommand.resolveSoul(soul)
            let outcome = outcome.map { Outcome(wire: $0) }
            guard let rewrite else {
                print(SoulPreview.render(soul, outcome: outcome, trustLevel: trust))
                if let note = SoulPreview.rewriteOnlyNote(soul) { print("\n" + note) }
                return
            }
            try await SoulCommand.withRewriter(rewrite) { rewriter in
                print(await SoulPreview.render(soul, outcome: outcome, trustLevel: trust, rewriter: rewriter))
            }
        }
    }

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a commented starting soul file.")

        @Argument(help: "The personality's name: one line of text, not blank, quoted in the file as it is (after -- if it starts with -).")
        var name: String

        @Option(name: .shortAndLong, help: "Where to write it: a file, or a folder to write NAME.md into (default: ./NAME.md, NAME in lowercase with dashes).")
        var output: String?

        @Flag(help: "Write into the user soul directory ($XDG_CONFIG_HOME/reception/souls).")
        var user = false

        @Flag(help: "Print the file instead of writing it.")
        var stdout = false

        @Flag(help: "Replace an existing file.")
        var force = false

        func run() throws {
            // Spaces around the name are a slip of the shell, not part of it.
            let name = name.trimmingCharacters(in: .whitespaces)
            var url: URL
            do {
                try SoulTemplate.check(name: name)
                if stdout { print(SoulTemplate.newSoul(name: name), terminator: ""); return }
                let fileName = SoulTemplate.fileName(for: name)
                if let output {
                    url = URL(fileURLWithPath: output)
                } else if user {
                    let directory = SoulCatalog.userDirectory()
                    do {
                        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                    } catch {
                        throw SoulTemplate.Refusal("cannot create \(directory.path)")
                    }
                    url = directory.appendingPathComponent(fileName)
                } else {
                    url = URL(fileURLWithPath: fileName)
                }
                url = try SoulTemplate.write(name: name, to: url, force: force)
            } catch let refusal as SoulTemplate.Refusal {
                // Not a usage error: the message alone, without the usage text.
                SoulCommand.printError("error: \(refusal)")
                throw ExitCode(1)
            }
            print("wrote \(url.path)")
            // A file in the soul folder named as a built-in soul takes its place everywhere.
            if user, let hidden = SoulCatalog(directories: []).entries().first(where: { $0.isBuiltIn && $0.id == url.deletingPathExtension().lastPathComponent }) {
                print("note: it hides the built-in soul \(hidden.id) (\(TerminalText.clean(hidden.name, singleLine: true))): /soul \(hidden.id) now loads this file; rename it to keep both.")
            }
            // `/soul reload` reloads, it does not choose a soul called reload.
            let id = url.deletingPathExtension().lastPathComponent
            if ["list", "show", "reload", "why"].contains(id.lowercased()) {
                print("note: in the REPL, /soul \(id) is a command of its own; choose this soul by its path: --soul \(url.path) or /soul \(url.path)")
            }
            print("next: edit it, then `reception soul lint \(url.path)` and `reception soul preview \(url.path)`")
        }
    }

    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show how two souls differ, knob by knob, and the same result through both side by side.")

        @Argument(help: "The first soul (file, id or name).")
        var first: String

        @Argument(help: "The second soul (file, id or name).")
        var second: String

        @Option(help: "The example result to render: complete, saturated, bounded or inconclusive.")
        var outcome: String = "inconclusive"

        @Option(help: "Trust level 0, 1 or 2.")
        var trust: Int = 0

        @Option(help: "Total width of the side-by-side view (40 to 400 columns).")
        var width: Int = 120

        func validate() throws {
            guard Outcome(userInput: outcome) != nil else {
                throw ValidationError("--outcome must be one of complete, saturated, bounded, inconclusive")
            }
            guard (40...400).contains(width) else { throw ValidationError("--width must be from 40 to 400 columns.") }
        }

        @Option(help: ArgumentHelp("Also show the example rewritten in both voices by this language-model profile (an openai profile).", valueName: "profile"))
        var rewrite: String?

        func run() async throws {
            let a = try SoulCommand.resolveSoul(first), b = try SoulCommand.resolveSoul(second)
            guard let rewrite else { return print(SoulDiff.report(a, b, outcome: Outcome(wire: outcome), trustLevel: trust, width: width)) }
            try await SoulCommand.withRewriter(rewrite) { rewriter in
                print(await SoulDiff.report(a, b, outcome: Outcome(wire: outcome), trustLevel: trust, width: width, rewriter: rewriter))
            }
        }
    }

    struct Prompt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the system prompt (or, with --rewrite, the rewrite prompt) a language-model backend gets for a soul.")

        @Argument(help: "A soul file or folder, or the id or name of a known soul.")
        var soul: String

        @Option(help: "Intent of the message: decision, research, action, curiosity or validation (shows what is sent with the message).")
        var intent: String?

        @Option(help: "Urgency of the message: immediate, soon, planning or exploratory.")
        var urgency: String = "exploratory"

        @Option(help: "The conversation's goal (shows what is sent with the message).")
        var goal: String?

        @Option(name: .customLong("turn"), help: "An earlier message of the conversation (repeatable, oldest first).")
        var turns: [String] = []

        @Option(help: "Print the prompt that rewrites this text in the soul's voice instead.")
        var rewrite: String?

        @Option(help: "A directory with system.mustache and rewrite.mustache to use instead of the built-in templates.")
        var templates: String?

        func validate() throws {
            if let intent, IntentType(userInput: intent) == nil {
                throw ValidationError("--intent must be one of \(IntentType.knownCases.map(\.rawValue).joined(separator: ", "))")
            }
            if UrgencyLevel(userInput: urgency) == nil {
                throw ValidationError("--urgency must be one of \(UrgencyLevel.knownCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        func run() throws {
            let soul = try SoulCommand.resolveSoul(soul)
            let prompts = try SoulPrompts(templates: templates.map { try SoulPromptTemplates(directory: URL(fileURLWithPath: $0)) } ?? .builtIn)
            if let rewrite {
                // The text comes from the command line, but what is printed is what a model is sent:
                // no escape sequence reaches either.
                print(prompts.rewritePrompt(soul: soul, text: TerminalText.clean(rewrite)), terminator: "")
                return
            }
            let classification = intent.map {
                IntentClassification(intent: IntentType(userInput: $0)!, urgency: UrgencyLevel(userInput: urgency)!,
                                     intentConfidence: 1, urgencyConfidence: 1, source: .manual)
            }
            let history = turns.map { ConversationTurn(query: TerminalText.clean($0)) }
            print(prompts.systemPrompt(soul: soul, history: history), terminator: "")
            // The per-message part is not in the system prompt (it would change on every turn);
            // an OpenAI-compatible backend sends it after the person's words.
            let message = ReceptionRequest(text: "", classification: classification, goal: goal.map { TerminalText.clean($0, singleLine: true) })
            if let guidance = message.answerGuidance {
                print("\n# Sent after the person's message, in the same message (it changes from message to message):\n\(guidance)")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what Reception read from a soul: its knobs, or with --derived each voice trait and the line it came from.")

        @Argument(help: "A soul file or folder, or the id or name of a known soul.")
        var soul: String

        @Flag(help: "List each trait derived from the prose with the file:line it came from.")
        var derived = false

        func run() throws {
            let soul = try SoulCommand.resolveSoul(soul, allTraits: derived)
            print(derived ? SoulShow.derived(soul) : SoulShow.summary(soul))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the known souls: built-in, the project's Souls/, the user's.")

        func run() throws {
            let catalog = SoulCatalog(directories: SoulCatalog.standardDirectories())
            let entries = catalog.entries()
            // Columns as wide as their longest entry: a name was cut at 12 characters, unmarked.
            let idWidth = max(16, entries.map { $0.id.count }.max() ?? 0)
            let nameWidth = max(12, entries.map { TerminalText.line($0.name, limit: 60).count }.max() ?? 0)
            for entry in entries {
                let origin = entry.path ?? "built-in"
                let status = entry.errors.isEmpty ? "" : "  (\(entry.errors.count) error\(entry.errors.count == 1 ? "" : "s"): reception soul lint \(origin))"
                let name = TerminalText.line(entry.name, limit: 60)
                print("\(entry.id.padding(toLength: idWidth, withPad: " ", startingAt: 0)) \(name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)) \(origin)\(status)")
            }
        }
    }

    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Median time to parse a soul and to render a typical result (build with -c release).")

        @Option(help: "Runs per measurement (1 to 1000000).")
        var iterations: Int = 5000

        @Argument(help: "A soul file path, or the id or name of a known soul (default: the built-in default soul).")
        var soul: String?

        func validate() throws {
            guard (1...1_000_000).contains(iterations) else { throw ValidationError("--iterations must be from 1 to 1000000.") }
        }

        func run() throws {
            #if DEBUG
            SoulCommand.printError("warning: this is a debug build; figures are only meaningful with `swift build -c release`")
            #endif
            let source = try soul.map(SoulCommand.soulText)
            // A soul that does not parse is not timed: the figures would be those of a parse
            // that fails at its first error. Its errors are said as `soul lint` says them.
            if let source {
                do {
                    _ = try SoulParser.parse(source.text, fileName: source.fileName)
                } catch let error as SoulParser.ParseError {
                    SoulCommand.printError(error.description)
                    throw ExitCode(1)
                }
            }
            print(SoulBenchmark.run(iterations: iterations, soulText: source?.text))
        }
    }
}

extension SoulCommand {
    /// Connects a rewrite profile for `body`, and disconnects it after.
    static func withRewriter(_ profile: String, _ body: (SoulRewriter) async throws -> Void) async throws {
        let stage: RewriteSetup.Stage
        do {
            let catalog = try BackendSetup.catalog(environment: .standard())
            stage = try await RewriteSetup.connect(profile, in: catalog, timeoutSeconds: nil)
        } catch {
            // Like an unknown --backend or --soul: a name the configuration lacks, or a server
            // that does not answer, is no mistake in how the command was typed (exit 1, no usage).
            printError(TerminalText.clean("error: cannot use the rewrite profile \(profile): \(error)"))
            throw ExitCode(1)
        }
        if let notice = stage.connection.notice { printError("warning: \(notice)") }
        do {
            try await body(stage.rewriter)
        } catch {
            await stage.connection.shutdown()
            throw error
        }
        await stage.connection.shutdown()
    }

    /// Where a soul named on the command line is: a path as given, else a known soul (by id or
    /// name) as its file or its built-in text. An unknown one prints the error every soul
    /// command gives and exits 1.
    enum Located {
        case path(String)
        case builtIn(id: String, text: String)
    }

    static func locate(_ argument: String) throws -> Located {
        // A link in a loop or to nothing is a path all the same: reading it says which.
        if FileManager.default.fileExists(atPath: argument) || PlainFile.brokenLink(argument) != nil { return .path(argument) }
        let catalog = SoulCatalog(directories: SoulCatalog.standardDirectories())
        if let entry = catalog.entry(argument) {
            if let path = entry.path { return .path(path) }
            if let text = SoulCatalog.builtInText(entry.id) { return .builtIn(id: entry.id, text: text) }
        }
        // Not a usage error: the message alone. Ids are file names: cleaned before printing.
        let known = catalog.entries().map { TerminalText.line($0.id, limit: 60) }
        printError("error: \(TerminalText.line(argument, limit: 200)): no such file or known soul (known: \(known.joined(separator: ", ")))")
        throw ExitCode(1)
    }

    /// A soul from a path, or from the catalog by id or name; a broken file prints its errors.
    static func resolveSoul(_ argument: String, allTraits: Bool = false) throws -> Soul {
        do {
            switch try locate(argument) {
            case .path(let path): return try SoulParser.load(contentsOf: URL(fileURLWithPath: path), allTraits: allTraits)
            case .builtIn(let id, let text): return try SoulParser.parse(text, fileName: id + ".md", allTraits: allTraits)
            }
        } catch let error as SoulParser.ParseError {
            SoulCommand.printError(error.description)
            throw ExitCode(1)
        }
    }

    /// The text of a soul file, with the name its errors are reported under (`soul bench`
    /// times one file; a folder soul has several).
    static func soulText(_ argument: String) throws -> (text: String, fileName: String) {
        switch try locate(argument) {
        case .builtIn(let id, let text):
            return (text, id + ".md")
        case .path(let path):
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                printError("error: \(TerminalText.line(path, limit: 200)) is a soul folder; soul bench times one file: give \(TerminalText.line(path, limit: 200))/SOUL.md")
                throw ExitCode(1)
            }
            do {
                return (try SoulParser.text(contentsOf: URL(fileURLWithPath: path)), path)
            } catch let error as SoulParser.ParseError {
                printError(error.description)
                throw ExitCode(1)
            }
        }
    }

    static func printError(_ text: String) {
        StandardStreams.writeError(text + "\n")
    }
}
