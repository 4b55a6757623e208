import Foundation
import HTTPTypes
import Hummingbird
import ReceptionCore
import ReceptionLoopSymphony

/// The reference Loop Symphony server's routes: interventions.
extension LoopSymphonyReferenceServer {
    func interventionStatus(_ c: Call) async throws -> Response {
        S.json(.object([("recent_queries_count", .int(await state.recentQueries.count)),
                        ("available_instruments", .strings(ReferenceEngine.instruments)), ("max_interventions", .int(3))]))
    }

    func evaluateInterventions(_ c: Call) async throws -> Response {
        let body = try jsonBody(c)
        try validate(body, required: [("query", "str")], optional: [("trust_level", "int")])
        let query = body["query"]!.stringValue!
        let items = ReferenceEngine.interventions(query: query, instrument: ReferenceEngine.route(TaskRequest(query: query)),
                                                  trustLevel: body["trust_level"]?.intValue ?? 0, recentQueries: await state.recentQueries)
        return S.json(.object([("interventions", ReferenceEngine.interventionJSON(items)), ("count", .int(items.count))]))
    }
}

extension ReferenceState {
    func trustRecordsFor(userID: String) -> [TrustRecord] {
        [TrustRecord](trustValues.filter { $0.userID == userID })
    }
}
