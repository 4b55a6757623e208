/// `GET /credits/balance`.
public struct CreditBalance: Decodable, Sendable, Hashable {
    public var balance: Int
    public var lifetimeEarned: Int?
    public var lifetimeSpent: Int?
    enum CodingKeys: String, CodingKey { case balance, lifetimeEarned = "lifetime_earned", lifetimeSpent = "lifetime_spent" }
}

/// One row of `GET /credits/history` (the server calls the kind `type`; the guide says
/// `transaction_type`: both are read).
public struct CreditTransaction: Decodable, Sendable, Hashable {
    public var amount: Int
    public var balanceAfter: Int?
    public var type: String?
    public var description: String?
    public var createdAt: String?

    enum CodingKeys: String, CodingKey {
        case amount, balanceAfter = "balance_after", type, transactionType = "transaction_type", description, createdAt = "created_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        amount = try c.decode(Int.self, forKey: .amount)
        balanceAfter = try c.decodeIfPresent(Int.self, forKey: .balanceAfter)
        type = try c.decodeIfPresent(String.self, forKey: .type) ?? c.decodeIfPresent(String.self, forKey: .transactionType)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        createdAt = try c.decodeIfPresent(String.self, forKey: .createdAt)
    }
}

/// `GET /credits/costs`: what each operation costs, by the server's own names
/// (`generate_balanced`, `chat`, `temporal_jump`, ...).
public struct CreditCosts: Decodable, Sendable, Hashable {
    public var costs: [String: Int]

    public init(costs: [String: Int]) { self.costs = costs }

    /// The guide's table, used until the server's own is known.
    public static let guide = CreditCosts(costs: [
        "generate_balanced": 5, "generate_hd": 10, "generate_hyper": 5, "generate_gemini3": 5, "chat": 1, "temporal_jump": 2,
    ])

    /// The price of generating with a preset (balanced when none is named).
    public func generation(preset: String?) -> Int {
        costs["generate_\(preset ?? "balanced")"] ?? costs["generate_balanced"] ?? 5
    }

    public var chat: Int { costs["chat"] ?? 1 }
    public var temporalJump: Int { costs["temporal_jump"] ?? 2 }
}
