import Foundation
import ReceptionCore

extension CorpusReader {
    /// Labels kept apart from their texts. `labels` holds `{"id", "intent", "urgency"}` lines (an
    /// adjudication of a third-party corpus, which may live in the project when the texts may
    /// not); `texts` holds that corpus's `{"id", "text", "source"}` lines, read where they lie
    /// and never copied. Each label takes its message's text and source. A label whose id has
    /// no text, or that carries a text of its own (the project keeps ids and labels only), is
    /// an issue at its line.
    public func read(labels labelsPath: String, texts textsPath: String) throws -> Result {
        var result = Result()
        func issue(_ problem: CorpusIssue) throws { try record(problem, in: &result) }
        var byID: [String: [String: String]] = [:]
        for (fields, _) in try records(textsPath, into: &result) {
            if let id = fields["id"] { byID[id] = fields }
        }
        for (fields, line) in try records(labelsPath, into: &result) {
            // A message the annotator passed over (`{"id", "skip": true}`) is no label, and no mistake.
            if Self.isSkip(fields) { continue }
            let id: String
            switch Self.labelID(fields, line: line, path: labelsPath, textsPath: textsPath) {
            case .success(let found): id = found
            case .failure(let problem): try issue(problem); continue
            }
            guard let message = byID[id] else {
                try issue(CorpusIssue(file: labelsPath, line: line, message: "no message \"\(id)\" in \(textsPath)"))
                continue
            }
            var joined = fields
            joined["text"] = message["text"]
            if let source = message["source"] { joined["source"] = source }
            switch Self.message(joined, line: line, name: labelsPath) {
            case .success(let labelled): result.messages.append(labelled)
            case .failure(let problem): try issue(problem)
            }
        }
        return result
    }

    /// A problem with a line: thrown when `strict`, else kept with the result (the line skipped).
    func record(_ problem: CorpusIssue, in result: inout Result) throws {
        if strict { throw problem }
        result.issues.append(problem)
    }

    /// A JSONL file's records with their line numbers; its malformed lines are `record`ed.
    func records(_ path: String, into result: inout Result) throws -> [([String: String], Int)] {
        let read = try Self.jsonRecords(path: path)
        for problem in read.issues { try record(problem, in: &result) }
        return read.records
    }

    /// `{"id", "skip": true}`: an annotator's pass over a message they would not label.
    static func isSkip(_ fields: [String: String]) -> Bool {
        fields["skip"] == "true" && fields["intent"] == nil && fields["urgency"] == nil
    }

    /// The id of a label line kept apart from its text; a line without one, or with a text of
    /// its own (the texts are read from `textsPath`, never copied beside the labels), is an issue.
    static func labelID(_ fields: [String: String], line: Int, path: String, textsPath: String) -> Swift.Result<String, CorpusIssue> {
        guard let id = fields["id"], !id.isEmpty else { return .failure(CorpusIssue(file: path, line: line, message: "missing \"id\"")) }
        guard fields["text"] == nil else {
            return .failure(CorpusIssue(file: path, line: line, message: "a label line carries no \"text\": it is read from \(textsPath)"))
        }
        return .success(id)
    }

    /// The flat JSON objects of a JSONL file with their line numbers; malformed lines as issues.
    static func jsonRecords(path: String) throws -> (records: [([String: String], Int)], issues: [CorpusIssue]) {
        let data: Data
        do { data = try PlainFile.read(path) } catch let problem as PlainFile.Problem {
            throw CorpusIssue(file: path, line: 0, message: problem.reason)
        }
        var records: [([String: String], Int)] = []
        var issues: [CorpusIssue] = []
        let bytes = [UInt8](data)
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0, line = 0
            while start < buffer.count {
                line += 1
                var end = start
                while end < buffer.count && buffer[end] != 10 { end += 1 }
                var stop = end
                if stop > start && buffer[stop - 1] == 13 { stop -= 1 }
                let slice = buffer[start..<stop]
                if !slice.allSatisfy({ $0 == 32 || $0 == 9 }) {
                    var nonStrings: [String] = []
                    switch FlatJSON.parse(slice, nonStrings: &nonStrings) {
                    case .success where nonStrings.contains("text"):
                        // As a corpus line is read: {"text": 5} is no message anyone wrote.
                        issues.append(CorpusIssue(file: path, line: line, message: textNotAString))
                    case .success(let fields): records.append((fields, line))
                    case .failure(let error): issues.append(CorpusIssue(file: path, line: line, message: "malformed JSON: \(error.message)"))
                    }
                }
                start = end + 1
            }
        }
        return (records, issues)
    }
}
