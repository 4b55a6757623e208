import AsyncHTTPClient
import Foundation

/// A server's error page may quote the request back, credentials included (a proxy's
/// "bad credentials: auth=Bearer sk-…"). Reception prints error bodies, so every credential
/// the request carried is masked in them before anyone reads them.
public enum CredentialEcho {
    /// Header names whose values are credentials (matched in lower case, by substring for the last group).
    static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]
    static let credentialWords = ["key", "token", "secret", "auth", "password"]

    /// The credentials `request` carries: each credential header's value, and its last word
    /// ("Bearer sk-…" → "sk-…").
    public static func secrets(of request: HTTPClientRequest) -> [String] {
        var secrets: [String] = []
        for header in request.headers {
            let name = header.name.lowercased()
            guard credentialHeaders.contains(name) || credentialWords.contains(where: name.contains) else { continue }
            secrets.append(header.value)
            if let last = header.value.split(separator: " ").last, last.count < header.value.count { secrets.append(String(last)) }
        }
        // Too short to be a secret, and masking it would garble the text.
        return secrets.filter { $0.count >= 6 }.sorted { $0.count > $1.count }
    }

    /// `body` with every one of `secrets` replaced by "•••".
    public static func mask(_ body: Data, secrets: [String]) -> Data {
        guard !secrets.isEmpty, !body.isEmpty else { return body }
        var masked = body
        let replacement = Data("•••".utf8)
        for secret in secrets {
            let needle = Data(secret.utf8)
            var searchFrom = masked.startIndex
            while let found = masked.range(of: needle, in: searchFrom..<masked.endIndex) {
                masked.replaceSubrange(found, with: replacement)
                searchFrom = found.lowerBound + replacement.count
            }
        }
        return masked
    }

    /// An error body as it may be shown: with the request's credentials masked.
    public static func masked(_ body: Data, of request: HTTPClientRequest) -> Data {
        mask(body, secrets: secrets(of: request))
    }
}
