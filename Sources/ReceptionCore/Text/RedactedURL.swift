import Foundation

/// URLs as Reception shows them: a password in the URL (`https://user:secret@host`) is
/// replaced by `•••` wherever the URL is printed, listed or put in an error message.
///
/// A password may hold characters a URL does not allow unescaped (`/`, `?`, `#`), and a
/// mistyped URL may lack its `//`: the password is masked then too. Masking too much in
/// a malformed URL is the safe side; an `@` in the path of a URL whose authority is a host
/// and a port (`http://host:8765/a@b`) is no credential.
public enum RedactedURL {
    public static func display(_ url: String) -> String {
        guard let userInfo = userInfoRange(url) else { return url }
        let info = url[userInfo]
        guard let colon = info.firstIndex(of: ":") else { return url.replacingCharacters(in: userInfo, with: "•••") }
        return url.replacingCharacters(in: url.index(after: colon)..<userInfo.upperBound, with: "•••")
    }

    /// True when `url` carries a user name or password (what `display` masks).
    public static func carriesCredentials(_ url: String) -> Bool { userInfoRange(url) != nil }

    /// Where the user name and password stand (without the `@`), if the text carries them.
    static func userInfoRange(_ url: String) -> Range<String.Index>? {
        if let scheme = url.range(of: "://") {
            let rest = url[scheme.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") { return rest.startIndex..<at }
            // "user:pa/ss@host": what stands where the port would be is no port, and an @
            // follows: the password runs to that @.
            let authority = rest[..<authorityEnd]
            guard let colon = authority.lastIndex(of: ":"), let at = rest[authorityEnd...].firstIndex(of: "@") else { return nil }
            let port = authority[authority.index(after: colon)...]
            guard port.isEmpty || !port.allSatisfy(\.isNumber) else { return nil }
            return rest.startIndex..<at
        }
        // No "://" ("http:/user:secret@host", "user:secret@host"): the credential is what
        // stands between the last "/" (or the start) and the first "@".
        guard let at = url.firstIndex(of: "@") else { return nil }
        let start = url[..<at].lastIndex(of: "/").map { url.index(after: $0) } ?? url.startIndex
        guard url[start..<at].contains(":") else { return nil }
        return start..<at
    }
}
