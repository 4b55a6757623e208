import Foundation
import ReceptionTestSupport

/// `reception serve SERVER --port 0 …` as a process of its own, as a person would run it.
enum ReferenceServerProcess {
    /// Starts it and reads the first line it prints, which names its address; returns the
    /// process and the address matched by `url` (a regular expression).
    /// `port` 0 picks a free one. Waiting for that line blocks a thread for as long as the server
    /// takes to start (seconds on a loaded machine), so it waits on one of its own.
    static func start(_ arguments: [String], url pattern: String, port: Int = 0) async throws -> (Process, String) {
        try await offThePool { try startBlocking(arguments, url: pattern, port: port) }
    }

    private static func startBlocking(_ arguments: [String], url pattern: String, port: Int) throws -> (Process, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Binary.reception())
        process.arguments = ["serve", arguments[0], "--port", String(port)] + arguments.dropFirst()
        let output = Pipe.forChild()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: pattern, options: .regularExpression) else {
            process.terminate()
            throw HarnessError("the server did not report its URL: \(text)")
        }
        return (process, String(text[range]))
    }
}
