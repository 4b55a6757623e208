import Foundation

extension TimepointClient {
    /// `GET /credits/balance`.
    public func balance() async throws -> CreditBalance {
        try await call(CreditBalance.self, .GET, "/credits/balance")
    }

    /// `GET /credits/history?limit=&offset=`: one page of the ledger, newest first.
    public func history(limit: Int = 20, offset: Int = 0) async throws -> [CreditTransaction] {
        try await call([CreditTransaction].self, .GET, "/credits/history",
                       query: [("limit", String(min(max(limit, 1), 100))), ("offset", String(max(offset, 0)))])
    }

    /// `GET /credits/costs` (no sign-in needed).
    public func costs() async throws -> CreditCosts {
        try await call(CreditCosts.self, .GET, "/credits/costs", route: .plain)
    }

    /// The cost table, or the guide's when the server cannot say.
    public func costsOrGuide() async -> CreditCosts {
        (try? await costs()) ?? .guide
    }

    /// "Generating a scene costs 5 credits; you have 50." — said before a costed action.
    public func costNotice(_ action: String, cost: Int) async -> String {
        let balance = try? await balance().balance
        let have = balance.map { "; you have \(TimepointError.credits($0))" } ?? ""
        return "\(action) costs \(TimepointError.credits(cost))\(have)."
    }
}
