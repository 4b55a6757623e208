import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionLog

/// `reception logs export ID|--all --markdown|--jsonl`: conversations as Markdown to read, or
/// as the classifier's corpus to label, evaluate and train on.
struct LogsExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a conversation (or all) as Markdown, or its messages as a corpus (JSONL).",
        discussion: """
        --jsonl writes one line per message in the corpus format reception label, eval and train read: \
        {"id", "text"}, with "intent" and "urgency" where you set them by hand (/intent set), and the \
        conversation's "goal". eval and train skip a line without both labels, with a warning; \
        --labelled keeps only the lines that have both. Without -o the export goes to standard output; \
        -o FILE writes a file readable by you only.
        """)

    @Argument(help: ArgumentHelp("The conversation (its id, or the first characters of it; `last` for the most recent).", valueName: "id"))
    var id: String?

    @Flag(name: .long, help: "Every conversation (the filters apply).")
    var all = false

    @Flag(name: .long, help: "As Markdown (the default).")
    var markdown = false

    @Flag(name: .long, help: "As a corpus, one JSON object per message.")
    var jsonl = false

    @Flag(name: .long, help: "With --jsonl: only messages whose intent and urgency you both set by hand.")
    var labelled = false

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file (0600) instead of standard output.", valueName: "file"))
    var output: String?

    @Flag(name: .long, help: "Replace the -o file if it exists.")
    var force = false

    @OptionGroup var filters: LogFilterOptions

    func validate() throws {
        try LogsCommand.checkID(id)
        guard (id != nil) != all else {
            throw ValidationError(all ? "Name one conversation (its id) or --all, not both." : "Name one conversation (its id) or --all.")
        }
        if markdown && jsonl { throw ValidationError("Choose one of --markdown and --jsonl.") }
        if labelled && !jsonl { throw ValidationError("--labelled goes with --jsonl.") }
    }

    func run() throws {
        let log = LogsCommand.log()
        guard let output else {
            // Bytes as they are: a piece can end in the middle of a character.
            let count = try LogsCommand.using(log) { try export(from: log) { _ = PrivateFile.writeAll($0, to: STDOUT_FILENO) } }
            if count == 0, let none = nothingExported { StandardStreams.writeError(none + "\n") }
            return
        }
        let url = URL(fileURLWithPath: UserPath.expand(output))
        // Whatever --force says: replacing the log with its own export destroyed it.
        if log.isOwnFile(url.path) {
            throw LogsCommand.fail("\(url.path) is one of the conversation log's own files (\(log.path), its journal or its pending lines); export to a file of its own.")
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) {
            // --force replaces a file, never a folder: say so first, not after --force.
            if isFolder.boolValue { throw LogsCommand.fail("\(url.path) is a folder; -o takes a file name, such as \(url.appendingPathComponent("conversation.md").path).") }
            if !force { throw LogsCommand.fail("\(url.path) already exists; add --force to replace it.") }
        }
        var count = 0
        /// An export with nothing in it is not written: an empty file left behind had to be
        /// replaced with --force once there was something to export (and --force replaced a
        /// file with nothing).
        struct NothingToWrite: Error {}
        do {
            // Without --force, a file made at the name after the look above is refused too.
            try PrivateFile.write(to: url, existing: force ? .replaceRegularFile : .refuse) { append in
                count = try LogsCommand.using(log) { try export(from: log, to: append) }
                if count == 0 { throw NothingToWrite() }
            }
        } catch let exit as ExitCode {
            throw exit
        } catch is NothingToWrite {
            StandardStreams.writeError("Nothing to export, so \(url.path) was not written.\n")
            if let none = nothingExported { StandardStreams.writeError(none + "\n") }
            return
        } catch {
            throw LogsCommand.fail("Cannot write \(url.path): \(PlainFile.reason(of: error))")
        }
        // How much: an export that holds nothing ("Wrote lab.jsonl.") looked like one that worked.
        StandardStreams.writeError("Wrote \(Counted.phrase(count, jsonl ? "message" : "exchange")) to \(url.path).\n")
        if count == 0, let none = nothingExported { StandardStreams.writeError(none + "\n") }
    }

    /// Why an export came out empty, when the reason is one the person may not expect.
    private var nothingExported: String? {
        labelled ? "No exchange there is labelled by hand: /intent set labels the last message, and --labelled exports only those." : nil
    }

    /// Writes the export a part at a time (`forEachExchange` reads the log in batches), in
    /// pieces of about 64 KB: an export of the whole log is never held in memory at once.
    /// Returns how many exchanges it wrote.
    @discardableResult
    private func export(from log: ConversationLog, to write: (Data) throws -> Void) throws -> Int {
        var buffer = Data()
        var count = 0
        func emit(_ text: String) throws {
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= 65_536 {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        var conversationID: String?
        if let id {
            guard let conversation = try log.conversation(id == "last" ? nil : id) else {
                throw LogsCommand.fail("There is no conversation “\(TerminalText.line(id, limit: 40))” in the log (reception logs lists them).")
            }
            conversationID = conversation.id
        }
        if jsonl {
            try log.forEachExchange(matching: filters.filter, conversation: conversationID) { exchange in
                if labelled, !ConversationExport.isLabelled(exchange) { return }
                try emit(ConversationExport.corpusLine(exchange) + "\n")
                count += 1
            }
        } else {
            let conversations = try conversationID.flatMap { try log.conversation($0) }.map { [$0] }
                ?? log.conversations(matching: filters.filter, limit: Int.max).reversed()
            for conversation in conversations {
                try emit(ConversationExport.markdownHeader(conversation))
                try log.forEachExchange(matching: filters.filter, conversation: conversation.id) { exchange in
                    try emit("\n" + ConversationExport.markdown(exchange))
                    count += 1
                }
                try emit("\n\n")
            }
        }
        if !buffer.isEmpty { try write(buffer) }
        return count
    }
}
