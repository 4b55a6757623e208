import Foundation
import ReceptionTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The few socket calls the loopback test harnesses need (a listener, a connection to a
/// port on 127.0.0.1, a reset), in one place.
enum LoopbackSocket {
    /// A listening socket on 127.0.0.1:`port` (0: a free one) and the port it has.
    static func listen(port: Int) throws -> (fd: Int32, port: Int) {
        guard let socket = BoundLoopbackSocket(port: port, listening: true, reusingAddress: true) else {
            throw HarnessError("cannot listen on 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        return (socket.descriptor, socket.port)
    }

    /// A connected socket to 127.0.0.1:`port`, or nil when nothing accepts there.
    static func connect(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = Self.address(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(fd)
            return nil
        }
        return fd
    }

    /// Closes `fd` with a reset (RST) instead of an orderly end, as a crashed server does.
    static func reset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
    }

    /// Ends a listener: `accept` blocked in another thread returns.
    static func stopListening(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    private static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }
}
