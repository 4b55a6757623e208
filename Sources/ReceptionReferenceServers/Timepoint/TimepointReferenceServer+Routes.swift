import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ReceptionCore

/// The routes under `/api/v1`, as the real server answers them.
extension TimepointReferenceServer {
    struct Call {
        var method: String
        var parts: [String]
        var query: [String: String]
        var body: JSONValue?
        var bodyIsJSON: Bool
        var authorization: String?
        var adminKey: String?
    }

    func respond(_ request: Request) async -> Response {
        var request = request
        let path = request.uri.path
        let method = request.method.rawValue
        let authorization = request.headers[.authorization]
        let adminKey = request.headers[HTTPField.Name("x-admin-key")!]
        await state.record(TimepointReceivedCall(method: method, path: path, at: .now, authorization: authorization, adminKey: adminKey))
        if let fault = await state.takeFault(method: method, path: path) {
            switch fault.status {
            case 422: return Self.invalid([(["query"], "value_error", fault.message ?? "Value error, scripted")])
            case 500...599: return Self.json(fault.status, .object(["error": .string("Internal server error"), "detail": .string(fault.message ?? "scripted failure")]))
            default:
                return Self.error(fault.status, fault.message ?? (fault.status == 429 ? "Rate limit exceeded" : "scripted refusal"),
                                  headers: fault.retryAfter.map { [("Retry-After", $0)] } ?? [])
            }
        }
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { query[String(key)] = String(value).removingPercentEncoding ?? String(value) }
        let data = (try? await request.collectBody(upTo: 1 << 20)).map { Data(buffer: $0) } ?? Data()
        let body = data.isEmpty ? nil : try? Wire.decode(JSONValue.self, from: data)
        if !data.isEmpty && body == nil {
            return Self.json(422, .object(["detail": .array([.object(["type": .string("json_invalid"), "loc": .array([.string("body"), .number(0)]),
                                                                       "msg": .string("JSON decode error"), "input": .object([:])])])]))
        }
        let parts = path.split(separator: "/").map(String.init)
        let call = Call(method: method, parts: parts, query: query, body: body, bodyIsJSON: body != nil, authorization: authorization, adminKey: adminKey)
        if parts.first == "reference" { return await scripting(call) }
        guard parts.count >= 3, parts[0] == "api", parts[1] == "v1" else { return Self.json(404, .object(["detail": .string("Not Found")])) }
        let route = Array(parts.dropFirst(2))
        switch route.first {
        case "auth": return await auth(call, route)
        case "credits": return await credits(call, route)
        case "timepoints": return await timepoints(call, route)
        case "interactions": return await interactions(call, route)
        case "temporal": return await temporal(call, route)
        default: return Self.json(404, .object(["detail": .string("Not Found")]))
        }
    }

    // MARK: helpers

    /// The signed-in user, or the 401 to answer.
    func user(_ call: Call) async -> Result<TimepointReferenceState.User, Refusal> {
        switch await state.authenticate(call.authorization) {
        case .user(let user): .success(user)
        case .refused(let why): .failure(Refusal(response: Self.error(401, why)))
        }
    }

    struct Refusal: Error { var response: Response }

    func adminAllowed(_ call: Call) -> Bool { call.adminKey == options.adminKey && !options.adminKey.isEmpty }

    static func notFoundRoute() -> Response { json(404, .object(["detail": .string("Not Found")])) }
    static func methodNotAllowed() -> Response { json(405, .object(["detail": .string("Method Not Allowed")])) }

    func string(_ call: Call, _ key: String) -> String? { call.body?[key]?.stringValue }

    // MARK: scripting

    func scripting(_ call: Call) async -> Response {
        guard adminAllowed(call) else { return Self.error(403, "Invalid admin key") }
        switch (call.method, call.parts.dropFirst().first) {
        case ("POST", "faults"):
            guard let body = call.body, let fault = try? Wire.decode(TimepointFault.self, from: Wire.encode(body)) else {
                return Self.invalid([(["path"], "missing", "Field required")])
            }
            await state.addFault(fault)
            return Self.json(200, .object(["detail": .string("fault added")]))
        case ("POST", "expire-access-tokens"):
            await state.expireAccessTokens()
            return Self.json(200, .object(["detail": .string("access tokens expired")]))
        default:
            return Self.notFoundRoute()
        }
    }

    // MARK: auth

