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
    /// Throws "sign in again" when the balance cannot be read for that reason: the action
    /// would be refused, so no cost is announced for it. Any other failure to read the balance
    /// leaves it out of the sentence.
    public func costNotice(_ action: String, cost: Int) async throws -> String {
        let balance: Int?
        do {
            balance = try await self.balance().balance
        } catch let error as TimepointError {
            if case .signInAgain = error { throw error }
            balance = nil
        } catch {
            balance = nil
        }
        let have = balance.map { "; you have \(TimepointError.credits($0))" } ?? ""
        return "\(action) costs \(TimepointError.credits(cost))\(have)."
    }
}
