import Foundation
import Testing

/// Scripts and pipes: no terminal, no ANSI codes, one line per event with --json.
@Suite("REPL without a terminal")
struct PipedModeTests {
    func run(_ arguments: [String], input: String) throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Binary.reception())
        process.arguments = arguments
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("reception-pipe-\(UUID().uuidString)")
        process.environment = ["HOME": home.path, "XDG_STATE_HOME": home.path + "/state", "XDG_CONFIG_HOME": home.path + "/config", "TERM": "xterm"]
        process.currentDirectoryURL = Binary.repositoryRoot
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }

    @Test func plainModeIsScriptableAndFreeOfEscapeCodes() throws {
        let (output, status) = try run(["--local-step-ms", "1"], input: "what can reception do?\n/approve\n/followups\n/quit\n")
        #expect(status == 0)
        #expect(!output.contains("\u{1B}"), "no ANSI codes in a pipe")
        #expect(output.contains("curiosity / exploratory"))
        #expect(output.contains("Plan"))
        #expect(output.contains("searched"))
    }

    @Test func jsonModePrintsOneObjectPerEvent() throws {
        let (output, status) = try run(["--json", "--trust", "1", "--local-step-ms", "1"], input: "what can reception do?\n")
        #expect(status == 0)
        let objects = try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }
        let types = objects.compactMap { $0["type"] as? String }
        #expect(types.first == "ready")
        #expect(Array(types.dropFirst()) == ["classification", "accepted", "status", "progress", "progress", "status", "result"])
        let result = try #require(objects.last?["result"] as? [String: Any])
        #expect(result["outcome"] as? String == "complete")
        #expect((objects.last?["display"] as? [Any])?.isEmpty == false, "the soul's rendering travels with the result")
    }

    @Test func aBadSoulNameIsAClearErrorNotACrash() throws {
        let (output, status) = try run(["--soul", "no-such-soul"], input: "")
        #expect(status != 0)
        #expect(output.contains("No soul named \"no-such-soul\""))
    }

    @Test func saveNeverOverwritesWithoutForce() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reception-save-\(UUID().uuidString).md")
        try "precious".write(to: file, atomically: true, encoding: .utf8)
        let (output, _) = try run(["--trust", "1", "--local-step-ms", "1"], input: "what can reception do?\n/save \(file.path)\n")
        #expect(output.contains("already exists"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "precious")
        _ = try run(["--trust", "1", "--local-step-ms", "1"], input: "what can reception do?\n/save \(file.path) --force\n")
        let saved = try String(contentsOf: file, encoding: .utf8)
        #expect(saved.contains("## You\n\nwhat can reception do?"))
        #expect(saved.contains("## Reception"))
    }
}
