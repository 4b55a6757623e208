import Foundation
import ReceptionCore

extension TimepointClient {
    /// Dev sign-in: `POST /auth/dev/token` with `X-Admin-Key`; the same email is the same user.
    public func signInDev(email: String, displayName: String? = nil) async throws -> TimepointUser {
        let pair = try await call(TokenResponse.self, .POST, "/auth/dev/token",
                                  body: DevTokenRequest(email: email, displayName: displayName), route: .admin).pair
        await session.adopt(pair)
        return try await me()
    }

    /// Sign in with Apple: exchanges an identity token for the server's pair (`POST /auth/apple`).
    public func signInApple(identityToken: SecretToken) async throws -> TimepointUser {
        let pair = try await call(TokenResponse.self, .POST, "/auth/apple",
                                  body: AppleSignInRequest(identityToken: identityToken.reveal()), route: .plain).pair
        await session.adopt(pair)
        return try await me()
    }

    /// `GET /auth/me`.
    public func me() async throws -> TimepointUser {
        try await call(TimepointUser.self, .GET, "/auth/me")
    }

    /// Revokes the refresh token on the server and forgets it here, even when the server
    /// cannot be reached (then it simply expires there).
    @discardableResult
    public func signOut() async -> String {
        guard let token = await session.currentRefreshToken() else {
            await session.forget(reason: TimepointSession.notSignedIn)
            return "You were not signed in."
        }
        // The person was told to sign in again: say what this sign-out did with that sign-in.
        let unusable = await session.renewalFailed
        var note = ""
        do {
            let body = try Wire.encode(RefreshRequest(refreshToken: token.reveal()))
            let response = try await Self.perform(plain, configuration, .POST, "/auth/logout", body: body, auth: .none)
            if !(200..<300).contains(response.status) { note = " (the server answered HTTP \(response.status); the sign-in is forgotten here anyway)" }
        } catch {
            note = " (the server could not be told: \(error); the sign-in is forgotten here anyway)"
        }
        await session.forget(reason: TimepointSession.notSignedIn)
        if unusable {
            return "Signed out: the saved sign-in, which the server could not renew, was \(note.isEmpty ? "revoked there and " : "")forgotten here\(note)."
        }
        return "Signed out\(note)."
    }

    /// What the person has to type to delete this account: its email, else its id.
    public func deletionPhrase() async throws -> (user: TimepointUser, phrase: String) {
        let user = try await me()
        return (user, user.email ?? user.id)
    }

    /// Deactivates the account (`DELETE /auth/account`) once `typed` matches the account's
    /// email (or id), then forgets the sign-in. Anything else deletes nothing.
    public func deleteAccount(confirmation typed: String) async throws -> String {
        let (_, phrase) = try await deletionPhrase()
        guard typed.trimmingCharacters(in: .whitespaces) == phrase else {
            throw TimepointError.notConfirmed("The confirmation does not match; nothing was deleted. Type exactly: /account delete \(phrase)")
        }
        let answer = try await call(DetailMessage.self, .DELETE, "/auth/account")
        await session.forget(reason: "The account was deleted. \(TimepointSession.notSignedIn)")
        return answer.detail ?? "Account deactivated"
    }
}
