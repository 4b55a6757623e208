import Foundation

/// The lines of a file descriptor as bytes, newline removed (and a "\r" before it), read as
/// they arrive: `readLine()` decodes a line that is not UTF-8 with replacement characters and
/// gives no sign of it, where `classify` wants to say which line lost its bytes.
/// A line longer than `limit` bytes comes in pieces of at most `limit`, each cut where a
/// character ends (memory stays bounded whatever is piped in); `cut` marks every piece but
/// the last.
struct InputLines: IteratorProtocol, Sequence {
    private let descriptor: Int32
    private let limit: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    /// The error of a read that failed (standard input a directory, or closed): the lines
    /// end there, and the caller says why, where an end of input would say nothing.
    private(set) var failure: Int32?

    static let defaultLimit = 1 << 20

    init(descriptor: Int32 = STDIN_FILENO, limit: Int = defaultLimit) {
        self.descriptor = descriptor
        self.limit = limit
    }

    struct Line {
        var bytes: [UInt8]
        /// The line goes on past the limit: this is its beginning, the rest comes next.
        var cut: Bool
    }

    mutating func next() -> Line? {
        while true {
            let newline = buffer[start...].firstIndex(of: 10)
            if (newline ?? buffer.count) - start > limit {
                // Back to the start of a character: a cut through one would read as bytes
                // that are not UTF-8.
                var end = start + limit
                while end > start + 1, buffer[end] & 0xC0 == 0x80 { end -= 1 }
                let piece = Array(buffer[start..<end])
                start = end
                return Line(bytes: piece, cut: true)
            }
            if let newline {
                var end = newline
                if end > start, buffer[end - 1] == 13 { end -= 1 }
                let line = Array(buffer[start..<end])
                start = newline + 1
                return Line(bytes: line, cut: false)
            }
            if ended {
                guard start < buffer.count else { return nil }
                let line = Array(buffer[start...])
                start = buffer.count
                return Line(bytes: line, cut: false)
            }
            // Keep only what is not yet a line, then read more.
            if start > 0 { buffer.removeFirst(start); start = 0 }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                failure = code
            }
            if count <= 0 { ended = true; continue }
            buffer += chunk[..<count]
        }
    }
}
