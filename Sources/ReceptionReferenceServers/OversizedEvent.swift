import Hummingbird
import NIOCore

/// One Server-Sent Event far past a client's 1 MB event limit, sent as tens of thousands of
/// short `data:` lines (the `oversized` trigger of the Loop Symphony and TIMEPOINT reference
/// servers). Each line is harmless; only their sum is not, so a client that bounds lines but
/// not events would hold all of it. Written in batches until `totalBytes` or until the client
/// goes, then ended with its blank line.
enum OversizedEvent {
    static let lineBytes = 100
    static let totalBytes = 8 << 20

    static func write(to writer: inout any ResponseBodyWriter) async throws {
        let line = "data: " + String(repeating: "y", count: lineBytes) + "\n"
        let linesPerWrite = 500
        let batch = ByteBuffer(string: String(repeating: line, count: linesPerWrite))
        var sent = 0
        while sent < totalBytes {
            try await writer.write(batch)
            sent += lineBytes * linesPerWrite
        }
        try await writer.write(ByteBuffer(string: "\n"))
    }
}
