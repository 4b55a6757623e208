import Foundation

/// URLs as Reception shows them: a password in the URL (`https://user:secret@host`) is
/// replaced by `•••` wherever the URL is printed, listed or put in an error message.
public enum RedactedURL {
    public static func display(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        let userInfo = rest[..<at]
        let user = userInfo.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        let masked = userInfo.contains(":") ? "\(user):•••" : "•••"
        return String(url[..<scheme.upperBound]) + masked + String(rest[at...])
    }
}
