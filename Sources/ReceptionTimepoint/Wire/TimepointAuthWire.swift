import Foundation
import ReceptionCore

/// `TokenResponse`: what `/auth/apple`, `/auth/dev/token` and `/auth/refresh` answer.
struct TokenResponse: Decodable, Sendable {
    var accessToken: String
    var refreshToken: String
    var tokenType: String?
    var expiresIn: Int?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", tokenType = "token_type", expiresIn = "expires_in"
    }

    var pair: TokenPair { TokenPair(access: SecretToken(accessToken), refresh: SecretToken(refreshToken), expiresIn: expiresIn) }
}

struct DevTokenRequest: Encodable, Sendable {
    var email: String
    var displayName: String?
    enum CodingKeys: String, CodingKey { case email, displayName = "display_name" }
}

struct AppleSignInRequest: Encodable, Sendable {
    var identityToken: String
    enum CodingKeys: String, CodingKey { case identityToken = "identity_token" }
}

struct RefreshRequest: Encodable, Sendable {
    var refreshToken: String
    enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
}

/// `GET /auth/me`.
public struct TimepointUser: Decodable, Sendable, Hashable {
    public var id: String
    public var email: String?
    public var displayName: String?
    public var createdAt: String?
    enum CodingKeys: String, CodingKey { case id, email, displayName = "display_name", createdAt = "created_at" }
}

/// `{"detail": "Logged out"}` and friends.
struct DetailMessage: Decodable, Sendable {
    var detail: String?
}
