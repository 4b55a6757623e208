import Foundation
import ReceptionTestSupport
import Testing

/// Scripts and pipes: no terminal, no ANSI codes, one line per event with --json.
@Suite("REPL without a terminal")
struct PipedModeTests {
    @Test func plainModeIsScriptableAndFreeOfEscapeCodes() async throws {
        let (output, status) = try await PipedREPL.run(["--trust", "0", "--local-step-ms", "1"], input: "what can reception do?\n/approve\n/followups\n/quit\n")
        #expect(status == 0)
        #expect(!output.contains("\u{1B}"), "no ANSI codes in a pipe")
        #expect(output.contains("curiosity / exploratory"))
        #expect(output.contains("Plan"))
        #expect(output.contains("searched"))
    }

    /// A line of input is read with a bound: a 3 MB line (a file piped in by mistake) was
    /// kept whole, 50 MB of it took 273 MB of memory, for a message no backend takes. It is
    /// said and skipped, as is a message continued with "\\" past the bound, and the lines
    /// after them are the script's next messages. A script that lost a message that way
    /// exits 1, as one whose task failed, where it exited 0 as if all had been sent.
    @Test func aLineOrAContinuedMessageOverTheBoundIsSkippedAndSaid() async throws {
        let huge = String(repeating: "a", count: 3 << 20)
        let half = String(repeating: "b", count: 600 << 10) + "\\\n"
        let input = huge + "\n" + half + half + half + "last part\nwhat can you do?\n"
        let (output, errors, status) = try await PipedREPL.run(["--no-log", "--local-step-ms", "0"], input: input, separateErrors: true)
        #expect(status == 1, "\(output)\(errors)")
        #expect(errors.contains("error: a line of \(3 << 20) bytes was not sent: a message is at most 1 MB."), "\(errors)")
        #expect((output + errors).contains("A message of several lines over 1 MB was not sent."), "\(output)\(errors)")
        #expect(!output.contains("last part"), "the rest of the long message is not sent on its own: \(output)")
        #expect(output.contains("searched"), "the next message is answered: \(output)")
        #expect(!output.contains("aaaa") && !output.contains("bbbb"))
        // Each alone is enough for the exit status.
        for alone in [huge + "\nwhat can you do?\n", half + half + "last part\nwhat can you do?\n"] {
            let (answered, said, code) = try await PipedREPL.run(["--no-log", "--local-step-ms", "0"], input: alone, separateErrors: true)
            #expect(code == 1 && answered.contains("searched") && (answered + said).contains("was not sent"), "\(answered)\(said)")
        }
        let (fine, _, fineStatus) = try await PipedREPL.run(["--no-log", "--local-step-ms", "0"], input: half + "last part\n", separateErrors: true)
        #expect(fineStatus == 0 && fine.contains("searched"), "a message under the bound is sent: \(fine)")
    }

