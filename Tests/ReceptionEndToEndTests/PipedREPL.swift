import Foundation

/// `reception` with its stdin and stdout on pipes: no terminal, so the REPL reads a script.
enum PipedREPL {
    /// Runs `reception ARGUMENTS` with `input` on stdin, in `home` (`$HOME`, with state and
    /// config below it; `XDG_DATA_HOME` left unset so data follows `$HOME`). Returns all it
    /// printed, stdout and stderr interleaved, and its exit status.
    static func run(_ arguments: [String], input: String, home: URL? = nil,
                    environment extra: [String: String] = [:]) throws -> (output: String, status: Int32) {
        let home = home ?? FileManager.default.temporaryDirectory.appendingPathComponent("reception-pipe-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Binary.reception())
        process.arguments = arguments
        process.environment = ["HOME": home.path, "XDG_STATE_HOME": home.path + "/state", "XDG_CONFIG_HOME": home.path + "/config", "TERM": "xterm"]
            .merging(extra) { _, new in new }
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
}
