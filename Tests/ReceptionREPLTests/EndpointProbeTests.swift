import Foundation
@testable import ReceptionREPL
import Testing

/// The check an idle retry makes before it takes the prompt away: only a server that takes a
/// connection is worth it.
@Suite("Endpoint probe before an idle retry")
struct EndpointProbeTests {
    /// A listening socket on 127.0.0.1 (never accepting: the kernel completes the handshake),
    /// or, with `listening` false, a port held without listening: a connection to it is
    /// refused, and no other test's server can take the port meanwhile (one closed and probed
    /// afterwards could be taken by a server of a test running beside this one).
    func listener(listening: Bool = true) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, !listening || listen(fd, 8) == 0 else { close(fd); throw ProbeTestError() }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    struct ProbeTestError: Error {}

    @Test func aListeningServerIsWorthARetryAndAClosedPortIsNot() async throws {
        let (fd, port) = try listener()
        #expect(await EndpointProbe.accepts("http://127.0.0.1:\(port)", within: .seconds(5)))
        #expect(await EndpointProbe.accepts("ws://user:•••@127.0.0.1:\(port)/ws", within: .seconds(5)), "a masked password is still an address")
        close(fd)
        let (held, closedPort) = try listener(listening: false)
        defer { close(held) }
        #expect(await !EndpointProbe.accepts("http://127.0.0.1:\(closedPort)", within: .seconds(5)))
    }

    @Test func aNameThatDoesNotResolveIsNotWorthARetry() async {
        // .invalid never resolves (RFC 6761).
        #expect(await !EndpointProbe.accepts("https://reception-probe.invalid", within: .seconds(5)))
    }

    @Test func theSchemeGivesThePortWhenNoneIsWritten() {
        #expect(EndpointProbe.address(of: "https://api.example.com/v1")! == ("api.example.com", 443))
        #expect(EndpointProbe.address(of: "ws://friday.local/ws")! == ("friday.local", 80))
        #expect(EndpointProbe.address(of: "http://[::1]:8787")! == ("::1", 8787))
        #expect(EndpointProbe.address(of: "https://ada:•••@api.example.com/v1?x=a@b")! == ("api.example.com", 443))
        // Not an address it can read: left to the retry itself.
        #expect(EndpointProbe.address(of: "unix:///tmp/socket") == nil)
    }

    @Test func anEndpointItCannotReadIsLeftToTheRetry() async {
        #expect(await EndpointProbe.accepts("not a url", within: .seconds(1)))
    }
}
