import Foundation
import Synchronization

/// The next port `unusedLoopbackPort` tries: below the kernel's ephemeral range, from a random
/// start.
private let nextPort: Atomic<Int> = {
    // The range's first port, where the kernel starts picking ports for `bind` to port 0 and
    // for outgoing connections ("32768\t60999" by default).
    let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
    let ephemeral = range.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } ?? 32768
    let low = max(1024, ephemeral - 12_000)
    return Atomic(Int.random(in: low..<max(low + 1, ephemeral - 2_000)))
}()

public struct NoFreePort: Error, CustomStringConvertible {
    public var description: String { "cannot find a free port below the ephemeral range" }
}

/// A port on 127.0.0.1 that nothing listens on, for a server a test starts later (or stops
/// and starts again). It lies below the kernel's ephemeral range, so no server bound to port 0
/// and no outgoing connection of another test can be given it in the meantime (a port taken
/// from port 0 and released could be); each call takes a new one, so tests running at once
/// never share one.
public func unusedLoopbackPort() throws -> Int {
    for _ in 0..<200 {
        let port = nextPort.add(1, ordering: .relaxed).oldValue
        if let socket = BoundLoopbackSocket(port: port) {
            close(socket.descriptor)
            return port
        }
    }
    throw NoFreePort()
}

/// A TCP socket bound to 127.0.0.1, close-on-exec (a child forked meanwhile must not keep it).
public struct BoundLoopbackSocket: Sendable {
    public let descriptor: Int32
    /// The port it is bound to (the one the kernel picked, for port 0).
    public let port: Int

    /// Nil when the port is taken (or, for `listening`, cannot be listened on).
    /// `reusingAddress`: SO_REUSEADDR, for a server restarted on its port.
    public init?(port: Int = 0, listening: Bool = false, reusingAddress: Bool = false) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        if reusingAddress {
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && (!listening || listen(fd, 128) == 0) && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            return nil
        }
        descriptor = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A port on 127.0.0.1 where every connection is refused, for tests of an unreachable server.
/// Ports 1 and 9 are closed on most machines, but not on every one (an inetd "discard"
/// service listens on 9); this port is bound by this process and never listened on, so the
/// kernel refuses each connection to it, and no other process can take it while the tests run.
/// The socket stays open for the life of the test process.
public let refusingLoopbackPort: Int = {
    guard let socket = BoundLoopbackSocket() else { preconditionFailure("cannot bind a loopback socket: errno \(errno)") }
    return socket.port
}()

/// `http://127.0.0.1:PORT` (or another scheme) on `refusingLoopbackPort`.
public func refusingLoopbackURL(scheme: String = "http") -> String {
    "\(scheme)://127.0.0.1:\(refusingLoopbackPort)"
}
