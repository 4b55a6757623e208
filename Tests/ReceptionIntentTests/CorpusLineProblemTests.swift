import Foundation
import Testing
@testable import ReceptionIntent
import ReceptionTestSupport

/// Lines of a corpus (and of `classify --jsonl-input`) that are not messages, as a newcomer's
/// trial met them: each said once in the same words wherever it is read, and a file of
/// thousands of them said in a few lines.
@Suite("Corpus line problems", .onTheCPULane)
struct CorpusLineProblemTests {
    /// A number, a boolean, a list or an object is no message: `{"text": 5}` was read as the
    /// message "5" without a word, while `{"text": ["a"]}` was called missing.
    @Test func aTextThatIsNotAStringIsSaidToBeOne() throws {
        let values = ["5", "-1.5e3", "true", "false", #"["a"]"#, #"{"a": "b"}"#]
        let lines = values.map { #"{"text": \#($0), "intent": "action", "urgency": "soon"}"# }
            + [#"{"text": null, "intent": "action", "urgency": "soon"}"#, #"{"id": 7, "text": "why is the sky blue", "intent": "curiosity", "urgency": "soon"}"#]
        let result = try CorpusReader().read(text: lines.joined(separator: "\n"), name: "t.jsonl", format: .jsonl)
        #expect(result.messages.map(\.text) == ["why is the sky blue"] && result.messages.first?.id == "7", "a numeric id is still read")
        #expect(result.issues.map(\.description) == (1...values.count).map { "t.jsonl:\($0): \"text\" must be a string" }
                + ["t.jsonl:\(values.count + 1): missing or empty \"text\""])
        for (index, line) in lines.enumerated() {
            let read = CorpusReader.inputLine(line)
            switch (read, index) {
            case (.success(let input), lines.count - 1): #expect(input.text == "why is the sky blue" && input.id == "7")
            case (.failure(let problem), _): #expect(problem.message == result.issues[index].message, "the same words as eval: \(line)")
            default: Issue.record("\(line) was read as \(read)")
            }
        }
    }
}

/// A file of thousands of bad lines (a labels file given as a corpus printed 3,112 warnings)
/// is said in a few lines a kind, and a labels file is said to be one.
@Suite("Skipped-line warnings", .onTheCPULane)
struct SkippedLineWarningTests {
    static let good = #"{"text": "why is the sky blue", "intent": "curiosity", "urgency": "exploratory"}"#

    @Test func eachKindOfProblemIsSaidAtAFewLinesThenCounted() throws {
        var lines = [Self.good]
        for n in 0..<12 { lines.append(#"{"id": "m\#(n)", "text": "", "intent": "action", "urgency": "soon"}"#) }
        for n in 0..<7 { lines.append(#"{"text": "hi", "intent": "feeling\#(n)", "urgency": "soon"}"#) }
        lines += [#"{"text": "hi", "intent": "action""#, #"{"text": "hi", "intent": "action", "urgency": "later"}"#]
        let result = try CorpusReader().read(text: lines.joined(separator: "\n"), name: "c.jsonl", format: .jsonl)
        #expect(result.issues.count == 21)
        let warnings = result.skippedLineWarnings
        #expect(warnings.count == 5 + 5 + 2 + 2, "\(warnings.joined(separator: "\n"))")
        #expect(Array(warnings.prefix(5)) == (2...6).map { "warning: c.jsonl:\($0): missing or empty \"text\" (skipped)" })
        #expect(warnings[5] == #"warning: c.jsonl:14: unknown intent "feeling0" (expected decision, research, action, curiosity, validation) (skipped)"#)
        #expect(warnings.contains { $0.hasPrefix("warning: c.jsonl:21: malformed JSON") } && warnings.contains { $0.hasPrefix("warning: c.jsonl:22: unknown urgency \"later\"") })
        #expect(Array(warnings.suffix(2)) == [#"warning: c.jsonl: 7 more lines skipped: missing or empty "text" (12 lines in all)"#,
                                              "warning: c.jsonl: 2 more lines skipped: unknown intent (7 lines in all)"])
        #expect(!warnings.contains { $0.hasPrefix("note:") }, "lines with a text: a corpus, not a labels file")
        #expect(throws: CorpusIssue.self) { try CorpusReader(strict: true).read(text: lines.joined(separator: "\n"), name: "c.jsonl", format: .jsonl) }
    }

    /// Counted in each file apart, each by its own kind: `missing "intent"` is not `missing
    /// "urgency"`, and "expected 3 fields, found 2" and "…, found 4" are one kind.
    @Test func kindsAreCountedPerFile() throws {
        var result = try CorpusReader().read(text: Array(repeating: #"{"text": "hi", "urgency": "soon"}"#, count: 6).joined(separator: "\n"), name: "a.jsonl", format: .jsonl)
        let other = try CorpusReader().read(text: "text,intent,urgency\n" + Array(repeating: "hi,action", count: 6).joined(separator: "\n")
                                           + "\n" + Array(repeating: "hi,action,soon,now", count: 6).joined(separator: "\n"), name: "b.csv", format: .csv)
        result.issues += other.issues
        let warnings = result.skippedLineWarnings
        #expect(warnings.filter { $0.contains(" more line") } == [#"warning: a.jsonl: 1 more line skipped: missing "intent" (6 lines in all)"#,
                                                                 "warning: b.csv: 7 more lines skipped: expected 3 fields (12 lines in all)"],
                "\(warnings.joined(separator: "\n"))")
        #expect(CorpusReader.Result.kind(of: #"missing "urgency""#) == #"missing "urgency""#)
        #expect(CorpusReader.Result.kind(of: #"no message "x-1" in texts.jsonl"#) == "no message in texts.jsonl")
    }

    /// Every line an id or labels and none a text: a labels file, which `train --labels` reads
    /// with its messages. Said once, after the file's few warnings.
    @Test func aLabelsFileIsSaidToBeOne() throws {
        let labels = (0..<40).map { n in n % 4 == 0 ? #"{"id": "m\#(n)", "skip": true}"# : #"{"id": "m\#(n)", "intent": "action", "urgency": "soon"}"# }
        let result = try CorpusReader().read(text: labels.joined(separator: "\n"), name: "labels_a.jsonl", format: .jsonl)
        let warnings = result.skippedLineWarnings
        #expect(warnings.count == 7, "\(warnings.joined(separator: "\n"))")
        #expect(warnings[5] == #"warning: labels_a.jsonl: 25 more lines skipped: missing or empty "text" (30 lines in all)"#)
        #expect(warnings[6].hasPrefix("note: labels_a.jsonl looks like a labels file") && warnings[6].contains("reception train --labels FILE --texts MESSAGES"))
        // One line with a text, or lines with neither labels nor an id, and it is no labels file.
        for text in [(labels + [Self.good]).joined(separator: "\n"), #"{"x": 1}"# + "\n" + #"{"goal": "g"}"#] {
            let read = try CorpusReader().read(text: text, name: "c.jsonl", format: .jsonl)
            #expect(!read.skippedLineWarnings.contains { $0.hasPrefix("note:") }, "\(text)")
        }
    }
}

/// The other two readers of JSON lines read a "text" as the corpus reader does: `reception
/// label`'s input and the texts file of `train --labels --texts` took `{"text": 5}` as "5".
@Suite("Text that is not a string, in every reader", .onTheCPULane)
struct NonStringTextInEveryReaderTests {
    @Test func labelsInputSaysATextThatIsNotAString() throws {
        let lines = [#"{"id": "a", "text": 5}"#, #"{"id": "b", "text": "book a table for two"}"#]
        let read = try LabellingInput.read(data: Data(lines.joined(separator: "\n").utf8), name: "mine.jsonl", format: .jsonl)
        #expect(read.items.map(\.text) == ["book a table for two"], "\(read.items)")
        #expect(read.issues.map(\.description) == ["mine.jsonl:1: \"text\" must be a string (skipped)"], "\(read.issues)")
    }

    @Test func aTextsFileSaysATextThatIsNotAString() throws {
        let folder = Scratch.root.appendingPathComponent("reception-texts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let texts = folder.appendingPathComponent("messages.jsonl"), labels = folder.appendingPathComponent("labels.jsonl")
        try [#"{"id": "a", "text": 5}"#, #"{"id": "b", "text": "book a table for two"}"#].joined(separator: "\n")
            .write(to: texts, atomically: true, encoding: .utf8)
        try [#"{"id": "a", "intent": "action", "urgency": "soon"}"#, #"{"id": "b", "intent": "action", "urgency": "soon"}"#]
            .joined(separator: "\n").write(to: labels, atomically: true, encoding: .utf8)
        let result = try CorpusReader().read(labels: labels.path, texts: texts.path)
        #expect(result.messages.map(\.text) == ["book a table for two"], "\(result.messages)")
        let said = result.issues.map(\.description)
        #expect(said.contains("\(texts.path):1: \"text\" must be a string") && said.contains { $0.hasPrefix("\(labels.path):1: no message \"a\"") },
                "\(said)")
    }
}

/// A corpus on standard input or a named pipe is read to the same bound as a file; past it,
/// it was cut there without a word and the rest of the corpus left out.
@Suite("A corpus stream past its bound", .onTheCPULane)
struct CorpusStreamBoundTests {
    @Test func moreThanTheBoundIsRefusedNotCut() throws {
        let pipe = Pipe.forChild()
        try pipe.fileHandleForWriting.write(contentsOf: Data(repeating: 0x61, count: 3 << 10))
        try pipe.fileHandleForWriting.close()
        #expect {
            _ = try CorpusReader.stream(pipe.fileHandleForReading, name: "standard input", limit: 1 << 10)
        } throws: { "\($0)".contains("standard input") && "\($0)".contains("holds more than") }
        let fits = Pipe.forChild()
        try fits.fileHandleForWriting.write(contentsOf: Data(repeating: 0x61, count: 1 << 10))
        try fits.fileHandleForWriting.close()
        #expect(try CorpusReader.stream(fits.fileHandleForReading, name: "standard input", limit: 1 << 10).count == 1 << 10)
    }
}
