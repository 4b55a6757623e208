import Foundation
import ReceptionCore

/// The intent classifier's settings file, `$XDG_CONFIG_HOME/reception/intent.json` (default
/// `~/.config/reception/intent.json`): which model the REPL classifies with when no option
/// says otherwise.
///
/// ```json
/// { "weights": "~/labels/my-weights.json" }
/// ```
///
/// `weights` is a file `reception train` wrote; `lexicon`, the lexicon it was trained with
/// when that is not the built-in one. A path may start with `~/`; a relative path is read
/// from the settings file's folder. Every problem is located (`file:line:column`) and none is
/// skipped silently.
public struct IntentSettings: Sendable, Hashable {
    public var weights: String?
    public var lexicon: String?

    public init(weights: String? = nil, lexicon: String? = nil) {
        self.weights = weights
        self.lexicon = lexicon
    }

    public static let fileName = "intent.json"
    static let keys = ["weights", "lexicon"]

    /// The settings file in a configuration folder.
    public static func standardPath(configDirectory: String) -> String {
        configDirectory + "/" + fileName
    }

    /// The settings at `path`; an absent file is no settings. Paths come back expanded.
    public static func load(path: String, home: String = UserPath.home()) throws -> IntentSettings {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return IntentSettings() }
        let text: String
        do { text = try PlainFile.readText(path, limit: 1 << 20) } catch {
            throw LexiconError(source: path, line: 0, message: "cannot read the intent settings: \((error as? PlainFile.Problem)?.reason ?? PlainFile.reason(of: error))")
        }
        return try parse(text, path: path, home: home)
    }

    public static func parse(_ text: String, path: String, home: String = UserPath.home()) throws -> IntentSettings {
        var text = text
        let value: MiniJSON.Value = try text.withUTF8 { bytes in
            var reader = MiniJSON(bytes: bytes, source: path)
            return try reader.document()
        }
        func fail(_ message: String, at key: String? = nil) -> LexiconError {
            LexiconError(source: path, line: key.map { IntentWeights.line(of: $0, in: text) } ?? 1, message: message)
        }
        guard case .object(let object) = value else {
            throw fail("the intent settings must be a JSON object, such as {\"weights\": \"~/labels/my-weights.json\"}")
        }
        let folder = (path as NSString).deletingLastPathComponent
        var settings = IntentSettings()
        for key in object.keys.sorted() {
            guard keys.contains(key) else {
                let hint = keys.first { Self.distance($0, key) <= 2 }.map { " Did you mean \"\($0)\"?" } ?? ""
                throw fail("unknown key \(CorpusText.shown(key)) (the keys are \(keys.joined(separator: ", "))).\(hint)", at: key)
            }
            guard case .string(let raw)? = object[key], !raw.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw fail("\"\(key)\" must be a path (a non-empty string)", at: key)
            }
            // "built-in" names the built-in model here as after --intent-weights, not a file.
            if key == "weights", raw == IntentClassifier.builtInName { continue }
            let path = expand(raw, home: home, folder: folder)
            if key == "weights" { settings.weights = path } else { settings.lexicon = path }
        }
        return settings
    }

    /// `~/x` from the home folder, a relative path from the settings file's folder.
    static func expand(_ raw: String, home: String, folder: String) -> String {
        if raw == "~" { return home }
        if raw.hasPrefix("~/") { return home + raw.dropFirst(1) }
        if raw.hasPrefix("/") { return raw }
        return folder.isEmpty ? raw : folder + "/" + raw
    }

    /// Edit distance, for "did you mean" on a misspelt key.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + [Int](repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
