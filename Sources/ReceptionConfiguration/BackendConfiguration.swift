import Foundation
import ReceptionCore
import Yams

/// The backend profiles of `$XDG_CONFIG_HOME/reception/backends.json` (default
/// `~/.config/reception/backends.json`), one list for every kind:
///
/// ```json
/// {
///   "profiles": [
///     { "name": "prod", "kind": "loop-symphony", "url": "https://loop.example.com",
///       "api_key_env": "LOOP_SYMPHONY_API_KEY", "user_id": "matt", "trust_level": 0 },
///     { "name": "notes", "kind": "local", "knowledge": "~/notes" }
///   ]
/// }
/// ```
///
/// Each profile is checked against what its kind's plugin declares. Every problem (a
/// syntax error, an unknown kind or key, a wrong type, a value out of range, a duplicate
/// name) is reported with its line and column, all at once, and none is skipped silently.
/// The file is read as YAML, of which JSON is a subset, so the locations come from the
/// parser that read it.
public struct BackendConfiguration: Sendable {
    public var path: String
    public var plugins: [BackendPlugin]

    public init(path: String, plugins: [BackendPlugin]) {
        self.path = path
        self.plugins = plugins
    }

    /// The standard file for this environment.
    public static func standardPath(_ environment: PluginEnvironment) -> String {
        environment.configDirectory + "/backends.json"
    }

    /// The validated profiles; an absent file is an empty list.
    public func load() throws -> [BackendProfile] {
        guard let text = try text() else { return [] }
        return try parse(text)
    }

