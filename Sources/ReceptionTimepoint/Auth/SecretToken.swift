/// A token (access, refresh or Apple identity) that never shows itself: printing it,
/// interpolating it, dumping it or reflecting it gives `‹token›`, so a token that ends up in
/// an error, a log line or a transcript by mistake is still not there. Only `reveal` (used
/// where it goes on the wire or into the token file) gives the value.
public struct SecretToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let value: String

    public init(_ value: String) { self.value = value }

    /// The token itself: for an `Authorization` header, a request body or the token file only.
    public func reveal() -> String { value }

    public var description: String { "‹token›" }
    public var debugDescription: String { "‹token›" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
    public var isEmpty: Bool { value.isEmpty }
}

/// An access token and the refresh token that renews it, as the server issued them together.
public struct TokenPair: Sendable, Hashable {
    public var access: SecretToken
    public var refresh: SecretToken
    /// Seconds the access token lives (`expires_in`), when the server says.
    public var expiresIn: Int?

    public init(access: SecretToken, refresh: SecretToken, expiresIn: Int? = nil) {
        self.access = access
        self.refresh = refresh
        self.expiresIn = expiresIn
    }
}
