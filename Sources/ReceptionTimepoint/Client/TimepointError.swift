import ReceptionCore

/// What went wrong with a TIMEPOINT call, in words a person can act on. The server's own
/// words are kept (cleaned and shortened); tokens never appear in any of them.
public enum TimepointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No sign-in: there is no refresh token, or the server ended the session.
    case signInAgain(reason: String)
    /// 402: the balance does not cover the action.
    case insufficientCredits(cost: Int?, balance: Int?, serverWords: String)
    /// 403 on a scene that belongs to someone else.
    case privateScene
    /// 403 for another reason (e.g. only the owner may change visibility).
    case forbidden(String)
    /// 404.
    case notFound(String)
    /// 422: the request's fields, each with what is wrong with it.
    case validation([FieldProblem])
    /// 429 that did not clear within the backoff.
    case rateLimited(String)
    /// 4xx/5xx that is none of the above (500 after its one retry).
    case server(status: Int, detail: String)
    /// A typed confirmation did not match.
    case notConfirmed(String)
    /// The account does not allow this (e.g. no admin key configured for dev sign-in).
    case unavailable(String)

    public struct FieldProblem: Sendable, Hashable {
        /// `body.query`, `query.limit`...
        public var field: String
        public var message: String
        public init(field: String, message: String) {
            self.field = field
            self.message = message
        }
    }

    public var description: String {
        switch self {
        case .signInAgain(let reason): reason
        case .insufficientCredits(let cost, let balance, let words):
            switch (cost, balance) {
            case (let cost?, let balance?):
                "Not enough credits: this costs \(Self.credits(cost)) and you have \(Self.credits(balance)). (\(words))"
            case (let cost?, nil): "Not enough credits: this costs \(Self.credits(cost)). (\(words))"
            default: "Not enough credits. (\(words))"
            }
        case .privateScene: "This scene is private."
        case .forbidden(let words): "Not allowed: \(words)"
        case .notFound(let words): "Not found: \(words)"
        case .validation(let problems):
            "The server did not accept the request:\n" + problems.map { "- \($0.field): \($0.message)" }.joined(separator: "\n")
        case .rateLimited(let words): "The server is still refusing for load after waiting (\(words)). Try again in a minute."
        case .server(let status, let detail): "The server failed (HTTP \(status)): \(detail)"
        case .notConfirmed(let words): words
        case .unavailable(let words): words
        }
    }

    /// A 402 with the price Reception knows when it is higher than the one the server named
    /// (upstream checks every preset at the balanced price, so an `hd` refusal says 5).
    public func charging(atLeast cost: Int) -> TimepointError {
        guard case .insufficientCredits(let named, let balance, let words) = self else { return self }
        return .insufficientCredits(cost: max(named ?? 0, cost), balance: balance, serverWords: words)
    }

    /// "1 credit", "5 credits".
    public static func credits(_ count: Int) -> String { count == 1 ? "1 credit" : "\(count) credits" }
}
