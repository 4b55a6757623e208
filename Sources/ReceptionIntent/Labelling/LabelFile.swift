import Foundation
import ReceptionCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One line of a labels file: a message labelled (a corpus line `reception train` reads, with
/// what the model guessed beside it) or passed over.
public struct LabelEntry: Sendable, Hashable {
    public var id: String
    public var text: String?
    public var goal: String?
    public var intent: IntentType?
    public var urgency: UrgencyLevel?
    /// What the model guessed when the label was made.
    public var modelIntent: IntentType?
    public var modelUrgency: UrgencyLevel?
    public var skipped: Bool

    public static func labelled(_ item: LabellingItem, intent: IntentType, urgency: UrgencyLevel, guess: LabellingGuess) -> LabelEntry {
        LabelEntry(id: item.id, text: item.text, goal: item.goal, intent: intent, urgency: urgency,
                   modelIntent: guess.intent, modelUrgency: guess.urgency, skipped: false)
    }

    public static func skipped(_ item: LabellingItem) -> LabelEntry {
        LabelEntry(id: item.id, text: nil, goal: nil, intent: nil, urgency: nil, modelIntent: nil, modelUrgency: nil, skipped: true)
    }

    /// The line written: the corpus format (`id`, `text`, `intent`, `urgency`, `goal`) with
    /// `model_intent` and `model_urgency`; a skip is `{"id": …, "skip": true}`, as the shared
    /// corpora's annotation passes write it.
    public var jsonLine: String {
        let quote = IntentWeights.quote
        if skipped { return "{\"id\": \(quote(id)), \"skip\": true}" }
        var fields = ["\"id\": \(quote(id))"]
        if let text { fields.append("\"text\": \(quote(text))") }
        if let intent { fields.append("\"intent\": \(quote(intent.rawValue))") }
        if let urgency { fields.append("\"urgency\": \(quote(urgency.rawValue))") }
        if let goal { fields.append("\"goal\": \(quote(goal))") }
        if let modelIntent { fields.append("\"model_intent\": \(quote(modelIntent.rawValue))") }
        if let modelUrgency { fields.append("\"model_urgency\": \(quote(modelUrgency.rawValue))") }
        return "{" + fields.joined(separator: ", ") + "}"
    }

    init(id: String, text: String?, goal: String?, intent: IntentType?, urgency: UrgencyLevel?,
         modelIntent: IntentType?, modelUrgency: UrgencyLevel?, skipped: Bool) {
        self.id = id
        self.text = text
        self.goal = goal
        self.intent = intent
        self.urgency = urgency
        self.modelIntent = modelIntent
        self.modelUrgency = modelUrgency
        self.skipped = skipped
    }

    /// What a line of a labels file is: an entry, a label that names no intent or urgency
    /// (edited by hand: "acton"), or no line of a labels file at all.
    enum Reading {
        case entry(LabelEntry)
        case unknownLabel(String)
        case notALabelsLine
    }

    static func reading(_ fields: [String: String]) -> Reading {
        guard let id = fields["id"], !id.isEmpty else { return .notALabelsLine }
        let skipped = fields["skip"] == "true"
        guard skipped || (fields["intent"] != nil && fields["urgency"] != nil) else { return .notALabelsLine }
        let intent = fields["intent"].flatMap(IntentType.init(userInput:))
        let urgency = fields["urgency"].flatMap(UrgencyLevel.init(userInput:))
        let again = "; the message comes again to be labelled"
        if !skipped, intent == nil { return .unknownLabel(CorpusReader.unknownIntent(fields["intent"] ?? "") + again) }
        if !skipped, urgency == nil { return .unknownLabel(CorpusReader.unknownUrgency(fields["urgency"] ?? "") + again) }
        return .entry(LabelEntry(id: id, text: fields["text"], goal: fields["goal"], intent: intent, urgency: urgency,
                                 modelIntent: fields["model_intent"].flatMap(IntentType.init(userInput:)),
                                 modelUrgency: fields["model_urgency"].flatMap(UrgencyLevel.init(userInput:)), skipped: skipped))
    }
}

/// The labels file of `reception label`: JSON lines, only ever appended to, each label written
/// and flushed to the disk the moment it is made, so a session that is killed loses at most
/// the message on screen, and the next one starts after the last label. Readable by its owner
/// only (it quotes people's messages).
public final class LabelFile {
    public let path: String
    /// What the file held when it was opened (a second session resumes after these).
    public private(set) var earlier: [LabelEntry] = []
    /// Lines this session appended, with the file's length before each: what `undo` takes back.
    private var appended: [(entry: LabelEntry, offset: off_t)] = []
    /// A line the file ended with but that was never finished (a write cut short by a crash),
    /// dropped when the file was opened.
    public private(set) var repairedTail = false
    /// Lines whose label names no intent or urgency: their messages come again.
    public private(set) var issues: [CorpusIssue] = []
    private let descriptor: Int32

    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CorpusIssue(file: path, line: 0, message: "cannot be opened for labels (\(String(cString: strerror(errno))))") }
        descriptor = fd
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw CorpusIssue(file: path, line: 0, message: "is not a regular file; name a file for the labels")
        }
        // One session a file: two would offer the same messages, write them twice, and one's
        // undo would cut the other's labels off the end. The lock goes with the process.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw CorpusIssue(file: path, line: 0, message: "is open in another reception label session; quit that one first (two at once would label the same messages twice)")
        }
        let data: Data
        do { data = try PlainFile.read(path) } catch {
            close(fd)
            throw CorpusIssue(file: path, line: 0, message: (error as? PlainFile.Problem)?.reason ?? "\(error)")
        }
        var bytes = [UInt8](data)
        // A last line without its newline: whole, it is a label (added by hand, in an editor
        // that ends no file with a newline) and gets its newline; cut short, it was being
        // written when a session died, and goes (its message comes back on screen).
        if let last = bytes.last, last != 10 {
            let keep = (bytes.lastIndex(of: 10).map { $0 + 1 }) ?? 0
            let tail = Array(bytes[keep...])
            if case .success(let fields) = tail.withUnsafeBufferPointer({ FlatJSON.parse($0[...]) }), case .entry = LabelEntry.reading(fields) {
                guard lseek(fd, 0, SEEK_END) >= 0, write(fd, [UInt8(10)], 1) == 1 else {
                    close(fd)
                    throw CorpusIssue(file: path, line: 0, message: "ends without a newline, and one cannot be added (\(String(cString: strerror(errno))))")
                }
                bytes.append(10)
            }
        }
        if let last = bytes.last, last != 10 {
            let keep = (bytes.lastIndex(of: 10).map { $0 + 1 }) ?? 0
            guard ftruncate(fd, off_t(keep)) == 0 else {
                close(fd)
                throw CorpusIssue(file: path, line: 0, message: "ends in an unfinished line that cannot be removed (\(String(cString: strerror(errno))))")
            }
            bytes.removeSubrange(keep...)
            repairedTail = true
        }
        var line = 0
        var unknown: [(id: String, issue: CorpusIssue)] = []
        for raw in bytes.split(separator: 10, omittingEmptySubsequences: false) {
            line += 1
            if raw.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { continue }
            let parsed = Array(raw).withUnsafeBufferPointer { FlatJSON.parse($0[...]) }
            let why: String
            switch parsed {
            case .failure(let failure): why = "malformed JSON: \(failure.message)"
            case .success(let fields):
                switch LabelEntry.reading(fields) {
                case .entry(let entry): earlier.append(entry); continue
                case .unknownLabel(let message):
                    unknown.append((fields["id"] ?? "", CorpusIssue(file: path, line: line, message: message)))
                    continue
                case .notALabelsLine: why = "no id with a text, intent and urgency, nor an id with \"skip\": true"
                }
            }
            close(fd)
            throw CorpusIssue(file: path, line: line, message: "is not a line of a labels file (\(why)); is this the labels file you meant? Mend the line, or name another file with --out")
        }
        // A mistaken label labelled again later (in a later session) is mended: no warning.
        let labelled = Set(earlier.map(\.id))
        issues = unknown.filter { !labelled.contains($0.id) }.map(\.issue)
        // Whatever the umask made of an earlier file: it holds people's messages.
        fchmod(fd, 0o600)
    }

    deinit {
        // Unlocked before it is closed: a child process forked meanwhile (between its fork
        // and its exec) holds a copy of the descriptor, and with it the lock, which would
        // refuse the next session on this file for no reason.
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Ids already labelled or skipped, in this session or before it.
    public var done: Set<String> { Set(earlier.map(\.id) + appended.map(\.entry.id)) }

    /// Which of `items` are labelled or skipped here: an entry with the item's id and its text
    /// (or no text, as a hand-written line may have). An id that comes back with another text
    /// is another message (two messages under one id, their lines reordered): labelling it
    /// again costs a key, taking it for done would lose it.
    public func labelled(_ items: [LabellingItem]) -> [Bool] {
        var texts: [String: [String?]] = [:]
        for entry in entries { texts[entry.id, default: []].append(entry.text) }
        return items.map { item in texts[item.id]?.contains { $0 == nil || $0 == item.text } == true }
    }
    /// Every entry: the earlier ones, then this session's.
    public var entries: [LabelEntry] { earlier + appended.map(\.entry) }
    public var sessionEntries: [LabelEntry] { appended.map(\.entry) }

    /// Appends the entry's line and flushes it to the disk before returning.
    public func append(_ entry: LabelEntry) throws {
        let offset = lseek(descriptor, 0, SEEK_END)
        guard offset >= 0 else { throw failure("cannot be written") }
        let bytes = Array((entry.jsonLine + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                ftruncate(descriptor, offset)
                throw failure("cannot be written")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw failure("cannot be flushed to the disk") }
        appended.append((entry, offset))
    }

    /// Takes back the last line this session wrote; nil when it wrote none.
    @discardableResult
    public func undo() throws -> LabelEntry? {
        guard let last = appended.last else { return nil }
        guard ftruncate(descriptor, last.offset) == 0 else { throw failure("cannot be shortened to take the label back") }
        fsync(descriptor)
        appended.removeLast()
        return last.entry
    }

    private func failure(_ what: String) -> CorpusIssue {
        CorpusIssue(file: path, line: 0, message: "\(what) (\(String(cString: strerror(errno))))")
    }
}
