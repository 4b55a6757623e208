import Foundation
import ReceptionTestSupport
import Testing

/// The soul tools' options are checked before they run, with the range they take.
@Suite("Soul commands through the binary")
struct SoulCommandsEndToEndTests {
    @Test func outOfRangeOptionsAreRefusedWithTheirRange() async throws {
        let cases: [([String], String)] = [
            (["soul", "diff", "butler", "plain", "--width", "0"], "--width must be from 40 to 400 columns."),
            (["soul", "diff", "butler", "plain", "--width", "100000"], "--width must be from 40 to 400 columns."),
            (["soul", "bench", "--iterations", "0"], "--iterations must be from 1 to 1000000."),
        ]
        for (arguments, expected) in cases {
            let (output, errors, status) = try await PipedREPL.run(arguments, input: "", separateErrors: true)
            #expect(status == 64 && errors.contains(expected), "\(arguments): \(output)\(errors)")
        }
    }

    /// 800 KB of empty sections gave 200,000 lines of one warning, and a different message
    /// among them was lost: a kind of message repeated in a soul is shown five times, then
    /// counted; `--all` shows every one, and the summary counts them all either way.
    @Test func aWarningRepeatedManyTimesIsShownFiveTimesThenCounted() async throws {
        let folder = Scratch.root.appendingPathComponent("reception-lint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("empty.md")
        try ("# Ada\n\nI am Ada.\n\n" + (0..<50).map { "## Empty \($0)\n\n" }.joined()).write(to: file, atomically: true, encoding: .utf8)
        let (output, errors, status) = try await PipedREPL.run(["soul", "lint", file.path], input: "", separateErrors: true)
        #expect(status == 0 && errors.contains("0 errors, 50 warnings in 1 soul"), "\(errors)")
        #expect(output.components(separatedBy: "\n").filter { $0.contains(": warning: section \"Empty") }.count == 5, "\(output)")
        #expect(output.contains("\(file.path): 45 more warnings of this kind: section \"…\" is empty (--all shows them)"), "\(output)")
        let (every, _, _) = try await PipedREPL.run(["soul", "lint", "--all", file.path], input: "", separateErrors: true)
        #expect(every.components(separatedBy: "\n").filter { $0.contains(": warning: section \"Empty") }.count == 50 && !every.contains("more warnings"),
                "\(every)")
        // Unknown keys are one kind too, whatever key each names (ten were ten kinds, all shown).
        let keys = folder.appendingPathComponent("keys.md")
        try ("---\n" + (0..<10).map { "a\($0): 1\n" }.joined() + "tonne: calm\n---\nI am Ada.\n").write(to: keys, atomically: true, encoding: .utf8)
        let (keyed, _, _) = try await PipedREPL.run(["soul", "lint", keys.path], input: "", separateErrors: true)
        #expect(keyed.components(separatedBy: "\n").filter { $0.contains(": warning: unknown key") }.count == 6, "five of ten, and the suggestion: \(keyed)")
        #expect(keyed.contains("\(keys.path): 5 more warnings of this kind: unknown key `…` in front matter, ignored (--all shows them)"), "\(keyed)")
        #expect(keyed.contains("unknown key `tonne` in front matter, ignored; did you mean `tone`?"), "a suggestion is not counted away: \(keyed)")
    }

