import CReadline
import Foundation

/// One line of standard input, read with a bound. `Swift.readLine` keeps a line whole however
/// long it is: a 50 MB line took 273 MB of memory and half a minute, for a message no backend
/// takes. A line past `limit` bytes is read to its end and dropped, and its size said.
enum BoundedLine {
    /// The longest message a line may hold.
    static let limit = 1 << 20

    enum Read: Equatable {
        case line(String)
        /// A line that is not UTF-8, with its bad bytes replaced by U+FFFD.
        case notUTF8(String)
        /// A line longer than the limit, of this many bytes (without its newline), dropped.
        case tooLong(Int)
        case end
    }

    static func read(from stream: UnsafeMutablePointer<FILE> = reception_stdin(), limit: Int = limit) -> Read {
        var bytes: [UInt8] = []
        var length = 0
        // Small: it is made and zeroed for every line, and a longer line is read in turns.
        var chunk = [CChar](repeating: 0, count: 4 * 1024)
        var sawAnything = false
        while true {
            let got = chunk.withUnsafeMutableBufferPointer { buffer -> Int in
                guard fgets(buffer.baseAddress, Int32(buffer.count), stream) != nil else { return -1 }
                return strlen(buffer.baseAddress!)
            }
            guard got >= 0 else { break }
            sawAnything = true
            let endsLine = got > 0 && chunk[got - 1] == 0x0A
            let count = endsLine ? got - 1 : got
            length += count
            if length <= limit {
                chunk.withUnsafeBufferPointer { buffer in
                    bytes.append(contentsOf: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count).bindMemory(to: UInt8.self))
                }
            } else if !bytes.isEmpty {
                bytes = []
            }
            if endsLine { break }
        }
        guard sawAnything else { return .end }
        if length > limit { return .tooLong(length) }
        if bytes.last == 0x0D { bytes.removeLast() }
        // Validated first: almost every line is UTF-8, and then no second pass is made.
        if let text = String(validating: bytes, as: UTF8.self) { return .line(text) }
        return .notUTF8(String(decoding: bytes, as: UTF8.self))
    }
}
