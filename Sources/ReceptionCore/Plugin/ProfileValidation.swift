import Foundation
/// A problem in the configuration, located in its file.
public struct ConfigurationIssue: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, _ message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `backends.json:12:5: ...`, the form compilers and editors understand. The message quotes
    /// the file (a profile's name, a value), which is foreign text: cleaned of escape sequences.
    public var description: String {
        var location = file
        if let line { location += ":\(line)" }
        if let line, line > 0, let column { location += ":\(column)" }
        return TerminalText.clean("\(location): \(message)", singleLine: true)
    }
}

/// Every issue found in one configuration file, so a person fixes them all in one go.
public struct ConfigurationErrors: Error, Sendable, Hashable, CustomStringConvertible {
    public var issues: [ConfigurationIssue]
    public init(_ issues: [ConfigurationIssue]) { self.issues = issues }
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}

/// A profile as the file wrote it, before its plugin checked it: each value with where it stands.
public struct RawProfile: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var key: String
        public var value: JSONValue
        public var line: Int?
        public var column: Int?

        public init(key: String, value: JSONValue, line: Int? = nil, column: Int? = nil) {
            self.key = key
            self.value = value
            self.line = line
            self.column = column
        }
    }

    public var name: String
    public var kind: String
    /// Everything but `name` and `kind`.
    public var entries: [Entry]
    public var file: String
    public var line: Int?

    public init(name: String, kind: String, entries: [Entry], file: String, line: Int? = nil) {
        self.name = name
        self.kind = kind
        self.entries = entries
        self.file = file
        self.line = line
    }
}

extension BackendPlugin {
    /// Checks a profile against this plugin's options: unknown keys (with a did-you-mean),
    /// wrong types, values out of range and missing required options are located issues.
    public func validate(_ raw: RawProfile) -> Result<BackendProfile, ConfigurationErrors> {
        var issues: [ConfigurationIssue] = []
        var values: [String: ProfileValue] = [:]
        let knownKeys = options.flatMap(\.keys)
        for entry in raw.entries {
            func issue(_ message: String) {
                issues.append(ConfigurationIssue(file: raw.file, line: entry.line, column: entry.column,
                                                  "profile \"\(raw.name)\": \(message)"))
            }
            guard let option = options.first(where: { $0.keys.contains(entry.key) }) else {
                let hint = closest(entry.key, among: knownKeys).map { " Did you mean \"\($0)\"?" } ?? ""
                let secretHint = options.contains { $0.type == .secret && $0.name == entry.key }
                    ? " A secret is never written in the file: use \(entry.key)_env (an environment variable) or \(entry.key)_file (a 0600 file)." : ""
                issue("unknown option \"\(entry.key)\" for kind \(kind).\(secretHint.isEmpty ? hint : secretHint) Options: \(knownKeys.joined(separator: ", ")).")
                continue
            }
            if values[option.name] != nil {
                issue("\(option.name) is given twice (\(option.keys.joined(separator: " and ")) cannot both be set).")
                continue
            }
            switch option.typed(entry) {
            case .success(let value): values[option.name] = value
            case .failure(let mismatch): issue(mismatch.message)
            }
        }
        // A required option that is present but wrong was reported above; say "required" only when it is absent.
        for option in options where option.required && !raw.entries.contains(where: { option.keys.contains($0.key) }) {
            issues.append(ConfigurationIssue(file: raw.file, line: raw.line,
                                             "profile \"\(raw.name)\": \(option.keys.joined(separator: " or ")) is required (\(option.help))."))
        }
        guard issues.isEmpty else { return .failure(ConfigurationErrors(issues)) }
        let origin = raw.line.map { "\(raw.file):\($0)" } ?? raw.file
        return .success(BackendProfile(name: raw.name, kind: kind, values: values, origin: origin))
    }
}

extension BackendPlugin {
    /// What is wrong with a profile already made (built in, or made in code), by the same
    /// rules as `validate`: options this kind does not have, values of the wrong type or out
    /// of range. Secrets are named by their source only and not checked here.
    public func problems(in profile: BackendProfile) -> [String] {
        profile.values.keys.sorted().compactMap { key in
            guard let option = options.first(where: { $0.name == key }) else {
                return "unknown option \"\(key)\" for kind \(kind)."
            }
            let value: JSONValue
            switch profile.values[key]! {
            case .string(let text): value = .string(text)
            case .integer(let number): value = .number(Double(number))
            case .number(let number): value = .number(number)
            case .boolean(let flag): value = .bool(flag)
            case .secretFromEnvironment, .secretFromFile: return nil
            }
            guard case .failure(let mismatch) = option.typed(RawProfile.Entry(key: key, value: value)) else { return nil }
            // A built-in profile reads its values from environment variables, as text: the
            // text is what the person typed, so it is quoted rather than called "a string".
            if case .string(let text) = value, option.type != .string, option.type != .url, !Self.isChoice(option.type) {
                return "\(key) must be \(option.expectation); got \"\(text.prefix(40))\"."
            }
            return mismatch.message
        }
    }
}

extension BackendPlugin {
    static func isChoice(_ type: PluginOption.ValueType) -> Bool {
        if case .choice = type { true } else { false }
    }
}

