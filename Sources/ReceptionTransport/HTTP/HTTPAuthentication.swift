/// How a transport proves who it is. Adapters pick one per engine: API-key headers for Loop
/// Symphony, a Bearer token with refresh for JWT engines.
///
/// `scope` lets an engine with optional authentication leave credentials off calls that
/// must not carry them.
public protocol HTTPAuthentication: Sendable {
    /// The headers to add to a call of this scope.
    func headers(for scope: HTTPAuthScope) async throws -> [(name: String, value: String)]
    /// Called once after a 401: renew the credentials and return true to retry the call once,
    /// or false to report the 401.
    func refreshAfterUnauthorized() async throws -> Bool
}

/// Whether a call sends credentials.
public enum HTTPAuthScope: Sendable, Hashable {
    /// Never: the endpoint takes none (or must not see them).
    case none
    /// When configured: the endpoint accepts them and behaves differently with them.
    case optional
    /// Always: the endpoint refuses calls without them.
    case required
}

extension HTTPAuthentication {
    public func refreshAfterUnauthorized() async throws -> Bool { false }
}

/// No credentials at all.
public struct NoAuthentication: HTTPAuthentication {
    public init() {}
    public func headers(for scope: HTTPAuthScope) async throws -> [(name: String, value: String)] { [] }
}

/// Fixed headers (`X-Api-Key`, `X-User-Id`, ...) on every call that is not `.none`.
public struct HeaderAuthentication: HTTPAuthentication {
    let fixed: [(name: String, value: String)]

    /// Headers whose value is nil are left out.
    public init(_ headers: [(name: String, value: String?)]) {
        fixed = headers.compactMap { header in header.value.map { (header.name, $0) } }
    }

    public func headers(for scope: HTTPAuthScope) async throws -> [(name: String, value: String)] {
        scope == .none ? [] : fixed
    }
}

/// `Authorization: Bearer TOKEN`, with a hook that renews the token after a 401 (JWT engines:
/// refresh, store the new pair, retry once).
public struct BearerAuthentication: HTTPAuthentication {
    let token: @Sendable () async throws -> String?
    let refresh: @Sendable () async throws -> Bool

    /// `token` gives the current access token (nil: none yet); `refresh` renews it and says
    /// whether a retry makes sense.
    public init(token: @escaping @Sendable () async throws -> String?, refresh: @escaping @Sendable () async throws -> Bool = { false }) {
        self.token = token
        self.refresh = refresh
    }

    public func headers(for scope: HTTPAuthScope) async throws -> [(name: String, value: String)] {
        guard scope != .none, let token = try await token() else { return [] }
        return [("Authorization", "Bearer \(token)")]
    }

    public func refreshAfterUnauthorized() async throws -> Bool { try await refresh() }
}
