import Foundation
import ReceptionCore

/// A problem found in a soul file, located by line and column (both 1-based).
public struct SoulDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error, warning, note

        private var rank: Int { self == .error ? 0 : self == .warning ? 1 : 2 }
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public var severity: Severity
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String

    public init(_ severity: Severity, file: String, line: Int, column: Int = 1, message: String) {
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: severity: message`, the format compilers use (editors can jump to it).
    /// Printable as it is: a file name is foreign text too.
    public var description: String {
        "\(TerminalText.clean(file, singleLine: true)):\(line):\(column): \(severity.rawValue): \(TerminalText.clean(message, singleLine: true))"
    }
}

extension Array where Element == SoulDiagnostic {
    public var errors: [SoulDiagnostic] { filter { $0.severity == .error } }
    public var warnings: [SoulDiagnostic] { filter { $0.severity == .warning } }
    public var hasErrors: Bool { contains { $0.severity == .error } }
}

/// Checks soul files: every problem the parser sees, and the ones a careful reader would
/// (unknown keys with a did-you-mean, contradictions, empty sections, overlong greetings).
///
/// ```swift
/// for diagnostic in SoulLinter.lint(text: text, fileName: "mine.md") { print(diagnostic) }
/// ```
public enum SoulLinter {
    /// Diagnostics sorted by line, then column. Never throws: unreadable YAML is an error diagnostic.
    public static func lint(text: String, fileName: String) -> [SoulDiagnostic] {
        SoulAnalyzer.analyze(text: text, fileName: fileName).diagnostics
    }

    /// Lints what the other soul tools take: a file or folder path, else the id or name of a
    /// soul in `catalog` (its file, or a built-in soul's embedded text). Anything else is one
    /// error naming the known souls.
    public static func lint(_ argument: String, catalog: SoulCatalog) -> [SoulDiagnostic] {
        if FileManager.default.fileExists(atPath: argument) { return lint(contentsOf: URL(fileURLWithPath: argument)) }
        if let broken = PlainFile.brokenLink(argument) { return [SoulDiagnostic(.error, file: argument, line: 1, message: "cannot be read: it is \(broken)")] }
        if let entry = catalog.entry(argument) {
            if let path = entry.path { return lint(contentsOf: URL(fileURLWithPath: path)) }
            // Every built-in soul has its text (`plain` too).
            return lint(text: SoulCatalog.builtInText(entry.id) ?? "", fileName: entry.id + ".md")
        }
        let known = catalog.entries().map(\.id).joined(separator: ", ")
        return [SoulDiagnostic(.error, file: argument, line: 1, message: "no such file or known soul (known: \(known))")]
    }

    /// Reads and lints a file or a soul folder; a file that cannot be read as a soul (see
    /// `SoulParser.text(contentsOf:)`) is one error diagnostic.
    public static func lint(contentsOf url: URL) -> [SoulDiagnostic] {
        do {
            return try SoulAnalyzer.analyze(contentsOf: url).diagnostics
        } catch let error as SoulParser.ParseError {
            return error.diagnostics
        } catch {
            return [SoulDiagnostic(.error, file: url.path, line: 1, message: "cannot read the file")]
        }
    }
}
