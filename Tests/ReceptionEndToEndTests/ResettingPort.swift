import Foundation
import ReceptionTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 that takes every connection and resets it, as a server that is down
/// looks from behind something that still accepts (a proxy, a crashed worker's socket): a
/// client's request fails as unreachable, and a reachability probe (connect, then close)
/// succeeds. It notes what each connection brought, in order, so a test can wait for a
/// retry that happened instead of sleeping through the time one should take.
final class ResettingPort: Sendable {
    /// What one connection brought before it was reset.
    enum Arrival: Sendable, Equatable {
        /// Closed by the client without a byte: a probe of whether anything listens.
        case probe
        /// The first line of what it sent (an HTTP request line).
        case request(String)
    }

    let port: Int
    private let listener: Int32
    private let seen = Mutex<[Arrival]>([])

    /// Listens on `port` (0: a free one).
    init(port: Int) throws {
        let (listener, bound) = try LoopbackSocket.listen(port: port)
        self.listener = listener
        self.port = bound
        Thread.detachNewThread { [self] in
            while true {
                let connection = acceptNotInherited(listener)
                if connection < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return  // stopped
                }
                Thread.detachNewThread { [self] in
                    // Noted before the reset: by the time the client knows its request
                    // failed, the test can see it arrived.
                    let arrival = Self.arrival(on: connection)
                    seen.withLock { $0.append(arrival) }
                    LoopbackSocket.reset(connection)
                }
            }
        }
    }

    /// Everything that arrived so far, oldest first.
    var arrivals: [Arrival] { seen.withLock { $0 } }
    var probes: Int { arrivals.filter { $0 == .probe }.count }
    /// Requests whose first line starts with `prefix` (e.g. "POST /task ").
    func requests(_ prefix: String) -> Int {
        arrivals.filter { if case .request(let line) = $0 { line.hasPrefix(prefix) } else { false } }.count
    }

    /// Stops listening (the port is free for a real server afterwards).
    func close() { LoopbackSocket.stopListening(listener) }

    /// Reads until the first line ends or the client closes.
    private static func arrival(on connection: Int32) -> Arrival {
        // A client that connects and says nothing for this long is taken for a probe.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.contains(UInt8(ascii: "\n")), received.count < 16_384 {
            let count = read(connection, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        guard !received.isEmpty else { return .probe }
        let line = received.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        return .request(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