extension PluginOption {
    /// Whether `text` is a URL an option of type `.url` takes: http, https, ws or wss, a host,
    /// no whitespace.
    public static func isURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        return ["http://", "https://", "ws://", "wss://"].contains(where: lower.hasPrefix) && text.count > 8
            && !text.contains(where: { $0.isWhitespace }) && portProblem(text) == nil
    }

    /// Why `text` is no URL this option takes, in words that never show a password the URL
    /// carries; nil when it is one.
    public func urlProblem(_ key: String, _ text: String) -> String? {
        guard !Self.isURL(text) else { return nil }
        let shown = RedactedURL.display(text)
        if let port = Self.portProblem(text) { return "\(key) \"\(shown)\": \(port)." }
        return "\(key) must be \(expectation); got \"\(shown)\"."
    }

    /// What is wrong with the URL's port, if it names one outside 1–65535 ("…:99999"): the
    /// HTTP client stops the whole program on such a port, so it must never get that far.
    public static func portProblem(_ text: String) -> String? {
        // Past any user name and password, which may hold "/", "?" or "#" (RedactedURL).
        var text = text
        if let userInfo = RedactedURL.userInfoRange(text) {
            text = String(text[..<userInfo.lowerBound]) + String(text[text.index(after: userInfo.upperBound)...])
        }
        guard let rest = text.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(2).first,
              let authority = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first?
                .split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first else { return nil }
        let hostPort = authority.split(separator: "@").last ?? authority
        // "[::1]:8080": the port follows the bracket; "host:8080" the last colon.
        let afterHost = hostPort.hasPrefix("[") ? hostPort.split(separator: "]", maxSplits: 1).dropFirst().first ?? "" : hostPort
        guard let colon = afterHost.lastIndex(of: ":") else { return nil }
        let port = afterHost[afterHost.index(after: colon)...]
        if port.isEmpty { return nil }
        guard port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber), let number = Int(port), (1...65535).contains(number) else {
            // Quoted only when it is digits: other text there may be a mistyped password.
            let shown = port.allSatisfy(\.isASCII) && port.allSatisfy(\.isNumber) ? " \(port.prefix(12))" : ""
            return "its port\(shown) is not a port number (1 to 65535)"
        }
        return nil
    }

    /// A name a shell can export: a letter or `_`, then letters, digits or `_`.
    static func isVariableName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first == "_" || (first.isASCII && CharacterSet.letters.contains(first)) else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && CharacterSet.alphanumerics.contains($0)) }
    }

    fileprivate func typed(_ entry: RawProfile.Entry) -> Result<ProfileValue, Mismatch> {
        let wrong = "\(entry.key) must be \(expectation)"
        switch (type, entry.value) {
        case (.string, .string(let text)):
            return .success(.string(text))
        case (.url, .string(let text)):
            if let problem = urlProblem(entry.key, text) { return .failure(Mismatch(problem)) }
            return .success(.string(text))
        case (.integer(let range), .number(let number)):
            guard number.rounded() == number, let value = Int(exactly: number) else { return .failure(Mismatch("\(wrong); got \(number).")) }
            guard range.contains(value) else { return .failure(Mismatch("\(wrong); got \(value).")) }
            return .success(.integer(value))
        case (.number(let range), .number(let number)):
            guard range.contains(number) else { return .failure(Mismatch("\(wrong); got \(number).")) }
            return .success(.number(number))
        case (.boolean, .bool(let flag)):
            return .success(.boolean(flag))
        case (.choice(let allowed), .string(let text)):
            guard allowed.contains(text) else {
                let hint = closest(text, among: allowed).map { " Did you mean \"\($0)\"?" } ?? ""
                return .failure(Mismatch("\(wrong); got \"\(text)\".\(hint)"))
            }
            return .success(.string(text))
        case (.secret, .string(let text)):
            guard !text.isEmpty else { return .failure(Mismatch("\(entry.key) is empty.")) }
            if entry.key.hasSuffix("_env"), !Self.isVariableName(text) {
                // Never quoted: what stands there is often the key itself, pasted in the wrong place.
                return .failure(Mismatch("\(entry.key) must name an environment variable (letters, digits and _, e.g. MY_SERVICE_KEY); what is written there is not a variable name. If it is the key itself, put it in that variable instead: keys never go in this file."))
            }
            return .success(entry.key.hasSuffix("_env") ? .secretFromEnvironment(text) : .secretFromFile(text))
        default:
            return .failure(Mismatch("\(wrong); got \(entry.value.kindName)."))
        }
    }
}

/// Why a value does not fit its option.
struct Mismatch: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

extension JSONValue {
    /// "a string", "a number", ..., for messages about the wrong type.
    var kindName: String {
        switch self {
        case .string: "a string"
        case .number: "a number"
        case .bool: "true/false"
        case .null: "null"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// The candidate within a small edit distance, for did-you-mean.
public func closest(_ word: String, among candidates: [String]) -> String? {
    let lowered = word.lowercased()
    let best = candidates.map { ($0, editDistance($0.lowercased(), lowered)) }.min { $0.1 < $1.1 }
    guard let best, best.1 <= max(2, word.count / 3) else { return nil }
    return best.0
}

/// Levenshtein distance.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
