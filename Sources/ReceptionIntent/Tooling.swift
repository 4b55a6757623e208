import Foundation
import ReceptionCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EvaluationReport {
    /// Sorted-key, pretty-printed JSON for machines (`eval --json`).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Whether both heads reach `minimum` accuracy (`eval --min-accuracy`).
    public func meets(minAccuracy minimum: Double) -> Bool {
        intent.accuracy >= minimum && urgency.accuracy >= minimum
    }
}

extension IntentClassification {
    /// One JSON object on one line (`classify --json`); `features`, the message's active
    /// feature names (`classify --features`), are left out when nil.
    /// `id`, the input line's own id (`classify --jsonl-input`), is echoed when given, so a
    /// script joins answers to questions by id rather than by position.
    public func jsonLine(text: String, features: [String]? = nil, id: String? = nil) throws -> String {
        struct Line: Encodable { var id: String?; var text: String; var classification: IntentClassification; var features: [String]? }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The text as the person gave it, but never a terminal control (the plain output cleans it).
        return TerminalText.jsonSafe(String(decoding: try encoder.encode(Line(id: id, text: text, classification: self, features: features)), as: UTF8.self))
    }
}

/// A one-line progress bar on standard error, drawn only when it is a terminal.
public final class ProgressBar: @unchecked Sendable {
    private let lock = NSLock()
    private let label: String
    private let enabled: Bool
    private var lastDrawn = -1

    public init(label: String, enabled: Bool = isatty(STDERR_FILENO) != 0) {
        self.label = label
        self.enabled = enabled
    }

    public func update(_ done: Int, _ total: Int) {
        guard enabled, total > 0 else { return }
        let percent = min(100, done * 100 / total)
        lock.lock(); defer { lock.unlock() }
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let filled = percent * 30 / 100
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: 30 - filled)
        FileHandle.standardError.write(Data("\r\(label) \(bar) \(percent)%".utf8))
    }

    public func finish() {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        if lastDrawn >= 0 { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}
