import Foundation
import Yams

/// Reads soul.md: optional YAML front matter between `---` lines, then a Markdown body.
public enum SoulParser {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var file: String
        public var line: Int
        public var message: String
        public var description: String { "\(file):\(line): error: \(message)" }
    }

    public static func load(contentsOf url: URL) throws -> Soul {
        let text = try String(contentsOf: url, encoding: .utf8)
        var soul = try parse(text, fileName: url.lastPathComponent)
        soul.sourcePath = url.path
        return soul
    }

    public static func parse(_ text: String, fileName: String = "soul.md") throws -> Soul {
        var lines = text.components(separatedBy: "\n")
        var front: [String: Any] = [:]
        var bodyStartLine = 1
        if lines.first?.trimmingCharacters(in: .whitespaces) == "---",
           let end = lines.dropFirst().firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "---" }) {
            let yaml = lines[1..<end].joined(separator: "\n")
            do {
                guard let loaded = try Yams.load(yaml: yaml) else { throw ParseError(file: fileName, line: 2, message: "empty front matter") }
                guard let dictionary = loaded as? [String: Any] else {
                    throw ParseError(file: fileName, line: 2, message: "front matter must be a mapping of keys to values")
                }
                front = dictionary
            } catch let error as YamlError {
                throw ParseError(file: fileName, line: 1 + yamlLine(error), message: "invalid YAML: \(error)")
            }
            lines = Array(lines[(end + 1)...])
            bodyStartLine = end + 2
        }
        _ = bodyStartLine
        let body = lines.joined(separator: "\n")
        let heading = lines.first { $0.hasPrefix("# ") }.map { String($0.dropFirst(2)).trimmingCharacters(in: .whitespaces) }
        let name = (front["name"] as? String) ?? heading ?? (fileName as NSString).deletingPathExtension
        var vocabulary: [String: String] = [:]
        if let vocab = front["vocabulary"] as? [String: Any], let replace = vocab["replace"] as? [String: Any] {
            for (avoid, prefer) in replace { vocabulary[avoid.lowercased()] = "\(prefer)" }
        }
        return Soul(
            name: name,
            greeting: front["greeting"] as? String,
            signOff: front["sign_off"] as? String,
            outcomeFraming: (front["outcomes"] as? [String: Any])?.compactMapValues { $0 as? String } ?? [:],
            interventionLabels: (front["interventions"] as? [String: Any])?.compactMapValues { $0 as? String } ?? [:],
            followupsTitle: (front["followups_title"] as? String) ?? "You could ask next",
            vocabulary: vocabulary,
            body: body)
    }

    private static func yamlLine(_ error: YamlError) -> Int {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): mark.line
        default: 1
        }
    }
}
