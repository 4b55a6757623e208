import Foundation
import ReceptionTestSupport
import Testing

/// Input the intent commands cannot use, as a newcomer's trial met it: standard input that is
/// a directory or closed, file names carrying escape sequences, a labels file given where a
/// corpus goes, a "text" that is not a string. Each is said in plain words with its exit
/// status; none crashes the program or floods the terminal.
@Suite("Intent commands on input they cannot use")
struct IntentInputFaultsEndToEndTests {
    func folder() throws -> URL {
        let folder = Scratch.root.appendingPathComponent("reception-input-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// `reception ARGUMENTS` with standard input redirected as a shell does it: `< "$dir"` (a
    /// directory) or `<&-` (closed).
    func run(_ arguments: [String], stdin redirection: String, dir: URL) async throws -> (output: String, errors: String, status: Int32) {
        try await PipedREPL.run(["-c", "dir=\"$1\"; shift; exec \"$@\" \(redirection)", "sh", dir.path, try Binary.reception()] + arguments,
                                input: "", separateErrors: true, executable: "/bin/sh")
    }

    /// Standard input a directory, then closed, with the start of the reason each gives. A
    /// closed descriptor 0 is the lowest free one, so the runtime can be given it for a
    /// descriptor of its own (an epoll instance) before the command reads: the read then fails
    /// with another reason ("invalid argument", 2 runs in 120), but still fails, and is said.
    static let unreadable = [("< \"$dir\"", "it is a directory)"), ("<&-", "")]

    /// `eval -` and `train -` read standard input with an API that ends in `try!`: a directory or
    /// a closed descriptor there crashed the program with a Swift trap (exit 132).
    @Test func evalAndTrainSayWhenStandardInputCannotBeRead() async throws {
        let dir = try folder()
        let out = dir.appendingPathComponent("w.json").path
        for arguments in [["eval", "-", "--format", "jsonl"], ["train", "-", "--format", "jsonl", "--out", out]] {
            for (redirection, why) in Self.unreadable {
                let (_, errors, status) = try await run(arguments, stdin: redirection, dir: dir)
                #expect(status == 1, "\(arguments) \(redirection): \(errors)")
                #expect(errors.contains("error: standard input: cannot be read (\(why)") && !errors.contains("Fatal error"), "\(arguments) \(redirection): \(errors)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// `classify` took a read that failed for the end of its input: nothing printed, status 0.
    @Test func classifySaysWhenStandardInputCannotBeRead() async throws {
        let dir = try folder()
        for arguments in [["classify"], ["classify", "--jsonl-input"]] {
            for (redirection, why) in Self.unreadable {
                let (output, errors, status) = try await run(arguments, stdin: redirection, dir: dir)
                #expect(status == 1 && output.isEmpty, "\(arguments) \(redirection): \(output)\(errors)")
                #expect(errors.contains("error: standard input: cannot be read (\(why)"), "\(arguments) \(redirection): \(errors)")
            }
        }
    }

    /// A file name with an escape sequence in it (OSC 0 retitles the window): the warnings
    /// printed it cleaned, but "no labelled messages in FILE" printed it raw.
    static let escapingName = "x\u{1B}]0;PWN\u{07}.jsonl"

    @Test func evalAndTrainCleanAFileNameThatCarriesEscapeSequences() async throws {
        let dir = try folder()
        let corpus = dir.appendingPathComponent(Self.escapingName)
        try "not a corpus line\n".write(to: corpus, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("w.json").path
        for arguments in [["eval", corpus.path], ["train", corpus.path, "--out", out]] {
            let (_, errors, status) = try await PipedREPL.run(arguments, input: "", separateErrors: true)
            #expect(status == 1 && errors.contains("error: no labelled messages in \(dir.path)/x.jsonl"), "\(arguments[0]): \(errors)")
            #expect(!errors.contains("\u{1B}") && !errors.contains("\u{07}"), "\(arguments[0]): \(errors.debugDescription)")
        }
    }

    /// `label` on a file with no message in it, on a terminal (it refuses anything else).
    @Test func labelCleansAFileNameThatCarriesEscapeSequences() async throws {
        let dir = try folder()
        let empty = dir.appendingPathComponent(Self.escapingName)
        try "".write(to: empty, atomically: true, encoding: .utf8)
        let session = try TerminalSession(arguments: ["label", empty.path])
        _ = try await session.waitFor("no messages to label in \(dir.path)/x.jsonl")
        #expect(try await session.exitStatus() == 1)
        #expect(!session.rawOutput.contains("\u{1B}]0;PWN"), "\(session.rawOutput.debugDescription)")
    }

    /// A labels file given where a corpus goes (`eval labels_a.jsonl` printed 3,112 warnings):
    /// a few lines of the problem, how many more, and what reads such a file. --strict still
    /// stops at the first line.
    @Test func aLabelsFileGivenAsACorpusIsSaidInAFewLines() async throws {
        let dir = try folder()
        let labels = dir.appendingPathComponent("labels_a.jsonl")
        try (0..<200).map { #"{"id": "m\#($0)", "intent": "action", "urgency": "soon"}"# }.joined(separator: "\n")
            .write(to: labels, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("w.json").path
        for arguments in [["eval", labels.path], ["train", labels.path, "--out", out]] {
            let (_, errors, status) = try await PipedREPL.run(arguments, input: "", separateErrors: true)
            let lines = errors.split(separator: "\n")
            #expect(status == 1 && lines.count < 12, "\(arguments[0]): \(errors)")
            #expect(errors.contains("labels_a.jsonl:5: missing or empty \"text\" (skipped)") && !errors.contains("labels_a.jsonl:6:"), "\(arguments[0]): \(errors)")
            #expect(errors.contains("labels_a.jsonl: 195 more lines skipped: missing or empty \"text\" (200 lines in all)"), "\(arguments[0]): \(errors)")
            #expect(errors.contains("looks like a labels file") && errors.contains("reception train --labels FILE --texts MESSAGES"), "\(arguments[0]): \(errors)")
        }
        let (_, strict, strictStatus) = try await PipedREPL.run(["eval", labels.path, "--strict"], input: "", separateErrors: true)
        #expect(strictStatus == 1 && strict.contains("error: \(labels.path):1: missing or empty \"text\""), "\(strict)")
    }
}
