import Foundation

/// A named, validated backend configuration: a profile from the configuration file, or a
/// plugin's built-in one. Values are typed as the plugin declared them; secrets are held as
/// where to find them, never as the secret itself, so a profile can be printed.
public struct BackendProfile: Sendable, Hashable {
    public var name: String
    public var kind: String
    public var values: [String: ProfileValue]
    /// Where it was defined, e.g. `~/.config/reception/backends.json:12`, for messages.
    public var origin: String?
    /// What it is, for listings, when its kind's summary says too little ("Ollama's usual port
    /// on this machine" for a profile of kind openai).
    public var about: String?

    public init(name: String, kind: String, values: [String: ProfileValue] = [:], origin: String? = nil, about: String? = nil) {
        self.name = name
        self.kind = kind
        self.values = values
        self.origin = origin
        self.about = about
    }

    public func string(_ option: String) -> String? {
        if case .string(let value)? = values[option] { return value }
        return nil
    }

    public func integer(_ option: String) -> Int? {
        if case .integer(let value)? = values[option] { return value }
        return nil
    }

    public func number(_ option: String) -> Double? {
        switch values[option] {
        case .number(let value)?: value
        case .integer(let value)?: Double(value)
        default: nil
        }
    }

    public func boolean(_ option: String) -> Bool? {
        if case .boolean(let value)? = values[option] { return value }
        return nil
    }

    /// Reads a secret from its environment variable or its 0600 file; nil when the profile
    /// names no source. The errors name the source, never the value; a secret holding a
    /// character that cannot travel in a header (a control character, a space, non-ASCII) is
    /// refused, so it never ends up quoted in a transport error.
    public func secret(_ option: String, environment: PluginEnvironment) throws -> String? {
        guard let secret = try rawSecret(option, environment: environment) else { return nil }
        guard secret.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
            throw ProfileError(profile: self, "\(option) (\(values[option]!.display)) holds a character that cannot be sent in a header (a control character, a space or non-ASCII); it is not shown here. Check how it was written.")
        }
        return secret
    }

    private func rawSecret(_ option: String, environment: PluginEnvironment) throws -> String? {
        switch values[option] {
        case .secretFromEnvironment(let variable)?:
            guard let value = environment.variables[variable] else {
                throw ProfileError(profile: self, "the environment variable \(variable) that should hold \(option) is not set.")
            }
            let secret = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else { throw ProfileError(profile: self, "\(option) from $\(variable) is empty.") }
            return secret
        case .secretFromFile(let rawPath)?:
            let path = Self.expandingTilde(rawPath, environment: environment)
            // The file a link points to: its type and mode are what count, looked at on the
            // opened file itself, so that what was checked is what is read.
            let text: String
            do {
                text = try PlainFile.readText(path, limit: 64 << 10) { mode in
                    guard mode & 0o077 == 0 else {
                        throw ProfileError(profile: self, "refusing the \(option) file \(path) because its mode is \(String(format: "%04o", Int(mode & 0o7777))); other users could read it. Run: chmod 600 \(path)")
                    }
                }
            } catch let problem as PlainFile.Problem {
                // What the path is first: "chmod 600" was the advice for a directory, and reading
                // one gave Foundation's "NSCocoaErrorDomain Code=256".
                switch problem.kind {
                case .missing: throw ProfileError(profile: self, "the \(option) file \(path) does not exist.")
                case .directory: throw ProfileError(profile: self, "the \(option) file \(path) is a directory; it must be a file holding only the secret.")
                case .notRegular: throw ProfileError(profile: self, "the \(option) file \(path) is not a regular file; it must be a file holding only the secret.")
                default: throw ProfileError(profile: self, "the \(option) file \(path) \(problem.reason).")
                }
            }
            let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !secret.isEmpty else { throw ProfileError(profile: self, "the \(option) file \(path) is empty.") }
            return secret
        default:
            return nil
        }
    }

    /// One line for listings: every value, secrets only as where they come from.
    public var summary: String {
        values.keys.sorted().map { key in "\(key) \(values[key]!.display)" }.joined(separator: ", ")
    }

    /// The summary with each secret looked up now, never shown: "api_key from $KEY (set)", or
    /// "(not usable)" and the reason among `problems`. A listing that only named the variable
    /// left a person to find out at start that it was not set in this shell.
    public func summary(checkingSecretsIn environment: PluginEnvironment) -> (line: String, problems: [String]) {
        var problems: [String] = []
        let line = values.keys.sorted().map { key in
            let value = values[key]!
            switch value {
            case .secretFromEnvironment, .secretFromFile:
                do {
                    _ = try secret(key, environment: environment)
                    return "\(key) \(value.display) (set)"
                } catch {
                    problems.append((error as? ProfileError)?.message ?? String(describing: error))
                    return "\(key) \(value.display) (not usable)"
                }
            default:
                return "\(key) \(value.display)"
            }
        }.joined(separator: ", ")
        return (line, problems)
    }

    static func expandingTilde(_ path: String, environment: PluginEnvironment) -> String {
        UserPath.expand(path, environment: environment.variables)
    }
}

/// A profile value, typed by its option's declaration.
public enum ProfileValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case number(Double)
    case boolean(Bool)
    case secretFromEnvironment(String)
    case secretFromFile(String)

    /// How listings show it: a secret only by its source.
    public var display: String {
        switch self {
        case .string(let value): RedactedURL.display(value)
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .boolean(let value): value ? "true" : "false"
        case .secretFromEnvironment(let variable): "from $\(variable)"
        case .secretFromFile(let path): "from \(path)"
        }
    }
}

/// A problem with one profile, said with where the profile came from.
public struct ProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    /// What is wrong, without the profile's name and origin (for a line under the profile's own).
    public var message: String

    public init(profile: BackendProfile, _ message: String) {
        self.message = message
        description = "Profile \(profile.name)\(profile.origin.map { " (\($0))" } ?? ""): \(message)"
    }
}
