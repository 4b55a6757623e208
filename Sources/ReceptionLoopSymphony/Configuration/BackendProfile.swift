import Foundation

/// A named backend in `$XDG_CONFIG_HOME/reception/backends.json` (default `~/.config/reception/backends.json`):
///
/// ```json
/// {
///   "profiles": [
///     { "name": "prod", "kind": "loop-symphony", "url": "https://loop.example.com",
///       "api_key_env": "LOOP_SYMPHONY_API_KEY", "user_id": "matt", "trust_level": 0 },
///     { "name": "dev", "kind": "loop-symphony", "url": "http://127.0.0.1:8765",
///       "api_key_file": "~/.config/reception/dev.key" }
///   ]
/// }
/// ```
///
/// The key comes from the environment variable named by `api_key_env`, or from the file at
/// `api_key_file`, which must be mode 0600 (anything readable by others is refused). The key
/// itself is never stored in the profile and never printed.
public struct BackendProfile: Codable, Sendable, Hashable {
    public var name: String
    public var kind: String
    public var url: String
    public var apiKeyEnv: String?
    public var apiKeyFile: String?
    public var userID: String?
    public var trustLevel: Int?

    enum CodingKeys: String, CodingKey {
        case name, kind, url, apiKeyEnv = "api_key_env", apiKeyFile = "api_key_file", userID = "user_id", trustLevel = "trust_level"
    }

    public init(name: String, kind: String = "loop-symphony", url: String, apiKeyEnv: String? = nil, apiKeyFile: String? = nil,
                userID: String? = nil, trustLevel: Int? = nil) {
        self.name = name; self.kind = kind; self.url = url; self.apiKeyEnv = apiKeyEnv; self.apiKeyFile = apiKeyFile
        self.userID = userID; self.trustLevel = trustLevel
    }

    /// One line for `/backend` listings: never the key, only where it comes from.
    public var summary: String {
        let key = apiKeyEnv.map { "key from $\($0)" } ?? apiKeyFile.map { "key from \($0)" } ?? "no key"
        return "\(name) (\(kind)) \(url), \(key), user \(userID ?? "none"), trust level \(trustLevel ?? 0)"
    }
}

public enum BackendProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case unknownProfile(name: String, known: [String])
    case missingKeyVariable(profile: String, variable: String)
    case keyFileMissing(profile: String, path: String)
    case keyFileTooOpen(profile: String, path: String, mode: String)
    case emptyKey(profile: String, source: String)
    case unsupportedKind(profile: String, kind: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "Cannot read backend profiles at \(path): \(reason)"
        case .unknownProfile(let name, let known):
            "No backend profile named \"\(name)\"" + (known.isEmpty ? " (no profiles are configured)." : ". Known: \(known.joined(separator: ", ")).")
        case .missingKeyVariable(let profile, let variable):
            "Profile \(profile): the environment variable \(variable) that should hold the API key is not set."
        case .keyFileMissing(let profile, let path): "Profile \(profile): the API key file \(path) does not exist."
        case .keyFileTooOpen(let profile, let path, let mode):
            "Profile \(profile): refusing the API key file \(path) because its mode is \(mode); other users could read it. Run: chmod 600 \(path)"
        case .emptyKey(let profile, let source): "Profile \(profile): the API key from \(source) is empty."
        case .unsupportedKind(let profile, let kind): "Profile \(profile): kind \"\(kind)\" is not a Loop Symphony backend."
        }
    }
}

/// Reads `backends.json` from the XDG config directory.
public struct BackendProfileStore: Sendable {
    public var path: String
    public var environment: [String: String]

    public init(path: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        self.path = path ?? Self.defaultPath(environment: environment)
    }

    public static func defaultPath(environment: [String: String]) -> String {
        let base: String
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            base = xdg
        } else {
            base = (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        }
        return base + "/reception/backends.json"
    }

    struct File: Codable { var profiles: [BackendProfile] }

    /// All profiles; an absent file is an empty list.
    public func load() throws -> [BackendProfile] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(File.self, from: data).profiles
        } catch {
            throw BackendProfileError.unreadable(path: path, reason: String(describing: error))
        }
    }

    public func profile(named name: String) throws -> BackendProfile {
        let profiles = try load()
        guard let profile = profiles.first(where: { $0.name == name }) else {
            throw BackendProfileError.unknownProfile(name: name, known: profiles.map(\.name))
        }
        return profile
    }

    /// Writes the profiles (mode 0600: the file names key sources, and people put comments-by-name in it).
    public func save(_ profiles: [BackendProfile]) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(File(profiles: profiles)).write(to: url, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// The API key of a profile, from its environment variable or its 0600 key file; nil when
    /// the profile names no key source.
    public func apiKey(for profile: BackendProfile) throws -> String? {
        if let variable = profile.apiKeyEnv {
            guard let value = environment[variable] else {
                throw BackendProfileError.missingKeyVariable(profile: profile.name, variable: variable)
            }
            let key = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !key.isEmpty else { throw BackendProfileError.emptyKey(profile: profile.name, source: "$\(variable)") }
            return key
        }
        if let rawPath = profile.apiKeyFile {
            let path = expandTilde(rawPath)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
                throw BackendProfileError.keyFileMissing(profile: profile.name, path: path)
            }
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0
            guard mode & 0o077 == 0 else {
                throw BackendProfileError.keyFileTooOpen(profile: profile.name, path: path, mode: String(format: "%04o", mode))
            }
            let key = (try String(contentsOfFile: path, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !key.isEmpty else { throw BackendProfileError.emptyKey(profile: profile.name, source: path) }
            return key
        }
        return nil
    }

    /// A ready configuration for a Loop Symphony profile.
    public func configuration(for profile: BackendProfile) throws -> LoopSymphonyConfiguration {
        guard profile.kind == "loop-symphony" else {
            throw BackendProfileError.unsupportedKind(profile: profile.name, kind: profile.kind)
        }
        return LoopSymphonyConfiguration(baseURL: profile.url, apiKey: try apiKey(for: profile), userID: profile.userID,
                                         defaultTrustLevel: profile.trustLevel ?? 0)
    }

    func expandTilde(_ path: String) -> String {
        guard path.hasPrefix("~/") else { return path }
        return (environment["HOME"] ?? NSHomeDirectory()) + String(path.dropFirst())
    }
}
