import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether anything accepts a TCP connection at a backend's server, asked with the prompt
/// still on screen before an idle retry takes it away.
///
/// Why: the retry itself runs between prompts. Against a refused port it is over at once, but
/// against a host that drops packets (a firewall, a dead VPN) it would hold the prompt away
/// for the whole connect timeout, every retry, while the keys typed meanwhile wait unseen.
/// The probe waits in the background instead; only a server that takes the connection is
/// worth the prompt.
enum EndpointProbe {
    /// False only when the connection was refused, timed out or the name did not resolve;
    /// an endpoint it cannot read is left to the retry (true).
    static func accepts(_ endpoint: String, within timeout: Duration) async -> Bool {
        guard let (host, port) = address(of: endpoint) else { return true }
        let deadline = ContinuousClock.now + timeout
        // getaddrinfo and poll block: on a thread of their own, off the cooperative pool. (Not
        // cancellable: a cancelled retry's probe ends by itself within the timeout.)
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: connects(host: host, port: port, before: deadline)) }
        }
    }

    /// Host and port of an `http(s)://` or `ws(s)://` endpoint, with the scheme's port when
    /// none is written. The user part is dropped first: a descriptor shows a password masked
    /// with characters a URL parser refuses.
    static func address(of endpoint: String) -> (host: String, port: Int)? {
        var endpoint = endpoint
        if let schemeEnd = endpoint.range(of: "://") {
            let authorityEnd = endpoint[schemeEnd.upperBound...].firstIndex(where: { "/?#".contains($0) }) ?? endpoint.endIndex
            if let at = endpoint[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@") {
                endpoint.removeSubrange(schemeEnd.upperBound...at)
            }
        }
        guard let components = URLComponents(string: endpoint), let scheme = components.scheme?.lowercased(),
              var host = components.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let defaultPort: Int
        switch scheme {
        case "http", "ws": defaultPort = 80
        case "https", "wss": defaultPort = 443
        default: return nil
        }
        return (host, components.port ?? defaultPort)
    }

    private static func connects(host: String, port: Int, before deadline: ContinuousClock.Instant) -> Bool {
        var hints = addrinfo()
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(first) }
        // One deadline for every address a name has (IPv6 and IPv4): not a timeout each.
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            if connects(info.pointee, milliseconds: max(1, milliseconds)) { return true }
            candidate = info.pointee.ai_next
        }
        return false
    }

    private static func connects(_ info: addrinfo, milliseconds: Int32) -> Bool {
        let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else { return false }
        if connect(fd, info.ai_addr, info.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        var ready: Int32
        repeat { ready = poll(&waiting, 1, milliseconds) } while ready < 0 && errno == EINTR
        guard ready > 0 else { return false }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 && failure == 0
    }
}