    /// `soul bench` takes a soul as the other soul commands do: a path, an id or a name.
    @Test func soulBenchTakesAKnownSoulByIdOrName() async throws {
        func parsedBytes(_ arguments: [String]) async throws -> String? {
            let (output, _, status) = try await PipedREPL.run(["soul", "bench", "--iterations", "2"] + arguments, input: "", separateErrors: true)
            guard status == 0, let range = output.range(of: #"soul parse \(\d+ bytes\)"#, options: .regularExpression) else { return nil }
            return String(output[range])
        }
        let butler = try #require(try await parsedBytes(["butler"]))
        // Both timed: a bench that failed (nil) must not pass as "a different soul".
        let standard = try #require(try await parsedBytes([]), "soul bench times the default soul")
        #expect(standard != butler, "the default soul is not the butler")
        let folder = Scratch.root.appendingPathComponent("reception-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (_, missing, status) = try await PipedREPL.run(["soul", "bench", "nosuch"], input: "", separateErrors: true)
        #expect(status == 1 && missing.contains("error: nosuch: no such file or known soul (known: butler,"), "\(missing)")
        let (_, folderError, folderStatus) = try await PipedREPL.run(["soul", "bench", folder.path], input: "", separateErrors: true)
        #expect(folderStatus == 1 && folderError.contains("is a soul folder; soul bench times one file"), "\(folderError)")
    }

    /// A soul that does not parse is not timed: `soul bench` says its errors, located, as
    /// `soul lint` does, and fails (it timed the failing parse and exited 0).
    @Test func soulBenchRefusesASoulThatDoesNotParse() async throws {
        let folder = Scratch.root.appendingPathComponent("reception-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("broken.md")
        try "---\nname: Broken\nemoji: sometimes\n---\n# Broken\n\nA soul with a knob set to a value it does not take.\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let (output, errors, status) = try await PipedREPL.run(["soul", "bench", "--iterations", "2", file.path], input: "", separateErrors: true)
        #expect(status == 1, "status \(status): \(output)\(errors)")
        #expect(errors.contains("\(file.path):3:8: error: `emoji` must be one of none, sparing, allowed; got `sometimes`"), "\(errors)")
        #expect(!output.contains("median"), "nothing is timed: \(output)")
    }

    /// `plain` is listed as known and works with --soul; every soul tool opens it too (they
    /// said "no such file or known soul" while listing it).
    @Test func everySoulToolOpensThePlainSoul() async throws {
        for tool in [["show"], ["preview", "--outcome", "complete"], ["prompt"], ["diff", "default"]] {
            let (output, errors, status) = try await PipedREPL.run(["soul", tool[0], "plain"] + tool.dropFirst(), input: "", separateErrors: true)
            #expect(status == 0 && !errors.contains("no such file"), "\(tool): \(errors)")
            #expect(!output.isEmpty, "\(tool)")
        }
        let (shown, _, _) = try await PipedREPL.run(["soul", "show", "plain"], input: "", separateErrors: true)
        #expect(shown.contains("name: plain") && shown.contains("emoji: none"), "\(shown)")
    }

    @Test func soulListShowsALongNameWhole() async throws {
        let home = Scratch.root.appendingPathComponent("reception-soul-list-\(UUID().uuidString)")
        let souls = home.appendingPathComponent("config/reception/souls")
        try FileManager.default.createDirectory(at: souls, withIntermediateDirectories: true)
        try "# Captain Rummy the Longwinded\n\nA pirate.\n".write(to: souls.appendingPathComponent("rummy.md"), atomically: true, encoding: .utf8)
        let (output, status) = try await PipedREPL.run(["soul", "list"], input: "", home: home)
        #expect(status == 0)
        #expect(output.contains("Captain Rummy the Longwinded"), "\(output)")
    }

    /// `/soul` marks a soul whose file has errors, as `reception soul list` does, and the
    /// error for choosing it says "error:" once.
    @Test func aBrokenSoulIsMarkedInTheREPLListAndItsErrorSaidOnce() async throws {
        let home = Scratch.root.appendingPathComponent("reception-soul-broken-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let souls = home.appendingPathComponent("config/reception/souls")
        try FileManager.default.createDirectory(at: souls, withIntermediateDirectories: true)
        try Data([0x23, 0x20, 0x41, 0x0A, 0xCA, 0xFE]).write(to: souls.appendingPathComponent("garbled.md"))
        let (output, errors, _) = try await PipedREPL.run(["--no-log"], input: "/soul\n/soul garbled\n", home: home, separateErrors: true)
        #expect(output.contains("  garbled  (1 error: reception soul lint garbled)"), "\(output)")
        #expect(errors.contains("not UTF-8") && errors.components(separatedBy: "error:").count == 2, "\(errors)")
    }

    /// A soul loaded from a file is marked current in `/soul list`, and a path with spaces is
    /// one path.
    @Test func aSoulFromAFileIsListedAsCurrentAndAPathMayHaveSpaces() async throws {
        let home = Scratch.root.appendingPathComponent("reception-soul-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let file = home.appendingPathComponent("my pirate.md")
        try "# Pirate Pete\n\nArr.\n".write(to: file, atomically: true, encoding: .utf8)
        let (output, status) = try await PipedREPL.run([], input: "/soul \(file.path)\n/soul list\n", home: home)
        #expect(status == 0)
        #expect(output.contains("Now speaking as Pirate Pete"), "\(output)")
        #expect(output.contains("* Pirate Pete (current, not one of these)"), "\(output)")
    }
    /// After an edit, `/soul reload` says once that it reloaded (the check for edits before
    /// each line said it too); a file deleted under the session is said to be gone, not to
    /// have errors at line 1.
    @Test func reloadSaysItOnceAndAGoneFileIsGone() async throws {
        let home = Scratch.root.appendingPathComponent("reception-soul-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let file = home.appendingPathComponent("owl.md")
        try "# Night Owl\n\nA quiet voice.\n".write(to: file, atomically: true, encoding: .utf8)
        let terminal = try TerminalSession(arguments: ["--soul", file.path, "--no-log"], home: home)
        var at = try await terminal.waitFor("› ")
        try? await Task.sleep(for: .milliseconds(1100))  // a modification time the edit changes
        try "# Night Owl\n\nA quieter voice.\n".write(to: file, atomically: true, encoding: .utf8)
        terminal.enter("/soul reload")
        at = try await terminal.waitFor("Reloaded Night Owl", after: at)
        at = try await terminal.waitFor("› ", after: at)
        #expect(!terminal.screen.contains("changed on disk"), "said once: \(terminal.screen)")
        try FileManager.default.removeItem(at: file)
        terminal.enter("/soul reload")
        at = try await terminal.waitFor("is gone (moved or deleted); Night Owl speaks on as last read.", after: at)
        _ = try await terminal.waitFor("› ", after: at)
        #expect(!terminal.screen.contains("has errors"), "\(terminal.screen)")
        terminal.enter("/quit")
        #expect(try await terminal.exitStatus() == 0)
    }
    /// A soul of one's own named as a built-in one takes its place: `soul new` says so.
    @Test func aUserSoulNamedAsABuiltInOneIsSaidToHideIt() async throws {
        let home = Scratch.root.appendingPathComponent("reception-soul-hide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let (hiding, status) = try await PipedREPL.run(["soul", "new", "Butler", "--user"], input: "", home: home)
        #expect(status == 0 && hiding.contains("note: it hides the built-in soul butler (Ambrose)"), "\(hiding)")
        let (own, _) = try await PipedREPL.run(["soul", "new", "Night Owl", "--user"], input: "", home: home)
        #expect(own.contains("wrote") && !own.contains("hides") && !own.contains("a command of its own"), "\(own)")
        // `/soul reload` reloads: a soul called reload is chosen by its path, and `soul new` says so.
        let (named, _) = try await PipedREPL.run(["soul", "new", "Reload", "--user"], input: "", home: home)
        #expect(named.contains("note: in the REPL, /soul reload is a command of its own; choose this soul by its path: --soul ")
                && named.contains("/reception/souls/reload.md or /soul "), "\(named)")
    }

    /// `soul prompt --rewrite TEXT` printed the text's escape sequences (the terminal turned
    /// red): what it prints is what a model is sent, and both are cleaned.
    @Test func soulPromptRewriteCleansTheTextItIsGiven() async throws {
        let (output, status) = try await PipedREPL.run(["soul", "prompt", "default", "--rewrite", "Utilize the \u{1B}[31mred line."], input: "")
        #expect(status == 0, "\(output)")
        #expect(output.contains("Utilize the red line.") && !output.contains("\u{1B}"), "\(output)")
        let (system, _) = try await PipedREPL.run(["soul", "prompt", "default", "--turn", "hi \u{1B}]0;title\u{07}there",
                                                  "--goal", "plan \u{1B}[2Ja trip", "--intent", "decision"], input: "")
        #expect(system.contains("plan a trip") && !system.contains("\u{1B}") && !system.contains("\u{07}"), "\(system)")
    }


    /// A link in a loop was "no such file or known soul" to lint and "No soul file at" to
    /// --soul: the name is there, and what is wrong with it is said.
    @Test func aSoulThatIsALinkInALoopOrToNothingIsSaidToBeOne() async throws {
        let folder = Scratch.root.appendingPathComponent("reception-soul-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let loop = folder.appendingPathComponent("loop1.md"), other = folder.appendingPathComponent("loop2.md")
        try FileManager.default.createSymbolicLink(atPath: loop.path, withDestinationPath: other.path)
        try FileManager.default.createSymbolicLink(atPath: other.path, withDestinationPath: loop.path)
        let dangling = folder.appendingPathComponent("gone.md")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: folder.appendingPathComponent("nothing.md").path)
        let (linted, lintStatus) = try await PipedREPL.run(["soul", "lint", loop.path, dangling.path], input: "")
        #expect(lintStatus == 1 && linted.contains("loop1.md:1:1: error: cannot be read: it is a symbolic link in a loop (too many symbolic links)")
                && linted.contains("gone.md:1:1: error: cannot be read: it is a symbolic link to nothing"), "\(linted)")
        let (started, status) = try await PipedREPL.run(["--soul", loop.path, "--no-log"], input: "/quit\n")
        #expect(status != 0 && started.contains("\(loop.path) cannot be read: it is a symbolic link in a loop"), "\(started)")
    }

}
