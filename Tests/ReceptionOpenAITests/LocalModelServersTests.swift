import Foundation
import Glibc
import ReceptionCore
@testable import ReceptionOpenAI
import ReceptionReferenceServers
import Testing

/// The look for model servers on this machine: only an OpenAI model list counts, nothing that
/// refuses or answers otherwise is named, and a server that never answers cannot hold it past
/// its deadline.
@Suite("Model servers on this machine")
struct LocalModelServersTests {
    @Test func anOpenAICompatibleServerIsFoundWithItsModels() async throws {
        let server = try await RunningOpenAIServer.start(OpenAIReferenceOptions(port: 0, models: ["tiny", "small"]))
        let place = LocalModelServers.Place(name: "llama.cpp", product: "llama.cpp's server", port: server.port)
        let nowhere = LocalModelServers.Place(name: "ollama", product: "Ollama", port: try Self.closedPort())
        let found = await LocalModelServers.look([nowhere, place], deadline: .seconds(10))
        await server.stop()
        #expect(found == [LocalModelServers.Found(place: place, models: ["tiny", "small"])])
    }

    /// Loop Symphony and TIMEPOINT listen on vLLM's usual port 8000 too: a 404 there is no model server.
    @Test func aServerWithoutAModelListIsNotNamed() async throws {
        let server = try await RunningLoopSymphonyServer.start(LoopSymphonyReferenceOptions(port: 0))
        let place = LocalModelServers.Place(name: "vllm", product: "vLLM", port: server.port)
        let found = await LocalModelServers.look([place], deadline: .seconds(10))
        await server.stop()
        #expect(found.isEmpty)
    }

    /// A listener that accepts and never answers (a server still loading its model).
    /// Timed around the blocking probe itself: an async test's clock would also count the time
    /// its task waits for a thread while the rest of a parallel run keeps them busy.
    @Test func aServerThatNeverAnswersEndsTheLookAtItsDeadline() throws {
        let (listener, port) = try Self.silentListener()
        defer { close(listener) }
        let place = LocalModelServers.Place(name: "lm-studio", product: "LM Studio", port: port)
        let started = ContinuousClock.now
        let found = LocalModelServers.probe([place], deadline: .milliseconds(200))
        let took = started.duration(to: .now)
        #expect(found.isEmpty)
        // Bounded by its own deadline, not by the listener: generous, as the machine may be loaded.
        #expect(took >= .milliseconds(190) && took < .seconds(10), "took \(took)")
    }

    @Test func theEnvironmentChoosesWhereToLook() {
        func places(_ value: String?) -> [LocalModelServers.Place] {
            LocalModelServers.places(PluginEnvironment.standard(value.map { ["RECEPTION_LOCAL_SERVERS": $0] } ?? [:]))
        }
        #expect(places(nil) == LocalModelServers.usual)
        #expect(places("").isEmpty, "empty: look nowhere")
        #expect(places("ollama=11435, mine=9000,bad=x,=3,huge=70000") == [
            .init(name: "ollama", product: "Ollama", port: 11435),
            .init(name: "mine", product: "an OpenAI-compatible server", port: 9000),
        ])
        // Each place is a profile the REPL can switch to.
        let profiles = LocalModelServers.profiles(PluginEnvironment.standard(["RECEPTION_LOCAL_SERVERS": "ollama=11435"]))
        #expect(profiles.map(\.name) == ["ollama"] && profiles.first?.string("url") == "http://127.0.0.1:11435/v1")
    }

    @Test func onlyAWholeModelListIsOne() {
        func response(_ status: String, _ headers: String, _ body: String) -> [UInt8] {
            Array("HTTP/1.1 \(status)\r\nContent-Type: application/json\r\n\(headers)\r\n\(body)".utf8)
        }
        let list = #"{"object":"list","data":[{"id":"a"},{"id":"b"}]}"#
        let sized = response("200 OK", "Content-Length: \(list.utf8.count)\r\n", list)
        #expect(LocalModelServers.read(sized, closed: false) == .complete(["a", "b"]), "whole at its length, the connection still open")
        #expect(LocalModelServers.read(Array(sized.dropLast(3)), closed: false) == .incomplete)
        let chunked = response("200 OK", "Transfer-Encoding: chunked\r\n", "10\r\n\(list.prefix(16))\r\n\(String(list.utf8.count - 16, radix: 16))\r\n\(list.dropFirst(16))\r\n0\r\n\r\n")
        #expect(LocalModelServers.read(chunked, closed: false) == .complete(["a", "b"]))
        #expect(LocalModelServers.read(response("200 OK", "", list), closed: true) == .complete(["a", "b"]), "no length: whole at close")
        #expect(LocalModelServers.read(response("404 Not Found", "", #"{"detail":"Not Found"}"#), closed: false) == .complete(nil))
        #expect(LocalModelServers.read(response("200 OK", "", "<html>hello</html>"), closed: true) == .complete(nil))
        #expect(LocalModelServers.read(Array("garbage".utf8), closed: true) == .complete(nil))
    }

    /// A port nothing listens on: bound without listening, so connections are refused, and
    /// held until the test process ends, so no server of a test beside this one takes it.
    static func closedPort() throws -> Int {
        try silentListener(listening: false).1
    }

    /// A socket listening on 127.0.0.1 that never accepts or answers (or only bound).
    static func silentListener(listening: Bool = true) throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && (!listening || listen(fd, 4) == 0) && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
