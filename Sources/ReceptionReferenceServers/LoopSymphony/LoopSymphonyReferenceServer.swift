import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ReceptionCore
import ReceptionLoopSymphony

/// A deterministic Loop Symphony server (the API of `mattdarbro/loop-symphony` at 1917bde) for
/// tests and for trying Reception without the real deployment: `reception serve loop-symphony`.
///
/// Wire behaviour follows the real server: FastAPI-style error bodies (`{"detail": "..."}`, the
/// 422 validation list, text/plain 500), SSE with `data:` lines only, `task_id`/`timestamp`
/// appended to every event, `: keepalive` comments after `keepaliveInterval` of silence, late
/// joiners get the history, stream ends after `complete`/`error`. Behaviour is scripted by words
/// in the query (see `ReferenceEngine`). Differences from the real server are listed in docs/loop-symphony.md.
public struct LoopSymphonyReferenceServer: Sendable {
    public let options: LoopSymphonyReferenceOptions
    let state: ReferenceState

    public init(options: LoopSymphonyReferenceOptions = LoopSymphonyReferenceOptions()) {
        self.options = options
        state = ReferenceState(options: options)
    }

    /// Serves until the surrounding task is cancelled; `onReady` gets the bound port.
    public func run(onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let handler = self
        let app = loopbackApplication(host: options.host, port: options.port, label: "loop-symphony-reference", onReady: onReady) { await handler.respond($0) }
        try await app.run()
    }

    /// Request ids (`X-Request-Id`) received so far, oldest first.
    public func receivedRequestIDs() async -> [String] { await state.requestIDs }

    /// `GET /task/{id}/stream` responses still open. A stream ends on the server when its last
    /// event is written or when a write (an event or a keepalive) finds the client gone.
    public func openStreamCount() async -> Int { await state.openStreamCount }

    // MARK: - Dispatch

    struct Call: Sendable {
        var method: HTTPRequest.Method
        var path: String
        var params: [String: String]
        var query: [String: String]
        var headers: HTTPFields
        var body: Data?
        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
    }

    struct Failure: Error {
        var status: Int
        var body: PyJSON?
        var text: String?
        static func detail(_ status: Int, _ detail: String) -> Failure { Failure(status: status, body: .object([("detail", .string(detail))])) }
        static func validation(_ items: [PyJSON]) -> Failure { Failure(status: 422, body: .object([("detail", .array(items))])) }
        static let internalError = Failure(status: 500, body: nil, text: "Internal Server Error")
    }

    typealias Handler = @Sendable (LoopSymphonyReferenceServer, Call) async throws -> Response

    struct Route: Sendable {
        var method: HTTPRequest.Method
        var pattern: [String]
        var handler: Handler
    }

    func respond(_ request: Request) async -> Response {
        var request = request
        let requestID = request.headers[HTTPField.Name("x-request-id")!]
        await state.record(requestID: requestID)
        var response: Response
        do {
            let components = request.uri.path.split(separator: "/").map(String.init)
            var matched: [(Route, [String: String])] = []
            for route in Self.routes {
                if let params = Self.match(route.pattern, components) { matched.append((route, params)) }
            }
            guard !matched.isEmpty else { throw Failure.detail(404, "Not Found") }
            guard let (route, params) = matched.first(where: { $0.0.method == request.method }) else {
                throw Failure.detail(405, "Method Not Allowed")
            }
            var query: [String: String] = [:]
            for (key, value) in request.uri.queryParameters { query[String(key)] = String(value).removingPercentEncoding ?? String(value) }
            let buffer = try await request.collectBody(upTo: 4 << 20)
            let body = buffer.readableBytes == 0 ? nil : Data(buffer.readableBytesView)
            response = try await route.handler(self, Call(method: request.method, path: request.uri.path, params: params,
                                                           query: query, headers: request.headers, body: body))
        } catch let failure as Failure {
            response = Self.render(failure)
        } catch {
            response = Self.render(.internalError)
        }
        if let requestID { response.headers[HTTPField.Name("x-request-id")!] = requestID }
        return response
    }

    static func match(_ pattern: [String], _ components: [String]) -> [String: String]? {
        guard pattern.count == components.count else { return nil }
        var params: [String: String] = [:]
        for (p, c) in zip(pattern, components) {
            if p.hasPrefix(":") { params[String(p.dropFirst())] = c.removingPercentEncoding ?? c } else if p != c { return nil }
        }
        return params
    }

