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

    /// `eval -` and `train -` read standard input with an API that ends in `try!`: a directory or
    /// a closed descriptor there crashed the program with a Swift trap (exit 132).
    @Test func evalAndTrainSayWhenStandardInputCannotBeRead() async throws {
        let dir = try folder()
        let out = dir.appendingPathComponent("w.json").path
        for arguments in [["eval", "-", "--format", "jsonl"], ["train", "-", "--format", "jsonl", "--out", out]] {
            for (redirection, why) in [("< \"$dir\"", "it is a directory"), ("<&-", "it is closed")] {
                let (_, errors, status) = try await run(arguments, stdin: redirection, dir: dir)
                #expect(status == 1, "\(arguments) \(redirection): \(errors)")
                #expect(errors.contains("error: standard input: cannot be read (\(why))") && !errors.contains("Fatal error"), "\(arguments) \(redirection): \(errors)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// `classify` took a read that failed for the end of its input: nothing printed, status 0.
    @Test func classifySaysWhenStandardInputCannotBeRead() async throws {
        let dir = try folder()
        for arguments in [["classify"], ["classify", "--jsonl-input"]] {
            for (redirection, why) in [("< \"$dir\"", "it is a directory"), ("<&-", "it is closed")] {
                let (output, errors, status) = try await run(arguments, stdin: redirection, dir: dir)
                #expect(status == 1 && output.isEmpty, "\(arguments) \(redirection): \(output)\(errors)")
                #expect(errors.contains("error: standard input: cannot be read (\(why))"), "\(arguments) \(redirection): \(errors)")
            }
        }
    }
}
