import Foundation
import ReceptionTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A WebSocket server on loopback, written on bare sockets so that it controls its writes:
/// it answers the upgrade and sends its first text frames in **one** `write(2)`, as a server
/// that speaks first (Friday's `ready`) may, so the client reads the `101` response and the
/// frames in the same read. Then it keeps the connection open until the client closes it.
/// Every connection gets `greetings`, with "#N" (its number, from 1) appended to each.
final class SpeakingFirstServer: Sendable {
    let port: Int
    private let listener: Int32
    private let accepted = Mutex(0)
    private let greetings: [String]
    private let thenClose: Bool

    /// `thenClose`: a close frame follows the greetings in the same write, and the server then
    /// ends the connection (a server that says its piece and goes).
    init(greetings: [String], thenClose: Bool = false) throws {
        self.greetings = greetings
        self.thenClose = thenClose
        guard let socket = BoundLoopbackSocket(listening: true, reusingAddress: true) else {
            throw SpeakingFirstServerError(reason: "cannot listen on loopback")
        }
        listener = socket.descriptor
        port = socket.port
        Thread.detachNewThread { [self] in
            while true {
                let connection = acceptNotInherited(self.listener)
                guard connection >= 0 else { return }  // closed: the server stops
                let number = accepted.withLock { $0 += 1; return $0 }
                let greetings = self.greetings.map { "\($0) #\(number)" }
                let thenClose = self.thenClose
                Thread.detachNewThread { Self.serve(connection, greetings: greetings, thenClose: thenClose) }
            }
        }
    }

    /// Connections accepted so far.
    var connections: Int { accepted.withLock { $0 } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func serve(_ connection: Int32, greetings: [String], thenClose: Bool) {
        defer { close(connection) }
        var request = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.ends(with: Array("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            request += buffer[0..<count]
            guard request.count < 65_536 else { return }
        }
        let head = String(decoding: request, as: UTF8.self)
        guard let keyLine = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("sec-websocket-key:") }) else { return }
        let key = keyLine.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces)
        let accept = Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
        var answer = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8)
        for greeting in greetings { answer += textFrame(greeting) }
        if thenClose { answer += [0x88, 0x02, 0x03, 0xE8] }  // close, 1000 (normal closure)
        // One write: the answer and the frames leave together.
        var written = 0
        while written < answer.count {
            let count = answer[written...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            written += count
        }
        if thenClose { shutdown(connection, Int32(SHUT_WR)) }
        // Until the client goes (its close frame or its end of the connection).
        while read(connection, &buffer, buffer.count) > 0 {}
    }

    /// An unmasked, final text frame (server to client).
    static func textFrame(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(UInt8(payload.count))
        } else {
            frame.append(126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        return frame + payload
    }
}

struct SpeakingFirstServerError: Error { var reason: String }

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}

/// SHA-1, for the handshake's `Sec-WebSocket-Accept` only (RFC 6455 requires it there).
enum SHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) * 8
        for shift in stride(from: 56, through: 0, by: -8) { padded.append(UInt8((bits >> UInt64(shift)) & 0xFF)) }
        for chunk in stride(from: 0, to: padded.count, by: 64) {
            var w = [UInt32](repeating: 0, count: 80)
            for i in 0..<16 {
                let j = chunk + i * 4
                w[i] = UInt32(padded[j]) << 24 | UInt32(padded[j + 1]) << 16 | UInt32(padded[j + 2]) << 8 | UInt32(padded[j + 3])
            }
            for i in 16..<80 { w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotatedLeft(1) }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) = switch i {
                case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = a.rotatedLeft(5) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, temp)
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return h.flatMap { value in [24, 16, 8, 0].map { UInt8((value >> UInt32($0)) & 0xFF) } }
    }
}

private extension UInt32 {
    func rotatedLeft(_ count: UInt32) -> UInt32 { (self << count) | (self >> (32 - count)) }
}