    /// A mistyped subcommand is named as one, with the subcommands, not answered with the
    /// chat command's usage (or, after `help`, with the root help); nothing is read from
    /// standard input.
    @Test func anUnknownSubcommandIsNamedWithTheSubcommands() async throws {
        let (output, errors, status) = try await PipedREPL.run(["clasify", "is it going to rain"], input: "hello\n", separateErrors: true)
        #expect(status == 64 && output.isEmpty, "\(output)")
        #expect(errors.contains("unknown subcommand 'clasify'. Did you mean 'classify'?") && errors.contains("Subcommands: chat, classify, eval"),
                "\(errors)")
        let (help, _) = try await PipedREPL.run(["help"], input: "")
        #expect(help.contains("SUBCOMMANDS"), "help stays a subcommand: \(help)")
        // Asked for help on a subcommand there is none of, not shown the root help with exit 0.
        let (_, helpErrors, helpStatus) = try await PipedREPL.run(["help", "clasify"], input: "", separateErrors: true)
        #expect(helpStatus == 64 && helpErrors.contains("unknown subcommand 'clasify'. Did you mean 'classify'?"), "\(helpErrors)")
        let (soulHelp, soulStatus) = try await PipedREPL.run(["help", "soul"], input: "")
        #expect(soulStatus == 0 && soulHelp.contains("soul.md"), "\(soulHelp)")
    }

    /// The REPL's options may come before the word `chat` as well as after it; "chat" as an
    /// option's value stays that value.
    @Test func chatOptionsBeforeChatAreChatOptions() async throws {
        let (output, errors, status) = try await PipedREPL.run(["--no-log", "--local-step-ms", "1", "chat"], input: "thanks\n", separateErrors: true)
        #expect(status == 0 && output.contains("You're welcome."), "\(output)\(errors)")
        let (_, soulErrors, soulStatus) = try await PipedREPL.run(["--soul", "chat"], input: "", separateErrors: true)
        #expect(soulStatus == 1 && soulErrors.contains("No soul named \"chat\""), "\(soulErrors)")
        // Another mistake before the word is named, not the word.
        let (_, trustErrors, trustStatus) = try await PipedREPL.run(["--trust", "9", "chat"], input: "", separateErrors: true)
        #expect(trustStatus == 64 && trustErrors.contains("--trust must be 0, 1 or 2.") && !trustErrors.contains("Unexpected argument"), "\(trustErrors)")
    }

    /// `reception serve` speaks as itself: its usage lists the servers, and an unknown one is
    /// named (the reference-server program's own name was shown, a name nobody typed).
    @Test func serveSaysItsServersAndNamesAnUnknownOne() async throws {
        let (help, _, helpStatus) = try await PipedREPL.run(["serve"], input: "", separateErrors: true)
        #expect(helpStatus == 0 && help.contains("Servers: loop-symphony, openai") && !help.contains("USAGE: reception-reference-server"), "\(help)")
        let (_, errors, status) = try await PipedREPL.run(["serve", "nosuch"], input: "", separateErrors: true)
        #expect(status == 64 && errors.contains("Unknown server 'nosuch'") && errors.contains("reception serve"), "\(errors)")
    }

    /// A name no backend, profile or soul has is the same mistake wherever it is given: exit 1,
    /// one "error:" line naming what is known, no usage line, nothing read from the script.
    @Test func anUnknownBackendRewriteProfileOrSoulIsTheSameMistake() async throws {
        for (arguments, said) in [(["--backend", "nosuch"], "Unknown backend \"nosuch\""),
                                  (["--rewrite", "nosuch"], "error: cannot use the rewrite profile nosuch: Unknown backend \"nosuch\""),
                                  (["--soul", "nosuch"], "No soul named \"nosuch\"")] {
            let (output, errors, status) = try await PipedREPL.run(arguments, input: "hello\n", separateErrors: true)
            #expect(status == 1 && errors.contains(said), "\(arguments): \(errors)")
            #expect(!errors.contains("Usage:") && !errors.contains("Error:") && output.isEmpty, "\(arguments): \(output)\(errors)")
        }
    }

    /// Knowledge files that cannot be read are a warning on standard error, not part of the
    /// answers on standard output, and the rest of the folder answers.
    @Test func unreadableKnowledgeFilesAreAWarningOnStandardError() async throws {
        let notes = Scratch.root.appendingPathComponent("reception-notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        try "# Wifi\n\nThe guest password is seagull42.\n".write(to: notes.appendingPathComponent("wifi.md"), atomically: true, encoding: .utf8)
        try Data([0x63, 0x61, 0x66, 0xE9, 0x0A]).write(to: notes.appendingPathComponent("latin1.md"))
        let (output, errors, status) = try await PipedREPL.run(["--knowledge", notes.path, "--local-step-ms", "1", "--no-log"],
                                                               input: "what is the wifi password?\n", separateErrors: true)
        #expect(status == 0 && output.contains("seagull42") && !output.contains("latin1.md"), "\(output)")
        #expect(errors.contains("warning: skipped a knowledge file that cannot be read; the others answer:") && errors.contains("latin1.md: is not UTF-8"),
                "\(errors)")
    }

    /// A negative number is a value out of range, not a missing one ("Missing value for
    /// '--local-step-ms <ms>'" sent people looking for the wrong mistake).
    @Test func aNegativeNumberIsNamedAsOutOfRange() async throws {
        for (arguments, said) in [(["--local-step-ms", "-5"], "--local-step-ms must be 0...60000."),
                                  (["--trust", "-1"], "--trust must be 0, 1 or 2."),
                                  (["logs", "--since", "-5d"], "--since -5d is not a date"),
                                  (["logs", "-n", "-3"], "--limit must be 1...100000.")] {
            let (_, errors, status) = try await PipedREPL.run(arguments, input: "", separateErrors: true)
            #expect(status == 64 && errors.contains(said) && !errors.contains("Missing value"), "\(arguments): \(errors)")
        }
    }

    /// A line that is not UTF-8 ("café" in Windows-1252) is sent with its bad byte replaced,
    /// as `classify` reads it, and said: it went with � unsaid, where `classify` warns.
    @Test func aLineThatIsNotUTF8IsSentAndSaid() async throws {
        let script = #"printf 'caf\351 au lait or espresso?\nwhat can you do?\n' | exec "$0" --no-log --local-step-ms 0 --json"#
        let (output, errors, status) = try await PipedREPL.run(["-c", script, try Binary.reception()], input: "", separateErrors: true,
                                                               executable: "/bin/sh")
        #expect(status == 0, "\(output)\(errors)")
        #expect(errors.components(separatedBy: "warning: a line is not UTF-8: its bad bytes were replaced with \u{FFFD} and it was sent.").count == 2,
                "said once, for the one line: \(errors)")
        #expect(output.contains("caf\u{FFFD} au lait") || output.contains(#"caf\ufffd au lait"#), "\(output)")
    }

    /// --knowledge with a session that starts on another backend was dropped without a word
    /// (with -c, the question then went to the continued conversation's server); it is said,
    /// and said nowhere when the session starts on `local`.
    @Test func knowledgeForASessionThatStartsElsewhereIsNoted() async throws {
        let notes = Scratch.root.appendingPathComponent("reception-notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: notes) }
        try "# Garden\n\nCompost: three parts brown to one part green.\n".write(to: notes.appendingPathComponent("garden.md"), atomically: true, encoding: .utf8)
        let (_, errors, _) = try await PipedREPL.run(["--backend", "loop-symphony", "--knowledge", notes.path, "--no-log"], input: "",
                                                     environment: ["LOOP_SYMPHONY_URL": refusingLoopbackURL()], separateErrors: true)
        #expect(errors.contains("note: --knowledge is for the local backend; this session starts on loop-symphony, and /backend local answers from it."),
                "\(errors)")
        let (answer, quiet, status) = try await PipedREPL.run(["--knowledge", notes.path, "--no-log", "--local-step-ms", "0"],
                                                              input: "what is in the compost?\n", separateErrors: true)
        #expect(status == 0, "\(answer)\(quiet)")
        #expect(answer.contains("three parts brown") && !quiet.contains("--knowledge is for"), "\(answer)\(quiet)")
    }

    /// --json and --plain together were both taken, and JSON won unsaid: a script that asked
    /// for plain text got JSON. Nothing is read or sent.
    @Test func jsonAndPlainTogetherAreRefused() async throws {
        let (output, errors, status) = try await PipedREPL.run(["--json", "--plain", "--no-log"], input: "hello\n", separateErrors: true)
        #expect(status == 64 && errors.contains("--json prints events as JSON, --plain as plain text: use one of them."), "\(errors)")
        #expect(output.isEmpty, "\(output)")
    }

    /// A script's output holds the answers; what went wrong is on stderr.
    @Test func errorsGoToStandardErrorAndAnswersToStandardOutput() async throws {
        let (output, errors, status) = try await PipedREPL.run(["--trust", "1", "--local-step-ms", "1"],
                                                         input: "/soul no-such-soul\nwhat can reception do?\n", separateErrors: true)
        #expect(status == 0)
        #expect(errors.contains("error:") && errors.contains("no-such-soul"), "errors: \(errors)")
        #expect(!output.contains("error:"), "output: \(output)")
        #expect(output.contains("Reception"), "the answer is on standard output: \(output)")
    }

    /// What a command says matches the state behind it: a did-you-mean only for a near miss,
    /// no "cleared" for a goal never set, no "the last result" before any answer; and a reply
    /// to "hello" gets no soul's "here is the answer" lead in front of it.
    @Test func repliesMatchTheStateBehindThem() async throws {
        let (output, errors, status) = try await PipedREPL.run(
            ["--trust", "1", "--local-step-ms", "1", "--soul", "butler", "--no-log"],
            input: "/followups\n/goal clear\n/foo\n/hepl\nhello\n", separateErrors: true)
        #expect(status == 0)
        #expect(output.contains("No answer yet, so no follow-ups") && !output.contains("The last result"), "\(output)")
        #expect(output.contains("No goal was set") && !output.contains("Goal cleared"), "\(output)")
        #expect(errors.contains("Unknown command /foo. /help lists the commands."), "no far-fetched guess: \(errors)")
        #expect(errors.contains("Unknown command /hepl. Did you mean /help?"), "\(errors)")
        let reply = try #require(output.split(separator: "\n").first { $0.contains("I am the local backend") }, "\(output)")
        #expect(reply.hasPrefix("Hello."), "nothing leads into the reply to hello: \(reply)")
    }

    /// `/soul list` marks the soul in use by its id; `/soul show` prints the file as it is on
    /// disk (its `#` lines and front matter intact, so it can be pasted back); a file that is
    /// not Markdown is not a soul.
    @Test func soulCommandsListShowAndRefuseWhatIsNotASoul() async throws {
        let (output, errors, status) = try await PipedREPL.run(["--trust", "1", "--local-step-ms", "1"],
                                                         input: "/soul list\n/soul show\n/soul /etc/hostname\n", separateErrors: true)
        #expect(status == 0)
        #expect(output.contains("* default (current)"), "output: \(output)")
        #expect(output.contains("# The soul Reception starts with"), "the comment keeps its #: \(output)")
        #expect(output.contains("\n  max_sentences: 4"), "the front matter keeps its indentation: \(output)")
        #expect(errors.contains("/etc/hostname is not a soul"), "errors: \(errors)")
    }

    /// `/followups N` sends follow-up N (it used to list them and ignore the number); `/cancel`
    /// at the prompt, after the task finished, says nothing runs rather than the backend's reply.
    @Test func followupsByNumberAndCancelWhenNothingRuns() async throws {
        let (output, errors, status) = try await PipedREPL.run(["--trust", "1", "--local-step-ms", "1"],
                                                         input: "what can reception do?\n/followups 1\n/cancel\n", separateErrors: true)
        #expect(status == 0)
        #expect(output.components(separatedBy: "searched 26 passages").count - 1 == 2, "two answers: \(output)")
        #expect(output.contains("→ Tell me more about"), "the follow-up was sent: \(output)")
        #expect(errors.contains("Nothing is running: the last task"), "errors: \(errors)")
    }

    /// "tell me more" after an answer a terse soul cut shows the whole of it, which the engine
    /// already sent (asked, the local engine found nothing more); asked again, the engine is
    /// asked. A question with a subject of its own is always sent.
    @Test func tellMeMoreAfterACutAnswerShowsTheWholeOfIt() async throws {
        let (output, status) = try await PipedREPL.run(["--soul", "terse-engineer", "--local-step-ms", "1"],
                                                       input: "how do souls work?\ntell me more\ntell me more\n")
        #expect(status == 0)
        let parts = output.components(separatedBy: "The whole of the last answer, with what the soul left out; ask again and the local backend is asked for more.")
        #expect(parts.count == 2, "shown once: \(output)")
        let first = parts[0], whole = parts.count == 2 ? parts[1] : ""
        #expect(first.contains("trimmed: ") && !first.contains("reception soul new"), "the cut answer: \(first)")
        #expect(whole.contains("reception soul new"), "a finding the terse soul left out: \(whole)")
        #expect(output.components(separatedBy: "· searched ").count - 1 == 2, "the second \"tell me more\" went to the engine: \(output)")
        let (json, _) = try await PipedREPL.run(["--json", "--soul", "terse-engineer", "--local-step-ms", "1"], input: "how do souls work?\ntell me more\n")
        let types = json.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["type"] as? String
        }
        #expect(types.last == "answer_in_full" && types.filter { $0 == "result" }.count == 1, "\(types)")
        let (subject, _) = try await PipedREPL.run(["--soul", "terse-engineer", "--local-step-ms", "1"],
                                                   input: "how do souls work?\ntell me more about trust levels\n")
        #expect(!subject.contains("The whole of the last answer") && subject.components(separatedBy: "· searched ").count - 1 == 2, "\(subject)")
    }

    @Test func jsonModePrintsOneObjectPerEvent() async throws {
        let (output, status) = try await PipedREPL.run(["--json", "--trust", "1", "--local-step-ms", "1"], input: "what can reception do?\n")
        #expect(status == 0)
        let objects = try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }
        let types = objects.compactMap { $0["type"] as? String }
        #expect(types.first == "ready")
        // The soul's own name with the id /soul list and `reception logs` show it under.
        #expect((objects.first?["message"] as? String)?.contains("soul Reception (default)") == true, "\(objects.first ?? [:])")
        #expect(Array(types.dropFirst()) == ["classification", "accepted", "status", "progress", "progress", "status", "result"])
        let result = try #require(objects.last?["result"] as? [String: Any])
        #expect(result["outcome"] as? String == "complete")
        #expect((objects.last?["display"] as? [Any])?.isEmpty == false, "the soul's rendering travels with the result")
    }

    @Test func aNewcomersFirstMessageIsAnsweredNotPlanned() async throws {
        let (output, status) = try await PipedREPL.run(["--local-step-ms", "1"], input: "what can reception do?\n")
        #expect(status == 0)
        #expect(!output.contains("/approve to run it"), "\(output)")
        #expect(output.contains("Intent classification"), "the built-in knowledge answers: \(output)")
    }

    /// A soul that cannot be used is said once, located when it is a file's problem, and
    /// without the root command's usage line (it is not a mistyped command).
    @Test func aBadSoulNameIsAClearErrorNotACrash() async throws {
        let (output, status) = try await PipedREPL.run(["--soul", "no-such-soul"], input: "")
        #expect(status == 1)
        #expect(output.contains("error: cannot use soul no-such-soul: No soul named \"no-such-soul\""), "\(output)")
        #expect(!output.contains("Usage:"), "\(output)")
        let file = Scratch.root.appendingPathComponent("utf16-\(UUID().uuidString).md")
        try Data([0xFF, 0xFE, 0x41, 0x00]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let (errors, fileStatus) = try await PipedREPL.run(["--soul", file.path], input: "")
        #expect(fileStatus == 1 && !errors.contains("Usage:"), "\(errors)")
        #expect(errors.hasPrefix("\(file.path):1:1: error: not UTF-8 text") && errors.components(separatedBy: "not UTF-8").count == 2,
                "located, once: \(errors)")
    }

    @Test func saveNeverOverwritesWithoutForce() async throws {
        let file = Scratch.root.appendingPathComponent("reception-save-\(UUID().uuidString).md")
        try "precious".write(to: file, atomically: true, encoding: .utf8)
        let (output, _) = try await PipedREPL.run(["--trust", "1", "--local-step-ms", "1"], input: "what can reception do?\n/save \(file.path)\n")
        #expect(output.contains("already exists"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "precious")
        _ = try await PipedREPL.run(["--trust", "1", "--local-step-ms", "1"], input: "what can reception do?\n/save \(file.path) --force\n")
        let saved = try String(contentsOf: file, encoding: .utf8)
        #expect(saved.contains("## You\n\nwhat can reception do?"))
        #expect(saved.contains("## Reception"))
    }

    /// A transcript whose answers were said in two souls was headed with the last alone: the
    /// header names each, in order, and /new starts the list again.
    @Test func saveNamesEverySoulTheAnswersWereSaidIn() async throws {
        let file = Scratch.root.appendingPathComponent("reception-save-\(UUID().uuidString).md")
        defer { try? FileManager.default.removeItem(at: file) }
        let input = "what can reception do?\n/soul butler\nwhat is trust?\n/save \(file.path)\n/new\nwhat is trust?\n/save \(file.path) --force\n"
        let (output, _) = try await PipedREPL.run(["--trust", "1", "--local-step-ms", "0", "--no-log"], input: input)
        #expect(output.components(separatedBy: "Saved ").count == 3, "\(output)")
        let saved = try String(contentsOf: file, encoding: .utf8)
        #expect(saved.contains("- soul: Ambrose (butler)\n"), "the second save, after /new: \(saved)")
        let (both, _) = try await PipedREPL.run(["--trust", "1", "--local-step-ms", "0", "--no-log"],
                                                input: "what can reception do?\n/soul butler\nwhat is trust?\n/save \(file.path) --force\n")
        #expect(both.contains("Saved"), "\(both)")
        #expect(try String(contentsOf: file, encoding: .utf8).contains("- soul: Reception (default), then Ambrose (butler)\n"))
    }

    /// `~` is $HOME (the one the person is using, not the account's); an unquoted name with a
    /// space is one file; a folder or a missing folder is said plainly.
    @Test func saveExpandsTildeFromHomeKeepsSpacesAndExplainsFailures() async throws {
        let home = Scratch.root.appendingPathComponent("reception-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let input = "what can reception do?\n/save ~/my notes.md\n/save ~\n/save ~/no/such/folder/x.md\n"
        let (output, errors, _) = try await PipedREPL.run(["--trust", "1", "--local-step-ms", "1"], input: input, home: home, separateErrors: true)
        let saved = home.appendingPathComponent("my notes.md")
        #expect(FileManager.default.fileExists(atPath: saved.path), "output: \(output) errors: \(errors)")
        #expect(errors.contains("is a folder; /save takes a file name"), "errors: \(errors)")
        #expect(errors.contains("the folder \(home.path)/no/such/folder does not exist"), "errors: \(errors)")
        #expect(!errors.contains("NSCocoaErrorDomain"), "errors: \(errors)")
    }
}

@Suite("Subcommands outside the repository")
struct SubcommandsOutsideTheRepositoryTests {
    /// The bench's default corpus is relative to the repository root.
    @Test func benchOutsideTheRepositorySaysWhichFileToPass() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Binary.reception())
        process.arguments = ["bench", "--rounds", "1"]
        process.currentDirectoryURL = Scratch.root
        let output = Pipe.forChild()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(text.contains("Run from the Reception repository root, or pass --corpus FILE"), "\(text)")
    }
}
