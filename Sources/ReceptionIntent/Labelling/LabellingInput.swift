import Foundation
import ReceptionCore

/// A message to label (`reception label`), with the labels it already has, if any.
public struct LabellingItem: Sendable, Hashable {
    /// The message's own id, or one made from a hash of its text (`LabellingInput.textID`).
    public var id: String
    public var text: String
    public var goal: String?
    /// A label the input already carries (a corpus under review).
    public var intent: IntentType?
    public var urgency: UrgencyLevel?
    /// "file:line" (the first line it is on).
    public var location: String
    /// How many lines of the input hold this message (the same id and text): one label stands
    /// for all of them.
    public var lines = 1

    public init(id: String, text: String, goal: String? = nil, intent: IntentType? = nil, urgency: UrgencyLevel? = nil, location: String = "") {
        self.id = id
        self.text = text
        self.goal = goal
        self.intent = intent
        self.urgency = urgency
        self.location = location
    }

    public var hasLabels: Bool { intent != nil && urgency != nil }
}

/// How a file of messages to label is read.
public enum LabellingFormat: String, Sendable, CaseIterable {
    /// JSON lines with a "text" (and optional "id", "goal", "intent", "urgency").
    case jsonl
    /// A header row with a "text" column (and optional id, goal, intent, urgency columns).
    case csv, tsv
    /// One message a line.
    case text

    /// By extension: .jsonl/.ndjson/.json, .csv, .tsv/.tab; anything else is plain text.
    public init(path: String) {
        self = CorpusFormat(path: path).map { LabellingFormat(rawValue: $0.rawValue)! } ?? .text
    }
}

/// Reads messages to label: JSONL, CSV, TSV or plain text. Labels are optional (a message
/// without them is labelled from scratch; one with them can be reviewed), and a message
/// without an id gets one from a hash of its text, so a second run finds the same ids.
public enum LabellingInput {
    public struct Result: Sendable {
        public var items: [LabellingItem] = []
        public var issues: [CorpusIssue] = []
        /// Lines that repeat a message an earlier line already had (the same id, or the same
        /// text for those without one): labelled once, with that message (`LabellingItem.lines`).
        public var repeats: Int { items.reduce(0) { $0 + $1.lines - 1 } }
    }

    /// An id for a message that has none: "t-" and the FNV-1a hash of its text, in hex.
    public static func textID(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return "t-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    public static func read(path: String, format: LabellingFormat? = nil) throws -> Result {
        let data: Data
        do { data = try PlainFile.read(path) } catch let problem as PlainFile.Problem {
            throw CorpusIssue(file: path, line: 0, message: problem.reason)
        }
        return try read(data: data, name: path, format: format ?? LabellingFormat(path: path))
    }

