import Foundation
import ReceptionCore

/// One labelled message of a corpus (`intent-guidelines.md`, "Corpus format").
public struct LabelledMessage: Sendable, Hashable, Codable {
    public var id: String?
    public var text: String
    public var intent: IntentType
    public var urgency: UrgencyLevel
    public var goal: String?
    public var note: String?
    /// The public dataset a message people wrote comes from (`dataset:subset`, as in
    /// `../shared/corpora/human-train/`); nil for the project's own corpus. Training weighs
    /// and leaves out messages by it.
    public var source: String?
    /// Where it was read from, "file:line".
    public var location: String
    /// How much the message counts in training, when its source does not say (a person's own
    /// labels beside the shipped corpora); nil: by its source (`TrainingOptions.sourceWeight`).
    public var weight: Double?
    /// The part of its message's weight this line carries when independent annotators gave the
    /// message different labels and each label is a line of its own (1/2 each for two): the
    /// model learns the split, and the calibration leaves it out (a message with no one right
    /// label says nothing about how often a confidence is right). nil: the message's only label.
    public var share: Double?

    /// Which message a line is of: a disagreement's lines share their message's id and text.
    public var messageKey: String { "\(id ?? "")\u{0}\(text)" }

    public init(id: String? = nil, text: String, intent: IntentType, urgency: UrgencyLevel, goal: String? = nil, note: String? = nil,
                source: String? = nil, location: String = "") {
        self.id = id
        self.text = text
        self.intent = intent
        self.urgency = urgency
        self.goal = goal
        self.note = note
        self.source = source
        self.location = location
    }

