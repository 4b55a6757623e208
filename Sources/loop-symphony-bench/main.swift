import AsyncHTTPClient
import Foundation
import NIOCore
import ReceptionCore
import ReceptionLoopSymphony
import ReceptionReferenceServers

// Adapter overhead per task: the same task flow (POST /task, GET /task/{id}/stream until
// `complete`, GET /task/{id}) done (a) through `LoopSymphonyBackend.submit` — encoding, SSE
// parsing, event decoding, typed results, backend events — and (b) as raw HTTP round trips
// with pre-built bodies and no decoding, on the same HTTPClient against the reference server
// on 127.0.0.1 (step delay 0). Runs alternate A/B to cancel drift. Build with -c release.

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 400 : 400
let warmup = 50

let server = try await RunningLoopSymphonyServer.start(LoopSymphonyReferenceOptions(keepaliveInterval: .seconds(30), stepDelay: .zero))
let http = HTTPClient(eventLoopGroupProvider: .singleton)
let configuration = LoopSymphonyConfiguration(baseURL: server.baseURL, apiKey: "dev-key", userID: "bench")
let backend = LoopSymphonyBackend(client: LoopSymphonyClient(configuration: configuration, httpClient: http))

func adapterTask(_ n: Int) async throws {
    var gotResult = false
    for try await event in backend.submit(TaskRequest(query: "hello number \(n)", preferences: TaskPreferences(trustLevel: 1))) {
        if case .result = event { gotResult = true }
    }
    precondition(gotResult, "adapter run without a result")
}

func rawTask(_ n: Int) async throws {
    let id = UUID().uuidString.lowercased()
    var submit = HTTPClientRequest(url: server.baseURL + "/task")
    submit.method = .POST
    submit.headers.add(name: "Content-Type", value: "application/json")
    submit.headers.add(name: "X-Api-Key", value: "dev-key")
    submit.headers.add(name: "X-User-Id", value: "bench")
    submit.headers.add(name: "X-Request-Id", value: id)
    submit.body = .bytes(ByteBuffer(string: #"{"id":"\#(id)","query":"hello number \#(n)","preferences":{"trust_level":1}}"#))
    let submitted = try await http.execute(submit, timeout: .seconds(10))
    _ = try await submitted.body.collect(upTo: 1 << 20)
    precondition(submitted.status == .ok)

    var stream = HTTPClientRequest(url: server.baseURL + "/task/\(id)/stream")
    stream.headers.add(name: "X-Request-Id", value: id + "-s")
    let streaming = try await http.execute(stream, timeout: .seconds(10))
    var seen = ""
    for try await chunk in streaming.body {
        seen += String(buffer: chunk)
        if seen.contains("\"event\": \"complete\"") { break }
    }
    precondition(seen.contains("\"event\": \"complete\""))

    var get = HTTPClientRequest(url: server.baseURL + "/task/\(id)")
    get.headers.add(name: "X-Request-Id", value: id + "-g")
    let result = try await http.execute(get, timeout: .seconds(10))
    let body = try await result.body.collect(upTo: 1 << 20)
    precondition(body.readableBytes > 0 && result.status == .ok)
}

func time(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    let d = start.duration(to: clock.now)
    return Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12  // microseconds
}

for n in 0..<warmup {
    try await adapterTask(n)
    try await rawTask(n)
}
var adapter: [Double] = []
var raw: [Double] = []
for n in 0..<count {
    if n % 2 == 0 {
        adapter.append(try await time { try await adapterTask(n) })
        raw.append(try await time { try await rawTask(n) })
    } else {
        raw.append(try await time { try await rawTask(n) })
        adapter.append(try await time { try await adapterTask(n) })
    }
}

func median(_ values: [Double]) -> Double { let s = values.sorted(); return s[s.count / 2] }
func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
func p90(_ values: [Double]) -> Double { let s = values.sorted(); return s[Int(Double(s.count) * 0.9)] }
let pairs = zip(adapter, raw).map { $0 - $1 }

print("Loop Symphony adapter overhead, \(count) tasks each (after \(warmup) warm-up), 127.0.0.1, reference server step delay 0")
print(String(format: "raw HTTP round trips (POST /task + SSE + GET /task): median %.0f µs, mean %.0f µs, p90 %.0f µs", median(raw), mean(raw), p90(raw)))
print(String(format: "through LoopSymphonyBackend.submit:               median %.0f µs, mean %.0f µs, p90 %.0f µs", median(adapter), mean(adapter), p90(adapter)))
print(String(format: "adapter overhead per task: median of paired differences %.0f µs, difference of medians %.0f µs, of means %.0f µs",
             median(pairs), median(adapter) - median(raw), mean(adapter) - mean(raw)))

try await http.shutdown().get()
await server.stop()