    public static func read(data: Data, name: String, format: LabellingFormat) throws -> Result {
        let bytes = data.starts(with: [0xEF, 0xBB, 0xBF]) ? [UInt8](data.dropFirst(3)) : [UInt8](data)
        if let nul = bytes.firstIndex(of: 0) {
            throw CorpusIssue(file: name, line: 0, message: "is not text (a NUL byte at offset \(nul)); give JSON lines, CSV, TSV or plain text, one message a line")
        }
        var result = Result()
        // Each id's first line, text and item: the same text again is the same message, labelled
        // once; another text under a used id (a ticket export's id for several messages) is
        // labelled too, under an id of its own made from both, and named.
        var seen: [String: (line: Int, text: String, item: Int)] = [:]
        func issue(_ line: Int, _ message: String, skipped: Bool = true) {
            result.issues.append(CorpusIssue(file: name, line: line, message: message + (skipped ? " (skipped)" : "")))
        }
        func add(_ fields: [String: String], line: Int) {
            guard let text = CorpusReader.messageText(fields) else { return issue(line, CorpusReader.missingText) }
            func optional(_ key: String) -> String? { CorpusReader.optional(key, in: fields)?.trimmingCharacters(in: .whitespaces) }
            // A label the file gives that is none of the five (four) is set aside, not the
            // message: it is offered without it, to be labelled here.
            var intent: IntentType?, urgency: UrgencyLevel?
            if let raw = optional("intent") {
                intent = IntentType(userInput: raw)
                if intent == nil { issue(line, CorpusReader.unknownIntent(raw) + "; the message is offered without it", skipped: false) }
            }
            if let raw = optional("urgency") {
                urgency = UrgencyLevel(userInput: raw)
                if urgency == nil { issue(line, CorpusReader.unknownUrgency(raw) + "; the message is offered without it", skipped: false) }
            }
            var id = optional("id") ?? textID(text)
            if let first = seen[id], first.text != text {
                // The id with the hash of this message's text: the same in the next run while the
                // lines keep their order, so that run finds the label.
                let own = id + "~" + textID(text)
                issue(line, "the id \(CorpusText.shown(id)) was given to another message at line \(first.line); this one is labelled as \(CorpusText.shown(own)) (give each message an id of its own to keep yours)", skipped: false)
                id = own
            }
            if let first = seen[id] {
                result.items[first.item].lines += 1
                return
            }
            seen[id] = (line, text, result.items.count)
            result.items.append(LabellingItem(id: id, text: text, goal: optional("goal"), intent: intent, urgency: urgency, location: "\(name):\(line)"))
        }
        switch format {
        case .text:
            var line = 0
            for raw in bytes.split(separator: 10, omittingEmptySubsequences: false) {
                line += 1
                var lineBytes = Array(raw)
                if lineBytes.last == 13 { lineBytes.removeLast() }
                guard let text = String(validating: lineBytes, as: UTF8.self) else { issue(line, CorpusText.notUTF8); continue }
                if text.unicodeScalars.allSatisfy(\.properties.isWhitespace) { continue }
                add(["text": text], line: line)
            }
        case .jsonl:
            var line = 0
            for raw in bytes.split(separator: 10, omittingEmptySubsequences: false) {
                line += 1
                var lineBytes = Array(raw)
                if lineBytes.last == 13 { lineBytes.removeLast() }
                if lineBytes.allSatisfy({ $0 == 32 || $0 == 9 }) { continue }
                guard String(validating: lineBytes, as: UTF8.self) != nil else { issue(line, CorpusText.notUTF8); continue }
                var nonStrings: [String] = []
                switch lineBytes.withUnsafeBufferPointer({ FlatJSON.parse($0[...], nonStrings: &nonStrings) }) {
                case .success(let fields):
                    if fields["skip"] == "true" { continue }
                    // As eval and train read it: {"text": 5} is no message anyone wrote.
                    if nonStrings.contains("text") { issue(line, CorpusReader.textNotAString); continue }
                    add(fields, line: line)
                case .failure(let error): issue(line, "malformed JSON: \(error.message)")
                }
            }
        case .csv, .tsv:
            let rows = format == .csv ? DelimitedText.csvRows(bytes) : DelimitedText.tsvRows(bytes)
            guard let header = rows.first else { break }
            if let error = header.error { issue(header.line, error); break }
            let columns = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard columns.contains("text") else {
                throw CorpusIssue(file: name, line: header.line, message: "the header has no \"text\" column (found: \(columns.prefix(12).map(CorpusText.shown).joined(separator: ", "))\(columns.count > 12 ? ", …" : ""))")
            }
            for row in rows.dropFirst() {
                if let error = row.error { issue(row.line, error); continue }
                if row.fields.count == 1 && row.fields[0].isEmpty { continue }
                guard row.fields.count == columns.count else { issue(row.line, "expected \(columns.count) fields, found \(row.fields.count)"); continue }
                add(Dictionary(zip(columns, row.fields), uniquingKeysWith: { first, _ in first }), line: row.line)
            }
        }
        return result
    }
}