    /// The message as a JSONL line of the guidelines' format.
    public var jsonLine: String {
        var fields: [String] = []
        if let id { fields.append("\"id\": \(IntentWeights.quote(id))") }
        fields.append("\"text\": \(IntentWeights.quote(text))")
        fields.append("\"intent\": \(IntentWeights.quote(intent.rawValue))")
        fields.append("\"urgency\": \(IntentWeights.quote(urgency.rawValue))")
        if let goal { fields.append("\"goal\": \(IntentWeights.quote(goal))") }
        if let note { fields.append("\"note\": \(IntentWeights.quote(note))") }
        if let source { fields.append("\"source\": \(IntentWeights.quote(source))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }
}

/// A line that could not be read, with its location.
public struct CorpusIssue: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String

    /// `file:line: message`, or `file: message` for the file as a whole. The message quotes the
    /// corpus (a label it did not know): cleaned of escape sequences, on one line.
    public var description: String {
        TerminalText.clean(line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)", singleLine: true)
    }
}

public enum CorpusFormat: String, Sendable, CaseIterable {
    case jsonl, csv, tsv

    /// From the file extension (`.jsonl`/`.json`/`.ndjson`, `.csv`, `.tsv`/`.tab`).
    public init?(path: String) {
        switch (path as NSString).pathExtension.lowercased() {
        case "jsonl", "ndjson", "json": self = .jsonl
        case "csv": self = .csv
        case "tsv", "tab": self = .tsv
        default: return nil
        }
    }
}

/// Reads labelled corpora in JSONL, CSV (header row, RFC 4180 quoting) or TSV (header row,
/// `\t` `\n` `\\` escapes). A malformed line becomes a `CorpusIssue` and is skipped, or,
/// when `strict`, stops the read.
public struct CorpusReader: Sendable {
    public var strict: Bool
    /// Called with (bytes read, total bytes) now and then, for progress bars.
    public var progress: (@Sendable (Int, Int) -> Void)?

    public init(strict: Bool = false, progress: (@Sendable (Int, Int) -> Void)? = nil) {
        self.strict = strict
        self.progress = progress
    }

    /// A labelled message from one record's fields, or the problem with it.
    /// A line's text, when it has one with something in it (the rule for corpora and for
    /// `classify --jsonl-input` alike).
    static func messageText(_ fields: [String: String]) -> String? {
        guard let text = fields["text"], text.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else { return nil }
        return text
    }

    static let missingText = "missing or empty \"text\""
    /// A "text" whose JSON value is a number, a boolean, a list or an object (`FlatJSON`'s
    /// `nonStrings`): no message anyone wrote. `{"text": 5}` was classified as "5" without a
    /// word, while `{"text": ["a"]}` was said to be missing.
    static let textNotAString = "\"text\" must be a string"

    /// An optional field; an empty one is no value.
    static func optional(_ key: String, in fields: [String: String]) -> String? {
        fields[key].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func message(_ fields: [String: String], line: Int, name: String, nonStrings: [String] = []) -> Swift.Result<LabelledMessage, CorpusIssue> {
        func problem(_ message: String) -> Swift.Result<LabelledMessage, CorpusIssue> { .failure(CorpusIssue(file: name, line: line, message: message)) }
        if nonStrings.contains("text") { return problem(textNotAString) }
        guard let text = messageText(fields) else { return problem(missingText) }
        // Labels as a person exports them: any case, spaces around them ("a, b, c" CSV).
        guard let intentRaw = fields["intent"] else { return problem("missing \"intent\"") }
        guard let intent = intents[intentRaw.trimmingCharacters(in: .whitespaces).lowercased()] else { return problem(unknownIntent(intentRaw)) }
        guard let urgencyRaw = fields["urgency"] else { return problem("missing \"urgency\"") }
        guard let urgency = urgencies[urgencyRaw.trimmingCharacters(in: .whitespaces).lowercased()] else { return problem(unknownUrgency(urgencyRaw)) }
        func optional(_ key: String) -> String? { Self.optional(key, in: fields)?.trimmingCharacters(in: .whitespaces) }
        return .success(LabelledMessage(id: optional("id"), text: text, intent: intent, urgency: urgency,
                                        goal: optional("goal"), note: optional("note"), source: optional("source"), location: "\(name):\(line)"))
    }

    private static let intents = Dictionary(uniqueKeysWithValues: IntentType.knownCases.map { ($0.rawValue, $0) })
    private static let urgencies = Dictionary(uniqueKeysWithValues: UrgencyLevel.knownCases.map { ($0.rawValue, $0) })

    /// What a corpus, a labels file or a file to label says of a label that is none of the
    /// five intents (four urgencies), in the same words wherever it is read.
    static func unknownIntent(_ raw: String) -> String {
        "unknown intent \(CorpusText.shown(raw)) (expected \(IntentWeights.intentLabels.joined(separator: ", ")))"
    }

    static func unknownUrgency(_ raw: String) -> String {
        "unknown urgency \(CorpusText.shown(raw)) (expected \(IntentWeights.urgencyLabels.joined(separator: ", ")))"
    }

    public struct Result: Sendable {
        public var messages: [LabelledMessage] = []
        public var issues: [CorpusIssue] = []
        /// What was read but left out on purpose, in a line each (messages an annotator skipped
        /// or a pass did not label), for the person to see that nothing went missing unsaid.
        public var notes: [String] = []
        /// Files each of whose lines has an id or labels and no "text": labels kept apart from
        /// their texts, which `read(labels:texts:)` reads, not a corpus.
        public var labelsOnlyFiles: [String] = []
        public init() {}

        /// Messages whose id an earlier one already has ("the same id twice" is one message
        /// counted twice, or two messages the split cannot tell apart): the repeat's location,
        /// the id, and where it was first.
        public var repeatedIDs: [(location: String, id: String, first: String)] {
            var seen: [String: String] = [:]
            var repeats: [(String, String, String)] = []
            for message in messages {
                // A disagreement's lines share their message's id on purpose (`read(passes:texts:)`).
                guard let id = message.id, message.share == nil else { continue }
                if let first = seen[id] { repeats.append((message.location, id, first)) } else { seen[id] = message.location }
            }
            return repeats
        }

        /// Messages whose text (and goal) other lines give other labels: the message, each
        /// labelling with the first line that gives it, most lines first. One model cannot get
        /// both right, so a score on such a corpus has a ceiling the reader should know of.
        /// A disagreement of annotators' passes (`share`) is meant, and not counted.
        public var conflictingLabels: [(text: String, labels: [(label: String, lines: Int, first: String)])] {
            struct Key: Hashable { var text: String, goal: String? }
            var byMessage: [Key: [String: (lines: Int, first: String, order: Int)]] = [:]
            var order: [Key] = []
            for message in messages where message.share == nil {
                let key = Key(text: message.text, goal: message.goal)
                let label = "\(message.intent.rawValue)/\(message.urgency.rawValue)"
                if byMessage[key] == nil { order.append(key); byMessage[key] = [:] }
                let count = byMessage[key]!.count
                byMessage[key]![label, default: (0, message.location, count)].lines += 1
            }
            return order.compactMap { key in
                guard let labels = byMessage[key], labels.count > 1 else { return nil }
                let sorted = labels.sorted { ($0.value.lines, -$0.value.order) > ($1.value.lines, -$1.value.order) }
                return (key.text, sorted.map { ($0.key, $0.value.lines, $0.value.first) })
            }
        }

        /// Note lines for `conflictingLabels`: the first few, then how many more.
        public var conflictingLabelNotes: [String] {
            let conflicts = conflictingLabels
            var lines = conflicts.prefix(5).map { conflict in
                let labels = conflict.labels.map { "\($0.label) on \(Counted.phrase($0.lines, "line")) (first \(TerminalText.clean($0.first, singleLine: true)))" }
                return "note: \(CorpusText.shown(String(conflict.text.prefix(80)))) is labelled \(labels.joined(separator: ", ")); one model gets at most one of them right"
            }
            if conflicts.count > 5 { lines.append("note: \(conflicts.count - 5) more messages are labelled differently on different lines") }
            return lines
        }

        /// Warning lines for `repeatedIDs`: the first few, then how many more.
        public var repeatedIDWarnings: [String] {
            let repeats = repeatedIDs
            var lines = repeats.prefix(5).map { "warning: \(TerminalText.clean($0.location, singleLine: true)): the id \(CorpusText.shown($0.id)) was already used at \(TerminalText.clean($0.first, singleLine: true)); both are read" }
            if repeats.count > 5 { lines.append("warning: \(repeats.count - 5) more repeated ids") }
            return lines
        }

        /// How many lines of a file with one kind of problem are each said at their line; the
        /// rest are counted in one line.
        public static let shownPerKind = 5

        /// Warning lines for `issues` (each line skipped): in each file, the first
        /// `shownPerKind` lines with each kind of problem at their lines, then how many more
        /// there were of that kind; and for a file that looks like a labels file, a note saying
        /// what reads one. A labels file given to `eval` printed 3,112 lines of `missing or
        /// empty "text"`, and nothing said why.
        public var skippedLineWarnings: [String] {
            struct Kind: Hashable { var file: String, kind: String }
            var files: [String] = []
            var shown: [String: [String]] = [:]
            var kinds: [String: [Kind]] = [:]
            var counts: [Kind: Int] = [:]
            // In words, the kind as every line of it says it ("expected 4 fields"), or with N for
            // the numbers where they differ.
            var said: [Kind: String] = [:]
            for issue in issues {
                let words = Self.kind(of: issue.message)
                let key = Kind(file: issue.file, kind: words.replacingOccurrences(of: "[0-9]+", with: "N", options: .regularExpression))
                if shown[issue.file] == nil { files.append(issue.file); shown[issue.file] = [] }
                if counts[key] == nil { kinds[issue.file, default: []].append(key) }
                switch said[key] {
                case nil: said[key] = words
                case let earlier? where earlier != words: said[key] = key.kind
                default: break
                }
                counts[key, default: 0] += 1
                if counts[key]! <= Self.shownPerKind { shown[issue.file]!.append("warning: \(issue) (skipped)") }
            }
            let hinted = labelsOnlyFiles.filter { !files.contains($0) }
            return (files + hinted).flatMap { file in
                let name = TerminalText.clean(file, singleLine: true)
                var lines = shown[file] ?? []
                for key in kinds[file] ?? [] where counts[key]! > Self.shownPerKind {
                    let more = counts[key]! - Self.shownPerKind
                    lines.append(TerminalText.clean("warning: \(name): \(Counted.phrase(more, "more line")) skipped: \(said[key]!) (\(Counted.phrase(counts[key]!, "line")) in all)", singleLine: true))
                }
                if labelsOnlyFiles.contains(file) {
                    lines.append("note: \(name) looks like a labels file (ids and labels, and no \"text\" on any line), not a corpus; "
                                 + "reception train --labels FILE --texts MESSAGES reads one, with the file of the messages it labels")
                }
                return lines
            }
        }

        /// The kind of problem a line has, for counting alike ones together: the message's
        /// words before any detail (`malformed JSON: …`, `unknown intent "x" (expected …)`,
        /// `expected 4 fields, found 3`), without a value it quotes (a field's name stays:
        /// `missing "intent"` is not `missing "urgency"`).
        static func kind(of message: String) -> String {
            var head = Substring(message)
            for separator in [": ", " (", "; ", ", "] {
                if let range = head.range(of: separator) { head = head[..<range.lowerBound] }
            }
            let fieldNames: Set<Substring> = ["text", "intent", "urgency", "id", "goal", "note", "source"]
            var kind = ""
            var rest = head[...]
            while let open = rest.firstIndex(of: "\"") {
                let afterOpen = rest.index(after: open)
                guard let close = rest[afterOpen...].firstIndex(of: "\"") else { break }
                let value = rest[afterOpen..<close]
                kind += fieldNames.contains(value) ? rest[...close] : rest[..<open].dropLast(rest[..<open].hasSuffix(" ") ? 1 : 0)
                rest = rest[rest.index(after: close)...]
            }
            kind += rest
            return kind.trimmingCharacters(in: .whitespaces)
        }
    }

    /// `path` "-" is standard input, and a named pipe is read too, when `format` says what they
    /// hold (a pipe is refused otherwise: a FIFO nobody writes would block).
    public func read(path: String, format: CorpusFormat? = nil) throws -> Result {
        if let format, path == "-" {
            return try read(data: Self.stream(FileHandle.standardInput, name: "standard input"), name: "standard input", format: format)
        }
        var info = stat()
        if let format, stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFIFO, let handle = FileHandle(forReadingAtPath: path) {
            return try read(data: Self.stream(handle, name: path), name: path, format: format)
        }
        guard let format = format ?? CorpusFormat(path: path) else {
            // A folder or a missing file is that, whatever its name says.
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                throw CorpusIssue(file: path, line: 0, message: "no such file")
            }
            if isDirectory.boolValue { throw CorpusIssue(file: path, line: 0, message: "is a directory; name the corpus files in it") }
            throw CorpusIssue(file: path, line: 0, message: "unknown corpus format (name it .jsonl, .csv or .tsv, or say --format)")
        }
        let data: Data
        do { data = try PlainFile.read(path) } catch let problem as PlainFile.Problem {
            throw CorpusIssue(file: path, line: 0, message: problem.reason)
        }
        return try read(data: data, name: path, format: format)
    }

    /// Standard input or a named pipe, read to its end (at most as much as a file: 256 MB;
    /// more is refused as a larger file is, where it was cut there without a word and the
    /// rest of the corpus left out). With the throwing read: the old `readData(ofLength:)`
    /// ends in a `try!`, and standard input that is a directory (`eval - < folder`) or closed
    /// (`<&-`) crashed the program with a Swift trap instead of saying so.
    static func stream(_ handle: FileHandle, name: String, limit: Int = 256 << 20) throws -> Data {
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw CorpusIssue(file: name, line: 0, message: unreadable(error))
        }
        guard data.count <= limit else {
            throw CorpusIssue(file: name, line: 0, message: "holds more than the \(limit >> 20) MB this reads; split the corpus into files")
        }
        return data
    }

    /// Why a stream could not be read, as the corpus errors say it: "cannot be read (it is a
    /// directory)". `classify` says the same of its standard input.
    public static func unreadable(_ error: any Error) -> String {
        guard let code = PlainFile.errnoCode(of: error) else { return "cannot be read (\(PlainFile.reason(of: error)))" }
        return unreadable(errno: code)
    }

    public static func unreadable(errno code: Int32) -> String {
        switch code {
        case EISDIR: "cannot be read (it is a directory)"
        // `<&-`: a descriptor that is not open; "bad file descriptor" means nothing to most people.
        case EBADF: "cannot be read (it is closed)"
        default: "cannot be read (\(PlainFile.reason(errno: code)))"
        }
    }

    public func read(text: String, name: String, format: CorpusFormat) throws -> Result {
        try read(data: Data(text.utf8), name: name, format: format)
    }

    public func read(data: Data, name: String, format: CorpusFormat) throws -> Result {
        var result = Result()
        // A UTF-8 byte-order mark (Excel's "CSV UTF-8", some editors) is not part of the first
        // line: left in, it made the header's "text" column unrecognisable, invisibly.
        let bytes = data.starts(with: [0xEF, 0xBB, 0xBF]) ? [UInt8](data.dropFirst(3)) : [UInt8](data)
        // A NUL byte: binary, not a corpus (one warning per "line" of it helped nobody).
        if let nul = bytes.firstIndex(of: 0) {
            throw CorpusIssue(file: name, line: 0, message: "is not text (a NUL byte at offset \(nul)); a corpus is UTF-8 JSON lines, CSV or TSV")
        }
        // Bytes that are not UTF-8 (a Windows-1252 export) skip their line, said so, in every
        // format: decoded, they became U+FFFD and the word was lost without a word. The whole
        // file is checked once; JSON lines one by one only when it fails (CSV and TSV fields are
        // checked as they are cut).
        let checkLines = String(validating: bytes, as: UTF8.self) == nil
        func issue(_ line: Int, _ message: String) throws {
            let problem = CorpusIssue(file: name, line: line, message: message)
            if strict { throw problem }
            result.issues.append(problem)
        }
        func record(_ fields: [String: String], line: Int) throws {
            switch Self.message(fields, line: line, name: name) {
            case .success(let message): result.messages.append(message)
            case .failure(let problem): try issue(problem.line, problem.message)
            }
        }
        switch format {
        case .jsonl:
            // Lines are found first, then parsed in parallel chunks and merged in file order.
            var lineStarts: [Int] = []
            lineStarts.reserveCapacity(bytes.count / 64 + 1)
            var position = 0
            while position < bytes.count {
                lineStarts.append(position)
                while position < bytes.count && bytes[position] != 10 { position += 1 }
                position += 1
            }
            let lineCount = lineStarts.count
            let starts = lineStarts
            let chunkSize = 4096
            let chunks = (lineCount + chunkSize - 1) / chunkSize
            /// A chunk's messages and issues, and how many of its lines were JSON objects and how
            /// many of those had labels or an id but no "text" at all (a labels file's lines).
            struct Part { var read = Result(), objects = 0, labelsOnly = 0 }
            let parts = UnsafeMutableBufferPointer<Part>.allocate(capacity: max(chunks, 1))
            parts.initialize(repeating: Part())
            defer { parts.deinitialize(); parts.deallocate() }
            nonisolated(unsafe) let slots = parts
            let done = Counter()
            let total = bytes.count
            let progress = self.progress
            bytes.withUnsafeBufferPointer { buffer in
                nonisolated(unsafe) let buffer = buffer
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    var part = Part()
                    var nonStrings: [String] = []
                    for index in (chunk * chunkSize)..<min(lineCount, (chunk + 1) * chunkSize) {
                        let start = starts[index]
                        var end = index + 1 < lineCount ? starts[index + 1] - 1 : buffer.count
                        if end > start && buffer[end - 1] == 10 { end -= 1 }
                        if end > start && buffer[end - 1] == 13 { end -= 1 }
                        let slice = buffer[start..<end]
                        if slice.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
                        if checkLines, String(validating: slice, as: UTF8.self) == nil {
                            part.read.issues.append(CorpusIssue(file: name, line: index + 1, message: CorpusText.notUTF8))
                            continue
                        }
                        nonStrings.removeAll(keepingCapacity: true)
                        switch FlatJSON.parse(slice, nonStrings: &nonStrings) {
                        case .success(let fields):
                            part.objects += 1
                            if fields["text"] == nil, !nonStrings.contains("text"),
                               fields["intent"] != nil || fields["urgency"] != nil || fields["id"] != nil { part.labelsOnly += 1 }
                            // A message an annotator passed over (`reception label`'s skip, the
                            // shared corpora's annotation passes) is no message, and no mistake.
                            if fields["skip"] == "true" && fields["intent"] == nil && fields["urgency"] == nil { continue }
                            switch Self.message(fields, line: index + 1, name: name, nonStrings: nonStrings) {
                            case .success(let message): part.read.messages.append(message)
                            case .failure(let problem): part.read.issues.append(problem)
                            }
                        case .failure(let error):
                            part.read.issues.append(CorpusIssue(file: name, line: index + 1, message: "malformed JSON: \(error.message)"))
                        }
                    }
                    slots[chunk] = part
                    let finished = done.add(min(lineCount, (chunk + 1) * chunkSize) - chunk * chunkSize)
                    progress?(finished * total / max(lineCount, 1), total)
                }
            }
            for part in parts {
                if strict, let first = part.read.issues.first { throw first }
                result.messages += part.read.messages
                result.issues += part.read.issues
            }
            // Every line an id or labels and none a text: a labels file (`labels_a.jsonl`) given
            // where a corpus goes. Its thousands of "missing text" warnings did not say so.
            let objects = parts.reduce(0) { $0 + $1.objects }
            if objects > 0, parts.reduce(0, { $0 + $1.labelsOnly }) == objects { result.labelsOnlyFiles.append(name) }
        case .csv, .tsv:
            let rows = format == .csv ? DelimitedText.csvRows(bytes) : DelimitedText.tsvRows(bytes)
            guard let header = rows.first else { break }
            if let error = header.error { try issue(header.line, error); break }
            let columns = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            for required in ["text", "intent", "urgency"] where !columns.contains(required) {
                throw CorpusIssue(file: name, line: header.line, message: "the header has no \"\(required)\" column (found: \(columns.prefix(12).map(CorpusText.shown).joined(separator: ", "))\(columns.count > 12 ? ", …" : ""))")
            }
            for row in rows.dropFirst() {
                if let error = row.error { try issue(row.line, error); continue }
                if row.fields.count == 1 && row.fields[0].isEmpty { continue }
                guard row.fields.count == columns.count else {
                    try issue(row.line, "expected \(columns.count) fields, found \(row.fields.count)")
                    continue
                }
                try record(Dictionary(zip(columns, row.fields), uniquingKeysWith: { first, _ in first }), line: row.line)
            }
        }
        progress?(bytes.count, bytes.count)
        return result
    }

