import Foundation
import ReceptionCore

/// Everything the TIMEPOINT reference server remembers: users and their credits, tokens,
/// scenes, scripted faults and the calls received. Deterministic: tokens and ids come from a
/// seeded generator, so two runs with the same calls give the same answers.
actor TimepointReferenceState {
    struct User {
        var id: String
        var email: String?
        var displayName: String?
        var active = true
        var balance: Int
        var earned: Int
        var spent = 0
        var ledger: [JSONValue] = []
    }

    struct AccessToken {
        var userID: String
        var issued: ContinuousClock.Instant
    }

    struct RefreshToken {
        var userID: String
        var revoked = false
    }

    struct Scene {
        var id: String
        var query: String
        var slug: String
        var status: String
        var year: Int
        var location: String
        var cast: [(name: String, role: String)]
        var ownerID: String?
        var visibility: String
        var error: String?
        var hasImage: Bool
        var pendingPolls: Int
        var sequenceID: String
        var created: String
    }

    let options: TimepointReferenceOptions
    var users: [String: User] = [:]
    var usersByEmail: [String: String] = [:]
    var accessTokens: [String: AccessToken] = [:]
    var refreshTokens: [String: RefreshToken] = [:]
    var scenes: [String: Scene] = [:]
    var sceneOrder: [String] = []
    var links: [String: (prior: String?, next: String?)] = [:]
    var faults: [TimepointFault] = []
    var calls: [TimepointReceivedCall] = []
    var chatSessions = 0
    private var random = SeededRandom(seed: 0x5EED_7104_E000_0001)

    init(options: TimepointReferenceOptions) { self.options = options }

    // MARK: deterministic ids and tokens

    private func next() -> UInt64 { random.next() }

    func hex(_ count: Int) -> String {
        var text = ""
        while text.count < count { text += String(next(), radix: 16).leftPadded(16) }
        return String(text.prefix(count))
    }

    func uuid() -> String {
        let h = hex(32)
        let c = Array(h)
        return "\(String(c[0..<8]))-\(String(c[8..<12]))-\(String(c[12..<16]))-\(String(c[16..<20]))-\(String(c[20..<32]))"
    }

    // MARK: calls and faults

    func record(_ call: TimepointReceivedCall) {
        calls.append(call)
        if calls.count > 1000 { calls.removeFirst(calls.count - 1000) }
    }

    func addFault(_ fault: TimepointFault) { faults.append(fault) }

    /// The scripted refusal for this call, if one is due (and counts it down).
    func takeFault(method: String, path: String) -> TimepointFault? {
        guard let index = faults.firstIndex(where: { ($0.method == nil || $0.method == method) && $0.path == path && $0.times > 0 }) else { return nil }
        faults[index].times -= 1
        let fault = faults[index]
        if faults[index].times <= 0 { faults.remove(at: index) }
        return fault
    }

    // MARK: users and tokens

    func user(email: String, displayName: String?) -> (User, created: Bool) {
        if let id = usersByEmail[email.lowercased()], let user = users[id] { return (user, false) }
        var user = User(id: uuid(), email: email, displayName: displayName, balance: options.signupCredits, earned: options.signupCredits)
        user.ledger.append(ledgerRow(amount: options.signupCredits, after: options.signupCredits, type: "signup_bonus", "Welcome bonus"))
        users[user.id] = user
        usersByEmail[email.lowercased()] = user.id
        return (user, true)
    }

    func issuePair(for userID: String) -> JSONValue {
        let access = "tpa_" + hex(40)
        let refresh = "tpr_" + hex(60)
        accessTokens[access] = AccessToken(userID: userID, issued: .now)
        refreshTokens[refresh] = RefreshToken(userID: userID)
        return .object(["access_token": .string(access), "refresh_token": .string(refresh), "token_type": .string("bearer"),
                        "expires_in": .number(Double(options.accessTokenLifetime.components.seconds))])
    }

    enum Authenticated { case user(User), refused(String) }

    /// The user behind `Authorization: Bearer ...`, or why not (always 401).
    func authenticate(_ header: String?) -> Authenticated {
        guard let header, header.hasPrefix("Bearer "), !header.dropFirst(7).isEmpty else { return .refused("Missing or invalid Authorization header") }
        guard let token = accessTokens[String(header.dropFirst(7))] else { return .refused("Invalid access token: Signature verification failed") }
        guard token.issued.duration(to: .now) < options.accessTokenLifetime else { return .refused("Access token has expired") }
        guard let user = users[token.userID], user.active else { return .refused("User not found or deactivated") }
        return .user(user)
    }

    /// Every access token issued so far stops working (as if 15 minutes had passed).
    func expireAccessTokens() {
        for key in accessTokens.keys { accessTokens[key]?.issued = .now - options.accessTokenLifetime - .seconds(1) }
    }

    enum Refreshed { case pair(JSONValue), refused(Int, String) }

    func refresh(_ token: String) -> Refreshed {
        guard let record = refreshTokens[token] else { return .refused(401, "Refresh token not found") }
        if record.revoked {
            // Theft detection: a rotated token came back, so every token of that user goes.
            revokeAll(of: record.userID)
            return .refused(401, "Refresh token has been revoked (possible token reuse)")
        }
        guard users[record.userID]?.active == true else { return .refused(401, "User not found or deactivated") }
        if options.refreshAnswers500 { return .refused(500, "No row was found when one was required") }
        refreshTokens[token]?.revoked = true
        return .pair(issuePair(for: record.userID))
    }

    func revokeAll(of userID: String) {
        for (key, value) in refreshTokens where value.userID == userID { refreshTokens[key]?.revoked = true }
        for (key, value) in accessTokens where value.userID == userID { accessTokens.removeValue(forKey: key) }
    }

    func logout(_ token: String) { refreshTokens[token]?.revoked = true }

    func deactivate(_ userID: String) {
        users[userID]?.active = false
        revokeAll(of: userID)
    }

    /// Refresh tokens still valid (tests check that a reuse revoked them all).
    func liveRefreshTokens(of email: String) -> Int {
        guard let id = usersByEmail[email.lowercased()] else { return 0 }
        return refreshTokens.values.filter { $0.userID == id && !$0.revoked }.count
    }

    // MARK: credits

    func ledgerRow(amount: Int, after: Int, type: String, _ description: String) -> JSONValue {
        .object(["amount": .number(Double(amount)), "balance_after": .number(Double(after)), "type": .string(type),
                 "description": .string(description), "created_at": .string(Self.timestamp(ledgerCount))])
    }

    private var ledgerCount = 0

    static func timestamp(_ n: Int) -> String {
        "2026-02-18T12:\(String(format: "%02d", (n / 60) % 60)):\(String(format: "%02d", n % 60))"
    }

    func canAfford(_ userID: String, _ cost: Int) -> Bool { (users[userID]?.balance ?? 0) >= cost }

    func spend(_ userID: String, _ cost: Int, type: String, _ description: String) {
        guard var user = users[userID] else { return }
        ledgerCount += 1
        user.balance -= cost
        user.spent += cost
        user.ledger.insert(ledgerRow(amount: -cost, after: user.balance, type: type, description), at: 0)
        users[userID] = user
    }

    func grant(_ userID: String, _ amount: Int) -> Int? {
        guard var user = users[userID] else { return nil }
        ledgerCount += 1
        user.balance += amount
        user.earned += amount
        user.ledger.insert(ledgerRow(amount: amount, after: user.balance, type: "admin_grant", "Admin grant"), at: 0)
        users[userID] = user
        return user.balance
    }

    func setBalance(email: String, _ balance: Int) {
        guard let id = usersByEmail[email.lowercased()] else { return }
        users[id]?.balance = balance
    }

    func currentUser(_ id: String) -> User? { users[id] }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