    /// The file's text; nil when there is no file.
    private func text() throws -> String? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        do {
            // A configuration is small; a FIFO, a device or a huge file is refused unread.
            return try PlainFile.readText(path, limit: 4 << 20)
        } catch let problem as PlainFile.Problem {
            throw ConfigurationErrors([ConfigurationIssue(file: path, problem.reason + ".")])
        }
    }

    /// What of the file can be used when part of it is wrong: the profiles that are right, the
    /// problems, and the names of the profiles they are in. One mistake in a profile nobody
    /// asked for (a typo in a kind) used to stop the REPL even on `--backend local`.
    public struct Usable: Sendable {
        public var profiles: [BackendProfile]
        /// Nil when the file is right.
        public var problems: ConfigurationErrors?
        /// Profiles left out for their problems.
        public var brokenNames: Set<String>
        /// True when the file could not be read as profiles at all (not JSON, no "profiles" list).
        public var isUnreadable: Bool
    }

    /// The file's right profiles and its problems, located; `load()` is the same, refusing any problem.
    public func loadUsable() -> Usable {
        func unreadable(_ errors: ConfigurationErrors) -> Usable { Usable(profiles: [], problems: errors, brokenNames: [], isUnreadable: true) }
        do {
            // Read and parsed once: the right profiles and every problem together.
            guard let text = try text() else { return Usable(profiles: [], problems: nil, brokenNames: [], isUnreadable: false) }
            let collected = try collect(text)
            return Usable(profiles: collected.profiles, problems: collected.issues.isEmpty ? nil : ConfigurationErrors(collected.issues),
                          brokenNames: collected.brokenNames, isUnreadable: false)
        } catch let errors as ConfigurationErrors {
            return unreadable(errors)
        } catch {
            return unreadable(ConfigurationErrors([ConfigurationIssue(file: path, "\(error)")]))
        }
    }

    /// Parses and validates configuration text (the file's name is only used in messages).
    public func parse(_ text: String) throws -> [BackendProfile] {
        let collected = try collect(text)
        guard collected.issues.isEmpty else { throw ConfigurationErrors(collected.issues) }
        return collected.profiles
    }

    /// The right profiles and every problem, with the names of the profiles the problems are
    /// in; throws only when the text holds no list of profiles to read.
    private func collect(_ text: String) throws -> (profiles: [BackendProfile], issues: [ConfigurationIssue], brokenNames: Set<String>) {
        var brokenNames: Set<String> = []
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ConfigurationErrors([Self.issue(for: error, file: path)])
        }
        guard let root else { return ([], [], []) }
        guard case .mapping(let top) = root else {
            throw ConfigurationErrors([issue(at: root, "the file must hold an object with a \"profiles\" list.")])
        }
        var issues: [ConfigurationIssue] = []
        var profilesNode: Node?
        for (key, value) in top {
            let name = key.string ?? ""
            if name == "profiles" {
                profilesNode = value
            } else {
                let hint = closest(name, among: ["profiles"]).map { " Did you mean \"\($0)\"?" } ?? ""
                issues.append(issue(at: key, "unknown key \"\(name)\" at the top level.\(hint)"))
            }
        }
        guard let profilesNode else {
            issues.append(issue(at: root, "there is no \"profiles\" list."))
            throw ConfigurationErrors(issues)
        }
        guard case .sequence(let list) = profilesNode else {
            issues.append(issue(at: profilesNode, "\"profiles\" must be a list."))
            throw ConfigurationErrors(issues)
        }
        var profiles: [BackendProfile] = []
        var seen: [String: Int] = [:]
        for item in list {
            let issuesBefore = issues.count
            guard case .mapping(let fields) = item else {
                issues.append(issue(at: item, "each profile must be an object with a name and a kind."))
                continue
            }
            var name: String?
            var kind: String?
            var entries: [RawProfile.Entry] = []
            for (key, value) in fields {
                let field = key.string ?? ""
                if entries.contains(where: { $0.key == field }) || (field == "name" && name != nil) || (field == "kind" && kind != nil) {
                    issues.append(issue(at: key, "\"\(field)\" appears twice in one profile."))
                    continue
                }
                switch field {
                case "name", "kind":
                    guard case .scalar(let scalar) = value, !scalar.string.isEmpty, Self.json(value).stringValue != nil else {
                        issues.append(issue(at: value, "\"\(field)\" must be a non-empty string."))
                        continue
                    }
                    if field == "name" { name = scalar.string } else { kind = scalar.string }
                default:
                    entries.append(RawProfile.Entry(key: field, value: Self.json(value), line: key.mark?.line, column: key.mark?.column))
                }
            }
            guard let name, let kind else {
                issues.append(issue(at: item, "a profile needs a \"name\" and a \"kind\" (one of \(plugins.map(\.kind).joined(separator: ", ")))."))
                continue
            }
            let line = item.mark?.line
            if let first = seen[name] {
                issues.append(ConfigurationIssue(file: path, line: line, column: item.mark?.column,
                                                 "a second profile is named \"\(name)\" (the first is on line \(first)); names must be unique."))
                // Which of the two was meant is not known: neither is used.
                brokenNames.insert(name)
                continue
            }
            seen[name] = line ?? 0
            guard let plugin = plugins.first(where: { $0.kind == kind }) else {
                let hint = closest(kind, among: plugins.map(\.kind)).map { " Did you mean \"\($0)\"?" } ?? ""
                issues.append(ConfigurationIssue(file: path, line: line, column: item.mark?.column,
                                                 "profile \"\(name)\": unknown kind \"\(kind)\".\(hint) Kinds: \(plugins.map(\.kind).joined(separator: ", "))."))
                brokenNames.insert(name)
                continue
            }
            switch plugin.validate(RawProfile(name: name, kind: kind, entries: entries, file: path, line: line)) {
            case .success(let profile): profiles.append(profile)
            case .failure(let errors): issues += errors.issues
            }
            // Any problem in it (a field given twice, a bad value) leaves the profile out.
            if issues.count > issuesBefore { brokenNames.insert(name) }
        }
        return (profiles.filter { !brokenNames.contains($0.name) }, issues, brokenNames)
    }

    private func issue(at node: Node, _ message: String) -> ConfigurationIssue {
        ConfigurationIssue(file: path, line: node.mark?.line, column: node.mark?.column, message)
    }

    static func issue(for error: YamlError, file: String) -> ConfigurationIssue {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _), .composer(let context, let problem, let mark, _):
            let place = YAMLErrorPlace.choose(problem: problem, line: mark.line, column: mark.column,
                                              context: context?.text, contextLine: context?.mark.line, contextColumn: context?.mark.column)
            return ConfigurationIssue(file: file, line: place.line, column: place.column, "syntax error: \(place.message).")
        case .reader(let problem, _, _, _):
            return ConfigurationIssue(file: file, "cannot be read: \(problem).")
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Said with its place and names only: the parser's own text quotes the whole
            // mapping, which may be the whole file, passwords in URLs included.
            let names = duplicates.prefix(5).map { "\"\($0.prefix(60))\"" }.joined(separator: ", ")
            return ConfigurationIssue(file: file, line: context.mark.line, column: context.mark.column,
                                      "syntax error: \(duplicates.count == 1 ? "a key is" : "keys are") given twice in one object: \(names).")
        default:
            return ConfigurationIssue(file: file, "syntax error: \(String(describing: error).prefix(200)).")
        }
    }

    /// A node as JSON: quoted scalars stay strings, plain ones are typed as YAML resolves them.
    static func json(_ node: Node) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            if scalar.style == .singleQuoted || scalar.style == .doubleQuoted { return .string(scalar.string) }
            if node.null != nil { return .null }
            if let flag = node.bool { return .bool(flag) }
            if let number = node.int { return .number(Double(number)) }
            if let number = node.float { return .number(number) }
            return .string(scalar.string)
        case .mapping(let mapping):
            var object: [String: JSONValue] = [:]
            for (key, value) in mapping { object[key.string ?? ""] = json(value) }
            return .object(object)
        case .sequence(let sequence):
            return .array(sequence.map(json))
        case .alias:
            return .null
        }
    }
}