    /// Reads several files, concatenated in order; `format` for all of them instead of their
    /// extensions.
    public func read(paths: [String], format: CorpusFormat? = nil) throws -> Result {
        var total = Result()
        for path in paths {
            let part = try read(path: path, format: format)
            total.messages += part.messages
            total.issues += part.issues
            total.labelsOnlyFiles += part.labelsOnlyFiles
            total.notes += part.notes
        }
        return total
    }
}

/// A minimal parser for one JSON object whose values are strings, numbers, booleans or
/// null (the corpus line format). Fast: no `JSONSerialization`, no intermediate objects.
enum FlatJSON {
    struct Failure: Error { var message: String }

    static func parse(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Swift.Result<[String: String], Failure> {
        var unused: [String] = []
        return parse(bytes, nonStrings: &unused)
    }

    /// As `parse`, and `nonStrings` gets the keys whose value was a number, a boolean or a
    /// nested value (not null, which is no value): a reader that needs a string ("text") can
    /// say that it was not one, where the flat fields hold "5" or nothing.
    static func parse(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, nonStrings: inout [String]) -> Swift.Result<[String: String], Failure> {
        var i = bytes.startIndex
        let end = bytes.endIndex
        func skip() { while i < end && (bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 13) { i += 1 } }
        func fail(_ message: String) -> Swift.Result<[String: String], Failure> {
            .failure(Failure(message: "\(message) at column \(i - bytes.startIndex + 1)"))
        }
        func string() -> String? {
            guard i < end, bytes[i] == 34 else { return nil }
            i += 1
            var out: [UInt8] = []
            var plainStart = i
            while i < end {
                let byte = bytes[i]
                if byte == 34 {
                    out += bytes[plainStart..<i]
                    i += 1
                    return String(decoding: out, as: UTF8.self)
                }
                if byte < 0x20 { return nil }
                if byte == 92 {
                    out += bytes[plainStart..<i]
                    i += 1
                    guard i < end else { return nil }
                    switch bytes[i] {
                    case 34: out.append(34)
                    case 92: out.append(92)
                    case 47: out.append(47)
                    case 98: out.append(8)
                    case 102: out.append(12)
                    case 110: out.append(10)
                    case 114: out.append(13)
                    case 116: out.append(9)
                    case 117:
                        func hex4() -> UInt32? {
                            guard i + 4 < end else { return nil }
                            var value: UInt32 = 0
                            for k in 1...4 {
                                let c = bytes[i + k]
                                let digit: UInt32
                                switch c {
                                case 48...57: digit = UInt32(c - 48)
                                case 65...70: digit = UInt32(c - 55)
                                case 97...102: digit = UInt32(c - 87)
                                default: return nil
                                }
                                value = value << 4 | digit
                            }
                            i += 4
                            return value
                        }
                        guard var scalar = hex4() else { return nil }
                        if scalar >= 0xD800 && scalar < 0xDC00 {
                            guard i + 2 < end, bytes[i + 1] == 92, bytes[i + 2] == 117 else { return nil }
                            i += 2
                            guard let low = hex4(), low >= 0xDC00 && low < 0xE000 else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        out += Array(String(Character(unicode)).utf8)
                    default: return nil
                    }
                    i += 1
                    plainStart = i
                    continue
                }
                i += 1
            }
            return nil
        }
        skip()
        guard i < end, bytes[i] == 123 else { return fail("expected '{'") }
        i += 1
        var fields: [String: String] = [:]
        skip()
        if i < end && bytes[i] == 125 { i += 1 } else {
            while true {
                skip()
                guard let key = string() else { return fail("expected a quoted key") }
                skip()
                guard i < end, bytes[i] == 58 else { return fail("expected ':'") }
                i += 1
                skip()
                guard i < end else { return fail("expected a value") }
                if bytes[i] == 34 {
                    guard let value = string() else { return fail("bad string") }
                    fields[key] = value
                } else if bytes[i] == 123 || bytes[i] == 91 {
                    // A nested value (a source's metadata) is no corpus field: skipped whole, so
                    // the line still reads; a "text" that is one is then missing, and said so.
                    var depth = 0
                    while i < end {
                        let byte = bytes[i]
                        if byte == 34 {
                            guard string() != nil else { return fail("bad string in a nested value") }
                            continue
                        }
                        if byte == 123 || byte == 91 { depth += 1 } else if byte == 125 || byte == 93 { depth -= 1 }
                        i += 1
                        if depth == 0 { break }
                    }
                    guard depth == 0 else { return fail("unterminated nested value") }
                    nonStrings.append(key)
                } else {
                    let start = i
                    while i < end && bytes[i] != 44 && bytes[i] != 125 && bytes[i] != 32 { i += 1 }
                    let literal = String(decoding: bytes[start..<i], as: UTF8.self)
                    guard literal == "null" || literal == "true" || literal == "false" || Double(literal) != nil else {
                        return fail("bad value '\(literal)'")
                    }
                    if literal != "null" { fields[key] = literal; nonStrings.append(key) }
                }
                skip()
                guard i < end else { return fail("unterminated object") }
                if bytes[i] == 44 { i += 1; continue }
                if bytes[i] == 125 { i += 1; break }
                return fail("expected ',' or '}'")
            }
        }
        skip()
        guard i == end else { return fail("text after the object") }
        return .success(fields)
    }
}

/// CSV and TSV rows with the line each starts on.
enum DelimitedText {
    struct Row { var fields: [String]; var line: Int; var error: String? }

    static func csvRows(_ bytes: [UInt8]) -> [Row] {
        var rows: [Row] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var line = 1, rowLine = 1
        var i = 0
        var quoted = false, wasQuoted = false
        var error: String?
        func endField() {
            if String(validating: field, as: UTF8.self) == nil { error = error ?? CorpusText.notUTF8 }
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            wasQuoted = false
        }
        func endRow() {
            endField()
            rows.append(Row(fields: fields, line: rowLine, error: error))
            fields = []; error = nil
        }
        while i < bytes.count {
            let byte = bytes[i]
            if quoted {
                if byte == 34 {
                    if i + 1 < bytes.count && bytes[i + 1] == 34 { field.append(34); i += 2; continue }
                    quoted = false
                } else {
                    if byte == 10 { line += 1 }
                    field.append(byte)
                }
            } else {
                switch byte {
                case 34:
                    // `a, "b, c"`: spaces before the opening quote are not part of the field.
                    if !wasQuoted, field.allSatisfy({ $0 == 32 || $0 == 9 }) {
                        field.removeAll(keepingCapacity: true)
                        quoted = true
                        wasQuoted = true
                    } else {
                        error = error ?? "a quote inside an unquoted field"
                    }
                case 44: endField()
                case 13: break
                case 10:
                    endRow()
                    line += 1
                    rowLine = line
                case 32 where wasQuoted, 9 where wasQuoted:
                    break  // spaces after the closing quote
                default:
                    if wasQuoted { error = error ?? "text after a closing quote" }
                    field.append(byte)
                }
            }
            i += 1
        }
        if quoted {
            // Everything after the opening quote became one field: say how much was swallowed,
            // so lines after it are not lost without a word.
            let lastLine = bytes.last == 10 ? line - 1 : line
            let swallowed = lastLine - rowLine
            error = swallowed > 0
                ? "a quote opened here is never closed, so this line and the \(swallowed) after it (to line \(lastLine)) were read as one field and skipped"
                : "unterminated quoted field"
        }
        if !field.isEmpty || !fields.isEmpty || quoted { endRow() }
        return rows
    }

    static func tsvRows(_ bytes: [UInt8]) -> [Row] {
        var rows: [Row] = []
        var line = 0
        for rawLine in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            line += 1
            var lineBytes = Array(rawLine)
            if lineBytes.last == 13 { lineBytes.removeLast() }
            if lineBytes.isEmpty { continue }
            var error: String?
            let fields = lineBytes.split(separator: 9, omittingEmptySubsequences: false).map { raw -> String in
                var out: [UInt8] = []
                var k = raw.startIndex
                while k < raw.endIndex {
                    if raw[k] == 92 && k + 1 < raw.endIndex {
                        switch raw[k + 1] {
                        case 116: out.append(9)
                        case 110: out.append(10)
                        case 92: out.append(92)
                        default: out.append(92); out.append(raw[k + 1])
                        }
                        k += 2
                    } else { out.append(raw[k]); k += 1 }
                }
                if String(validating: out, as: UTF8.self) == nil { error = CorpusText.notUTF8 }
                return String(decoding: out, as: UTF8.self)
            }
            rows.append(Row(fields: fields, line: line, error: error))
        }
        return rows
    }
}

/// The project's deterministic train / dev / test split: FNV-1a of the id, mod 100:
/// 0–69 train, 70–84 dev, 85–99 test.
public enum CorpusSplit: String, Sendable, CaseIterable {
    case train, dev, test

    public init(id: String) {
        // FNV-1a here on purpose, not `tokenHash`: the split must not move when the
        // classifier's token hash changes.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let bucket = hash % 100
        self = bucket < 70 ? .train : bucket < 85 ? .dev : .test
    }
}

/// How corpus values are quoted back in messages: invisible and control characters made
/// visible (an escape sequence, a zero-width space in a label), long values cut.
public enum CorpusText {
    public static let notUTF8 = "not valid UTF-8 (saved in another encoding? re-save it as UTF-8)"

    /// `"curiosity\u{200B}"`: the value in quotes, each control, format or odd space character as
    /// `\u{…}`, at most 60 characters of it, then how long it was.
    static func shown(_ value: String) -> String {
        var out = ""
        var count = 0
        for scalar in value.unicodeScalars {
            count += 1
            guard count <= 60 else { continue }
            let category = scalar.properties.generalCategory
            let odd = category == .control || category == .format || category == .lineSeparator || category == .paragraphSeparator
                || category == .privateUse || category == .unassigned || (scalar.properties.isWhitespace && scalar != " ")
            out += odd ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
        }
        return "\"\(out)\"" + (count > 60 ? "… (\(count) characters)" : "")
    }
}
