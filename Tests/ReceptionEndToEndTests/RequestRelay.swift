import Foundation
import ReceptionTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback relay between the `reception` binary and a reference server running as a
/// process of its own: bytes pass unchanged both ways, and the relay notes each HTTP request
/// line the client sends and when each connection ends. A test then knows what the server
/// was asked, in order (a request that was not made, a long poll that was closed), without a
/// hook in the server and without a clock.
final class RequestRelay: Sendable {
    enum Note: Sendable, Equatable {
        case request(connection: Int, line: String)
        /// The status line of an answer the server sent on that connection.
        case response(connection: Int, line: String)
        /// The connection ended; `byClient` when the client closed it first.
        case closed(connection: Int, byClient: Bool)
    }

    let port: Int
    private let listener: Int32
    private let notes = Mutex<[Note]>([])
    private let connections = Mutex(0)
    /// Answers to requests whose line contains this are held back until `releaseHeld()`.
    private let holding = Mutex<String?>(nil)

    /// Relays 127.0.0.1:`port` (a free one) to 127.0.0.1:`upstream`.
    init(to upstream: Int) throws {
        let (listener, bound) = try LoopbackSocket.listen(port: 0)
        self.listener = listener
        self.port = bound
        Thread.detachNewThread { [self] in
            while true {
                let client = acceptNotInherited(listener)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return  // stopped
                }
                let number = connections.withLock { $0 += 1; return $0 }
                guard let server = LoopbackSocket.connect(port: upstream) else {
                    LoopbackSocket.reset(client)
                    notes.withLock { $0.append(.closed(connection: number, byClient: false)) }
                    continue
                }
                relay(client: client, server: server, number: number)
            }
        }
    }

    /// Every note so far, oldest first.
    var all: [Note] { notes.withLock { $0 } }

    /// Request lines containing `text`, with their connection, oldest first.
    func requests(containing text: String) -> [(connection: Int, line: String)] {
        all.compactMap { if case .request(let connection, let line) = $0, line.contains(text) { (connection, line) } else { nil } }
    }

    /// True once the connection has ended (`byClient`: and the client ended it).
    func isClosed(_ connection: Int, byClient: Bool? = nil) -> Bool {
        all.contains { if case .closed(connection, let client) = $0 { byClient.map { $0 == client } ?? true } else { false } }
    }

    func close() {
        releaseHeld()
        LoopbackSocket.stopListening(listener)
    }

    /// From now on, the server's answer to a request whose line contains `text` is held at
    /// the relay (not a byte of it passes) until `releaseHeld()`: what the client shows
    /// meanwhile, it showed without that answer.
    func holdAnswers(to text: String) { holding.withLock { $0 = text } }

    func releaseHeld() { holding.withLock { $0 = nil } }

    /// True while the answer on `connection` is to be held.
    private func isHeld(_ connection: Int) -> Bool {
        guard let text = holding.withLock({ $0 }) else { return false }
        let asked = all.last { if case .request(connection, _) = $0 { true } else { false } }
        guard case .request(_, let line)? = asked else { return false }
        return line.contains(text)
    }

    /// Copies both ways until either side ends, then ends both and notes the close once.
    private func relay(client: Int32, server: Int32, number: Int) {
        let copiesOver = Counter()
        let finish: @Sendable (_ byClient: Bool) -> Void = { [self] byClient in
            // The first copy to end ends both, and the connection is noted closed once.
            guard copiesOver.increment() == 1 else { return }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
            notes.withLock { $0.append(.closed(connection: number, byClient: byClient)) }
        }
        let release: @Sendable () -> Void = {
            // Both copies are over: only now are the descriptors free to close.
            if copiesOver.increment() == 4 {
                Glibc.close(client)
                Glibc.close(server)
            }
        }
        Thread.detachNewThread { [self] in
            let lines = LineScanner(pattern: #"[A-Z]+ /\S* HTTP/1\.[01]$"#)
            Self.copy(from: client, to: server) { bytes in
                for line in lines.matches(in: bytes) { notes.withLock { $0.append(.request(connection: number, line: line)) } }
            }
            finish(true)
            release()
        }
        Thread.detachNewThread { [self] in
            let lines = LineScanner(pattern: #"HTTP/1\.[01] [0-9]{3}( [^"{}]*)?$"#)
            Self.copy(from: server, to: client) { bytes in
                while isHeld(number) { usleep(10_000) }
                for line in lines.matches(in: bytes) { notes.withLock { $0.append(.response(connection: number, line: line)) } }
            }
            finish(false)
            release()
        }
    }

    /// Copies until `source` ends or `destination` fails; `look` sees each chunk first.
    private static func copy(from source: Int32, to destination: Int32, look: ([UInt8]) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(source, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return }
            let chunk = Array(buffer[0..<count])
            // Noted before it is passed on: a request is on record before the server can answer it.
            look(chunk)
            var sent = 0
            while sent < chunk.count {
                // MSG_NOSIGNAL: a peer that went away is an error here, not SIGPIPE for the test process.
                let wrote = chunk.withUnsafeBytes { send(destination, $0.baseAddress! + sent, chunk.count - sent, Int32(MSG_NOSIGNAL)) }
                if wrote < 0, errno == EINTR { continue }
                if wrote <= 0 { return }
                sent += wrote
            }
        }
    }
}

/// A count shared by threads.
private final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
}

/// Finds lines ending in a pattern in a byte stream that arrives in pieces. Ending, not
/// starting: on a kept-alive connection a request or answer follows the previous body, which
/// need not end with a line break, on the same line.
private final class LineScanner: @unchecked Sendable {
    // Used by the one thread that copies its direction of a connection.
    private var pending: [UInt8] = []
    private let pattern: String

    init(pattern: String) { self.pattern = pattern }

    func matches(in bytes: [UInt8]) -> [String] {
        pending += bytes
        var found: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            pending.removeSubrange(...newline)
            if let match = line.range(of: pattern, options: .regularExpression) { found.append(String(line[match])) }
        }
        if pending.count > 65_536 { pending.removeAll() }  // inside a body: no line of interest
        return found
    }
}
