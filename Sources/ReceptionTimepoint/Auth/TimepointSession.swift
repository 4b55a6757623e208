import ReceptionCore

/// Who is signed in: the access token in memory only, the refresh token in its file.
///
/// - A new process has no access token; the first call that needs one renews it from the
///   saved refresh token (the guide's "re-derived from refresh on app launch").
/// - After a 401 the transport asks once for a refresh (`refreshAfterUnauthorized`) and
///   retries once; a refresh that fails leaves a reason, and every later call says
///   "sign in again" with it instead of looping.
/// - Rotation: the new refresh token is written to the file before anything else happens,
///   so a crash right after the server's answer loses at most that answer.
/// - Refreshes are single-flight: calls that hit 401 together share one refresh.
public actor TimepointSession {
    /// Exchanges a refresh token for a new pair (`POST /auth/refresh`).
    public typealias Renew = @Sendable (SecretToken) async throws -> TokenPair

    let file: RefreshTokenFile
    private let renew: Renew
    private var access: SecretToken?
    private var refresh: SecretToken?
    private var loadedFile = false
    private var inFlight: Task<Bool, Never>?
    /// Why the person has to sign in again, when they do.
    public private(set) var signedOutReason: String?
    /// Something about the saved sign-in worth saying once (e.g. it could not be written).
    public private(set) var warning: String?
    /// When a refresh last failed for a reason other than a dead token (a 500, no answer):
    /// calls within `refreshPause` after it say "sign in again" at once instead of asking a
    /// broken server again for every call.
    private var failedRefreshAt: ContinuousClock.Instant?
    static let refreshPause: Duration = .seconds(30)

    public init(file: RefreshTokenFile, renew: @escaping Renew) {
        self.file = file
        self.renew = renew
    }

    static let notSignedIn = "You are not signed in. Sign in with /signin dev EMAIL (the dev admin key) or /signin apple FILE (an Apple identity token)."

    /// True when a refresh token is at hand (in memory or saved).
    public var hasSavedSignIn: Bool {
        loadFileOnce()
        return refresh != nil
    }

    /// The access token for the next call, renewing it from the refresh token when this
    /// process has none yet. Throws "sign in again" when there is nothing to renew from.
    public func accessToken() async throws -> SecretToken {
        if let access { return access }
        loadFileOnce()
        guard refresh != nil else { throw TimepointError.signInAgain(reason: signedOutReason ?? Self.notSignedIn) }
        guard await refreshOnce(), let access else {
            throw TimepointError.signInAgain(reason: signedOutReason ?? Self.notSignedIn)
        }
        return access
    }

    /// After a 401: renew once (shared by concurrent callers); true when a retry makes sense.
    /// `rejected` is the token the refused call carried, when known: if another call has
    /// renewed it meanwhile, this one is simply retried with the new token, not rotated again.
    public func refreshAfterUnauthorized(rejected: SecretToken? = nil) async -> Bool {
        // A refresh already under way (another call's 401) is shared, not repeated.
        if let inFlight { return await inFlight.value }
        if let rejected, let access, rejected != access { return true }
        access = nil
        loadFileOnce()
        guard refresh != nil else {
            if signedOutReason == nil { signedOutReason = Self.notSignedIn }
            return false
        }
        return await refreshOnce()
    }

    /// Stores a freshly issued pair (sign-in or rotation): the file first, then memory.
    public func adopt(_ pair: TokenPair) {
        do {
            try file.save(pair.refresh)
            warning = nil
        } catch {
            // Still signed in for this run; the next start will have to sign in again.
            warning = "Your sign-in could not be saved (\(error)); it lasts until Reception exits."
        }
        refresh = pair.refresh
        access = pair.access
        signedOutReason = nil
        failedRefreshAt = nil
        loadedFile = true
    }

    /// True when a saved sign-in is kept although the server could not renew it (a 500, no
    /// answer): signing out then revokes a sign-in the person could not use.
    public var renewalFailed: Bool { refresh != nil && signedOutReason != nil }

    /// A failed renewal in a person's words: whose fault, then the server's own words.
    static func why(_ error: any Error) -> String {
        switch error {
        case BackendError.http(let status, let detail) where status >= 500:
            return "the server failed while renewing it (HTTP \(status)\(detail.isEmpty ? "" : ", in its words: “\(TerminalText.line(detail, limit: 160))”"))"
        case BackendError.http(let status, let detail):
            return "the server refused to renew it (HTTP \(status)\(detail.isEmpty ? "" : ", in its words: “\(TerminalText.line(detail, limit: 160))”"))"
        default:
            return "\(error)"
        }
    }

    /// The refresh token, for logout.
    public func currentRefreshToken() -> SecretToken? {
        loadFileOnce()
        return refresh
    }

    /// Forgets everything: memory and file.
    public func forget(reason: String) {
        access = nil
        refresh = nil
        loadedFile = true
        file.remove()
        signedOutReason = reason
    }

    private func loadFileOnce() {
        guard !loadedFile else { return }
        loadedFile = true
        switch file.load() {
        case .token(let token): refresh = token
        case .none: break
        case .otherServer(let origin):
            signedOutReason = "The saved sign-in belongs to another server (\(RedactedURL.display(origin))), so it is not sent here. \(Self.notSignedIn)"
        case .unusable(let why):
            signedOutReason = "The saved sign-in cannot be used: \(why). \(Self.notSignedIn)"
        }
    }

    private func refreshOnce() async -> Bool {
        if let inFlight { return await inFlight.value }
        if let failedRefreshAt, failedRefreshAt.duration(to: .now) < Self.refreshPause { return false }
        let task = Task { await self.performRefresh() }
        inFlight = task
        let renewed = await task.value
        inFlight = nil
        return renewed
    }

    private func performRefresh() async -> Bool {
        guard let token = refresh else { return false }
        do {
            let pair = try await renew(token)
            adopt(pair)
            return true
        } catch TimepointError.signInAgain(let reason) {
            // The server no longer knows this token (revoked, expired, reused): it is dead.
            access = nil
            refresh = nil
            file.remove()
            signedOutReason = reason
            return false
        } catch {
            // The server could not renew it now (500, unreachable): keep the saved token, so
            // nothing is lost, and say what happened.
            access = nil
            failedRefreshAt = .now
            signedOutReason = "Your saved sign-in could not be renewed: \(Self.why(error)). It is kept in case the server recovers; sign in again with /signin, or try again later."
            return false
        }
    }
}