    static func render(_ failure: Failure) -> Response {
        if let text = failure.text {
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            return Response(status: .init(code: failure.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        return json(failure.body ?? .null, status: failure.status)
    }

    static func json(_ value: PyJSON, status: Int = 200) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: value.render(.compact))))
    }

    // MARK: - Auth (api/auth.py)

    /// Required auth: missing key → 422, unknown → 401, inactive → 403.
    func requireAuth(_ call: Call) async throws -> ReferenceState.Caller {
        guard let key = call.header("x-api-key") else {
            throw Failure.validation([.object([("type", .string("missing")), ("loc", .strings(["header", "x-api-key"])),
                                               ("msg", .string("Field required")), ("input", .null)])])
        }
        guard let app = options.apps.first(where: { $0.apiKey == key }) else { throw Failure.detail(401, "Invalid API key") }
        guard app.isActive else { throw Failure.detail(403, "App is deactivated") }
        let user = await call.header("x-user-id").asyncMap { await state.internalUserID(external: $0) }
        return ReferenceState.Caller(app: app, userID: user)
    }

    /// Optional auth: anything wrong is treated as anonymous.
    func optionalAuth(_ call: Call) async -> ReferenceState.Caller? { try? await requireAuth(call) }

    // MARK: - Body validation (FastAPI/pydantic style 422s)

    func jsonBody(_ call: Call) throws -> JSONValue {
        guard let body = call.body else {
            throw Failure.validation([.object([("type", .string("missing")), ("loc", .strings(["body"])), ("msg", .string("Field required")), ("input", .null)])])
        }
        guard let value = try? Wire.decode(JSONValue.self, from: body) else {
            throw Failure.validation([.object([("type", .string("json_invalid")), ("loc", .array([.string("body"), .int(0)])),
                                               ("msg", .string("JSON decode error")), ("input", .object([])),
                                               ("ctx", .object([("error", .string("Expecting value"))]))])])
        }
        guard case .object = value else {
            throw Failure.validation([.object([("type", .string("model_attributes_type")), ("loc", .strings(["body"])),
                                               ("msg", .string("Input should be a valid dictionary or object to extract fields from")),
                                               ("input", PyJSON(value))])])
        }
        return value
    }

    /// Checks required fields and their JSON types; collects every problem like pydantic does.
    func validate(_ value: JSONValue, required: [(String, String)], optional: [(String, String)] = [], loc: [String] = ["body"]) throws {
        var problems: [PyJSON] = []
        func check(_ key: String, _ type: String, _ item: JSONValue) {
            let ok: Bool
            switch (type, item) {
            case ("str", .string), ("bool", .bool), ("list", .array), ("dict", .object): ok = true
            case ("int", .number(let n)): ok = n.rounded() == n
            case ("float", .number): ok = true
            case ("any", _): ok = true
            default: ok = false
            }
            if !ok {
                let (code, message): (String, String) = switch type {
                case "str": ("string_type", "Input should be a valid string")
                case "int": ("int_type", "Input should be a valid integer")
                case "float": ("float_type", "Input should be a valid number")
                case "bool": ("bool_type", "Input should be a valid boolean")
                case "list": ("list_type", "Input should be a valid list")
                default: ("dict_type", "Input should be a valid dictionary")
                }
                problems.append(.object([("type", .string(code)), ("loc", .strings(loc + [key])), ("msg", .string(message)), ("input", PyJSON(item))]))
            }
        }
        for (key, type) in required {
            if let item = value[key], item != .null || type == "any" { check(key, type, item) } else {
                problems.append(.object([("type", .string("missing")), ("loc", .strings(loc + [key])), ("msg", .string("Field required")),
                                         ("input", PyJSON(value))]))
            }
        }
        for (key, type) in optional { if let item = value[key], item != .null { check(key, type, item) } }
        if !problems.isEmpty { throw Failure.validation(problems) }
    }

    func taskRequest(_ call: Call) throws -> TaskRequest {
        var body = try jsonBody(call)
        try validate(body, required: [("query", "str")], optional: [("id", "str"), ("context", "dict"), ("preferences", "dict")])
        if let preferences = body["preferences"], case .object = preferences {
            try validate(preferences, required: [], optional: [("trust_level", "int"), ("thoroughness", "str"), ("notify_on_complete", "bool")],
                         loc: ["body", "preferences"])
            if let level = preferences["trust_level"]?.intValue, !(0...2).contains(level) {
                let (code, message, bound): (String, String, (String, Int)) = level > 2
                    ? ("less_than_equal", "Input should be less than or equal to 2", ("le", 2))
                    : ("greater_than_equal", "Input should be greater than or equal to 0", ("ge", 0))
                throw Failure.validation([.object([("type", .string(code)), ("loc", .strings(["body", "preferences", "trust_level"])),
                                                   ("msg", .string(message)), ("input", .int(level)), ("ctx", .object([(bound.0, .int(bound.1))]))])])
            }
        }
        if body["id"] == nil || body["id"] == .null, case .object(var object) = body {
            object["id"] = .string(UUID().uuidString.lowercased())
            body = .object(object)
        }
        do {
            return try Wire.decode(TaskRequest.self, from: Wire.encode(body))
        } catch {
            throw Failure.validation([.object([("type", .string("model_attributes_type")), ("loc", .strings(["body"])),
                                               ("msg", .string("Input should be a valid TaskRequest")), ("input", PyJSON(body))])])
        }
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        switch self {
        case .some(let value): try await transform(value)
        case .none: nil
        }
    }
}

/// A Loop Symphony reference server running in the background (tests, benchmarks).
public typealias RunningLoopSymphonyServer = RunningReferenceServer<LoopSymphonyReferenceServer>

extension LoopSymphonyReferenceServer: ReferenceServer {}

extension RunningReferenceServer where Server == LoopSymphonyReferenceServer {
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server on 127.0.0.1 (port 0: ephemeral) and returns once it accepts connections.
    public static func start(_ options: LoopSymphonyReferenceOptions = LoopSymphonyReferenceOptions()) async throws -> RunningLoopSymphonyServer {
        try await launch(options)
    }

    public func receivedRequestIDs() async -> [String] { await server.receivedRequestIDs() }
    public func openStreamCount() async -> Int { await server.openStreamCount() }
}
