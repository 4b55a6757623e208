import Foundation
import Glibc
import ReceptionCore

/// OpenAI-compatible model servers people run on their own machine (Ollama, llama.cpp's
/// server, LM Studio, vLLM), looked for on their usual ports so that a newcomer who has one
/// running is told so, with the command that switches to it.
///
/// The look is cheap and harmless by construction: loopback only, one `GET /v1/models` per
/// port and nothing else, every port at once, and a hard deadline (50 ms at start-up). Ports
/// where nothing listens refuse the connection at once, so with nothing running it costs
/// well under a millisecond. A server counts as found only when it answers with an OpenAI
/// model list: Loop Symphony or TIMEPOINT on port 8000 answer 404 and are not named.
public enum LocalModelServers {
    /// A server's usual port, under the profile name that reaches it (`/backend NAME`).
    public struct Place: Sendable, Hashable {
        public var name: String
        /// What usually listens there, for messages ("Ollama").
        public var product: String
        public var port: Int

        public init(name: String, product: String, port: Int) {
            self.name = name
            self.product = product
            self.port = port
        }

        public var baseURL: String { "http://127.0.0.1:\(port)/v1" }
    }

    /// A place where an OpenAI-compatible server answered, with the models it lists.
    public struct Found: Sendable, Hashable {
        public var place: Place
        public var models: [String]
    }

    public static let usual: [Place] = [
        Place(name: "ollama", product: "Ollama", port: 11434),
        Place(name: "llama.cpp", product: "llama.cpp's server", port: 8080),
        Place(name: "lm-studio", product: "LM Studio", port: 1234),
        Place(name: "vllm", product: "vLLM", port: 8000),
    ]

