import Foundation
import HTTPTypes
import Hummingbird
import ReceptionCore
import ReceptionLoopSymphony

/// The reference Loop Symphony server's routes: trust.
extension LoopSymphonyReferenceServer {
    static func trustJSON(_ t: ReferenceState.TrustRecord) -> PyJSON {
        .object([
            ("app_id", .string(t.appID)), ("user_id", .str(t.userID)), ("total_tasks", .int(t.total)),
            ("successful_tasks", .int(t.successful)), ("failed_tasks", .int(t.failed)), ("consecutive_successes", .int(t.consecutive)),
            ("current_trust_level", .int(t.level)), ("last_task_at", .str(t.lastTaskAt.map(PyTime.pydantic))),
            ("created_at", .string(PyTime.pydantic(t.createdAt))), ("updated_at", .string(PyTime.pydantic(t.updatedAt))),
        ])
    }

    func trustMetrics(_ c: Call) async throws -> Response {
        let caller = try await requireAuth(c)
        return S.json(Self.trustJSON(await state.trustRecord(appID: caller.app.id, userID: caller.userID)))
    }

    func trustSuggestion(_ c: Call) async throws -> Response {
        let caller = try await requireAuth(c)
        let t = await state.trustRecord(appID: caller.app.id, userID: caller.userID)
        let rate = t.total == 0 ? 0 : Double(t.successful) / Double(t.total)
        var suggested = t.level
        if t.level == 0, t.consecutive >= 5, rate >= 0.8 { suggested = 1 }
        if t.level == 1, t.consecutive >= 10, rate >= 0.9 { suggested = 2 }
        guard suggested > t.level else { return S.json(.null) }
        return S.json(.object([
            ("current_level", .int(t.level)), ("suggested_level", .int(suggested)),
            ("reason", .string("\(t.consecutive) consecutive successes with \(Int((rate * 100).rounded()))% success rate")),
            ("metrics", Self.trustJSON(t)),
        ]))
    }

    func trustLevel(_ c: Call) async throws -> Response {
        let caller = try await requireAuth(c)
        let body = try jsonBody(c)
        try validate(body, required: [("trust_level", "int")])
        let level = body["trust_level"]!.intValue!
        guard (0...2).contains(level) else {
            let (code, message, bound): (String, String, (String, Int)) = level > 2
                ? ("less_than_equal", "Input should be less than or equal to 2", ("le", 2))
                : ("greater_than_equal", "Input should be greater than or equal to 0", ("ge", 0))
            throw Failure.validation([.object([("type", .string(code)), ("loc", .strings(["body", "trust_level"])), ("msg", .string(message)),
                                               ("input", .int(level)), ("ctx", .object([(bound.0, .int(bound.1))]))])])
        }
        return S.json(Self.trustJSON(await state.setTrustLevel(appID: caller.app.id, userID: caller.userID, level: level)))
    }
}
