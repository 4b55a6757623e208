import Foundation
import ReceptionCore

extension TimepointCommands {
    func signIn(_ arguments: [String]) async throws -> String {
        switch arguments.first {
        case "dev":
            guard arguments.count >= 2, arguments[1].contains("@") else { throw CommandUsage("Usage: /signin dev EMAIL [DISPLAY NAME]") }
            let name = arguments.count > 2 ? arguments.dropFirst(2).joined(separator: " ") : nil
            let user = try await client.signInDev(email: arguments[1], displayName: name)
            return await signedIn(user)
        case "apple":
            guard arguments.count == 2 else { throw CommandUsage("Usage: /signin apple FILE (a file holding the identity token; never type the token itself)") }
            let path = UserPath.expand(arguments[1])
            let text = try PlainFile.readText(path, limit: 64 << 10).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                return "\(path) does not hold an identity token (one line of printable characters)."
            }
            let user = try await client.signInApple(identityToken: SecretToken(text))
            return await signedIn(user)
        default:
            throw CommandUsage("Usage: /signin dev EMAIL [DISPLAY NAME] | /signin apple FILE")
        }
    }

    private func signedIn(_ user: TimepointUser) async -> String {
        var text = "Signed in as **\(user.email ?? user.displayName ?? user.id)**."
        if let balance = try? await client.balance() { text += " You have \(TimepointError.credits(balance.balance))." }
        if let warning = await client.session.warning { text += " " + warning }
        return text
    }

    func account(_ arguments: [String]) async throws -> String {
        guard arguments.first == "delete" else {
            let user = try await client.me()
            return "Signed in as **\(user.email ?? user.displayName ?? user.id)** (account \(user.id)\(user.createdAt.map { ", since \($0)" } ?? ""))."
        }
        guard arguments.count >= 2 else {
            let (user, phrase) = try await client.deletionPhrase()
            return """
            Deleting deactivates the account \(user.email ?? user.id) on the server, signs out every session and \
            forgets the sign-in here; the server keeps its records (ledger, scenes). It cannot be undone from here.
            To go ahead, type: /account delete \(phrase)
            """
        }
        let detail = try await client.deleteAccount(confirmation: arguments.dropFirst().joined(separator: " "))
        return "\(detail). The sign-in is forgotten here."
    }
}