    /// The places to look: the usual ones, or `RECEPTION_LOCAL_SERVERS` when set
    /// (`name=port,name=port`; empty: look nowhere). Entries that do not parse are skipped.
    public static func places(_ environment: PluginEnvironment) -> [Place] {
        // Set and empty means "look nowhere", so not the subscript that reads empty as unset.
        guard let setting = environment.variables["RECEPTION_LOCAL_SERVERS"] else { return usual }
        return setting.split(separator: ",").compactMap { entry in
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65_535).contains(port) else { return nil }
            let product = usual.first { $0.name == parts[0] }?.product ?? "an OpenAI-compatible server"
            return Place(name: parts[0], product: product, port: port)
        }
    }

    /// How long a look may hold anything up (the prompt at start-up, the advice of an
    /// unconfigured openai backend): 50 ms, or `RECEPTION_LOCAL_SERVERS_WAIT_MS` (1–10000) for a
    /// machine too busy to answer that fast.
    public static func startupDeadline(_ environment: PluginEnvironment) -> Duration {
        guard let text = environment[variable: "RECEPTION_LOCAL_SERVERS_WAIT_MS"], let milliseconds = Int(text),
              (1...10_000).contains(milliseconds) else { return .milliseconds(50) }
        return .milliseconds(milliseconds)
    }

    /// `probe` on a thread of its own, for async callers: it blocks in poll(2), which must not
    /// hold one of the few threads Swift concurrency runs everything else on (a server in the
    /// same process could then not answer it).
    public static func look(_ places: [Place], deadline: Duration = .milliseconds(50)) async -> [Found] {
        guard !places.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: probe(places, deadline: deadline)) }
        }
    }

    /// A built-in profile of kind `openai` for each place, so `/backend ollama` works whether
    /// or not it was running when Reception started. A configuration file's profile of the
    /// same name wins (the catalog takes the file's first).
    public static func profiles(_ environment: PluginEnvironment) -> [BackendProfile] {
        places(environment).map { place in
            BackendProfile(name: place.name, kind: OpenAIPlugin.kind, values: ["url": .string(place.baseURL)],
                           origin: "\(place.product)'s usual port on this machine",
                           about: "\(place.product) on this machine, if it runs (OpenAI-compatible)")
        }
    }

    /// Looks at every place at once and returns those that answered with a model list
    /// before `deadline`, in the order given. Blocking (a server that accepts and never answers
    /// holds it to the deadline): async code calls `look` instead.
    public static func probe(_ places: [Place], deadline: Duration = .milliseconds(50)) -> [Found] {
        guard !places.isEmpty else { return [] }
        let end = ContinuousClock.now + deadline
        var probes = places.map { Probe(place: $0) }
        for index in probes.indices { probes[index].start() }
        while probes.contains(where: \.isWaiting) {
            let left = ContinuousClock.now.duration(to: end)
            guard left > .zero else { break }
            var descriptors = probes.map { probe in
                pollfd(fd: probe.isWaiting ? probe.socket : -1, events: Int16(probe.connected ? POLLIN : POLLOUT), revents: 0)
            }
            let milliseconds = max(1, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&descriptors, nfds_t(descriptors.count), milliseconds) >= 0 || errno == EINTR else { break }
            for index in probes.indices where descriptors[index].revents != 0 {
                probes[index].advance()
            }
        }
        for index in probes.indices { probes[index].close() }
        return probes.compactMap { probe in probe.models.map { Found(place: probe.place, models: $0) } }
    }

    /// What a complete answer says: the models of an OpenAI model list
    /// (`{"object": "list", "data": [{"id": …}]}`), or nil when it is not one (another status,
    /// another body). `.incomplete` while more of the body is still to come.
    enum Reading: Equatable {
        case incomplete
        case complete([String]?)
    }

    /// Reads an HTTP/1.x response as far as it has arrived: the body ends at its
    /// `Content-Length`, after its last chunk, or (neither given) when the server closes.
    static func read(_ response: [UInt8], closed: Bool) -> Reading {
        guard let headerEnd = response.firstRange(of: Array("\r\n\r\n".utf8)) else { return closed ? .complete(nil) : .incomplete }
        let header = String(decoding: response[..<headerEnd.lowerBound], as: UTF8.self).lowercased()
        let lines = header.split(separator: "\r\n")
        let status = lines.first?.split(separator: " ") ?? []
        guard status.count >= 2, status[0].hasPrefix("http/1."), status[1] == "200" else { return .complete(nil) }
        func field(_ name: String) -> String? {
            lines.dropFirst().first { $0.hasPrefix(name + ":") }.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
        }
        var body = Array(response[headerEnd.upperBound...])
        if let length = field("content-length").flatMap(Int.init) {
            guard body.count >= length else { return closed ? .complete(nil) : .incomplete }
            body = Array(body.prefix(length))
        } else if field("transfer-encoding")?.contains("chunked") == true {
            guard let decoded = dechunk(body) else { return closed ? .complete(nil) : .incomplete }
            body = decoded
        } else if !closed {
            return .incomplete
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let data = object["data"] as? [[String: Any]] else { return .complete(nil) }
        return .complete(data.compactMap { $0["id"] as? String })
    }

    /// A chunked body's bytes once its last (empty) chunk has arrived, else nil.
    static func dechunk(_ bytes: [UInt8]) -> [UInt8]? {
        var body: [UInt8] = []
        var index = 0
        let crlf = Array("\r\n".utf8)
        while let lineEnd = bytes[index...].firstRange(of: crlf) {
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            if size == 0 { return body }
            let start = lineEnd.upperBound
            guard bytes.count >= start + size + 2 else { return nil }
            body += bytes[start..<(start + size)]
            index = start + size + 2
        }
        return nil
    }
}

/// One place's look: a non-blocking connect to 127.0.0.1, the request once it connects, and
/// the answer read until it is whole.
private struct Probe {
    let place: LocalModelServers.Place
    var socket: Int32 = -1
    var connected = false
    var finished = false
    var response: [UInt8] = []
    var models: [String]?

    /// A model list is small; anything longer is not what was asked for.
    static let limit = 256 * 1024

    init(place: LocalModelServers.Place) { self.place = place }

    var isWaiting: Bool { socket >= 0 && !finished }

    mutating func start() {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(place.port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result == 0 {
            connected = true
            send()
        } else if errno != EINPROGRESS {
            finished = true  // refused: nothing listens there
        }
    }

    mutating func advance() {
        if !connected {
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 else { finished = true; return }
            connected = true
            send()
            return
        }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            response += buffer[..<count]
            if response.count > Self.limit { finished = true; return }
        } else if count < 0, errno == EAGAIN || errno == EINTR {
            return
        }
        // A server may keep the connection open after its answer: the answer's own length says
        // when it is whole.
        if case .complete(let listed) = LocalModelServers.read(response, closed: count <= 0) {
            finished = true
            models = listed
        }
    }

    private mutating func send() {
        let request = Array("GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:\(place.port)\r\nAccept: application/json\r\nUser-Agent: reception\r\nConnection: close\r\n\r\n".utf8)
        let sent = request.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent != request.count { finished = true }
    }

    mutating func close() {
        if socket >= 0 { _ = Glibc.close(socket) }
        socket = -1
    }
}