    func auth(_ call: Call, _ route: [String]) async -> Response {
        switch (call.method, Array(route.dropFirst())) {
        case ("POST", ["dev", "token"]):
            guard !options.adminKey.isEmpty else { return Self.error(403, "Admin endpoints are disabled (ADMIN_API_KEY not set)") }
            guard adminAllowed(call) else { return Self.error(403, "Invalid admin key") }
            guard let email = string(call, "email") else { return Self.invalid([(["email"], "missing", "Field required")]) }
            let (user, _) = await state.user(email: email, displayName: string(call, "display_name"))
            return Self.json(200, await state.issuePair(for: user.id))
        case ("POST", ["apple"]):
            guard let token = string(call, "identity_token") else { return Self.invalid([(["identity_token"], "missing", "Field required")]) }
            guard token.hasPrefix("apple:"), token.count > 6 else { return Self.error(401, "Invalid Apple identity token") }
            let (user, _) = await state.user(email: "\(token.dropFirst(6))@privaterelay.appleid.com", displayName: nil)
            return Self.json(200, await state.issuePair(for: user.id))
        case ("POST", ["refresh"]):
            guard let token = string(call, "refresh_token") else { return Self.invalid([(["refresh_token"], "missing", "Field required")]) }
            switch await state.refresh(token) {
            case .pair(let pair): return Self.json(200, pair)
            case .refused(500, let detail): return Self.json(500, .object(["error": .string("Internal server error"), "detail": .string(detail)]))
            case .refused(let status, let why): return Self.error(status, why)
            }
        case ("POST", ["logout"]):
            if let token = string(call, "refresh_token") { await state.logout(token) }
            return Self.json(200, .object(["detail": .string("Logged out")]))
        case ("GET", ["me"]):
            switch await user(call) {
            case .failure(let refusal): return refusal.response
            case .success(let user):
                return Self.json(200, .object(["id": .string(user.id), "email": user.email.map(JSONValue.string) ?? .null,
                                               "display_name": user.displayName.map(JSONValue.string) ?? .null,
                                               "created_at": .string("2026-02-18T12:00:00")]))
            }
        case ("DELETE", ["account"]):
            switch await user(call) {
            case .failure(let refusal): return refusal.response
            case .success(let user):
                await state.deactivate(user.id)
                return Self.json(200, .object(["detail": .string("Account deactivated")]))
            }
        default:
            return Self.notFoundRoute()
        }
    }

    // MARK: credits

    static let costs: [String: Int] = ["generate_balanced": 5, "generate_hd": 10, "generate_hyper": 5, "generate_gemini3": 5, "chat": 1, "temporal_jump": 2]

    func credits(_ call: Call, _ route: [String]) async -> Response {
        let rest = Array(route.dropFirst())
        if call.method == "GET", rest == ["costs"] {
            return Self.json(200, .object(["costs": .object(Self.costs.mapValues { .number(Double($0)) })]))
        }
        if call.method == "POST", rest == ["admin", "grant"] {
            guard adminAllowed(call) else { return Self.error(403, "Invalid admin key") }
            guard let id = string(call, "user_id") else { return Self.invalid([(["user_id"], "missing", "Field required")]) }
            guard let amount = call.body?["amount"]?.intValue, amount > 0 else {
                return Self.invalid([(["amount"], "greater_than", "Input should be greater than 0")])
            }
            guard let balance = await state.grant(id, amount) else { return Self.error(404, "User not found") }
            return Self.json(200, .object(["balance": .number(Double(balance)), "granted": .number(Double(amount))]))
        }
        let signedIn: TimepointReferenceState.User
        switch await user(call) {
        case .failure(let refusal): return refusal.response
        case .success(let user): signedIn = user
        }
        switch (call.method, rest) {
        case ("GET", ["balance"]):
            return Self.json(200, .object(["balance": .number(Double(signedIn.balance)), "lifetime_earned": .number(Double(signedIn.earned)),
                                           "lifetime_spent": .number(Double(signedIn.spent))]))
        case ("GET", ["history"]):
            let limit = Int(call.query["limit"] ?? "20") ?? -1
            let offset = Int(call.query["offset"] ?? "0") ?? -1
            var problems: [(field: [String], type: String, message: String)] = []
            if !(1...100).contains(limit) { problems.append((["limit"], "less_than_equal", "Input should be between 1 and 100")) }
            if offset < 0 { problems.append((["offset"], "greater_than_equal", "Input should be greater than or equal to 0")) }
            if !problems.isEmpty {
                return Self.json(422, .object(["detail": .array(problems.map { problem in
                    .object(["type": .string(problem.type), "loc": .array([.string("query")] + problem.field.map(JSONValue.string)), "msg": .string(problem.message)])
                })]))
            }
            return Self.json(200, .array(Array(signedIn.ledger.dropFirst(offset).prefix(limit))))
        default:
            return Self.notFoundRoute()
        }
    }
}
