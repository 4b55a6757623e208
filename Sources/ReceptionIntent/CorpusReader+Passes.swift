import Foundation
import ReceptionCore

extension CorpusReader {
    /// How many labels naming no message are said one by one before the rest are counted.
    static let unknownIDsShown = 5

    /// A corpus labelled by independent annotators, each pass a file of `{"id", "intent",
    /// "urgency"}` lines (or `{"id", "skip": true}`) over the messages of `texts`, as the
    /// human-written corpora in `../shared` come. A message every pass labels alike is one line,
    /// as an agreed corpus holds it. A message the passes label differently is one line per pass,
    /// each with an equal `share` of the message: a head they agree on learns the label in full,
    /// a head they split on learns the split, where an agreed corpus would drop the message and
    /// what it teaches about the head they agree on. A message a pass skipped or left out is left
    /// out (an annotator judged it unlabellable), as in an agreed corpus.
    public func read(passes passPaths: [String], texts textsPath: String) throws -> Result {
        precondition(passPaths.count >= 2, "passes are two or more independent labellings")
        var result = Result()
        func issue(_ problem: CorpusIssue) throws { try record(problem, in: &result) }
        let texts = try records(textsPath, into: &result)
        let known = Set(texts.compactMap { $0.0["id"] })
        // Each pass's label of each id: the fields and where they were read.
        var passes: [[String: ([String: String], Int)]] = []
        for path in passPaths {
            var byID: [String: ([String: String], Int)] = [:]
            var unknown = 0
            for (fields, line) in try records(path, into: &result) {
                let id: String
                switch Self.labelID(fields, line: line, path: path, textsPath: textsPath) {
                case .success(let found): id = found
                case .failure(let problem): try issue(problem); continue
                }
                if let first = byID[id] {
                    try issue(CorpusIssue(file: path, line: line, message: "the id \(CorpusText.shown(id)) was already labelled at line \(first.1); one label per message in a pass"))
                    continue
                }
                guard known.contains(id) else {
                    // A pass of another batch names thousands: the first few, then a count.
                    unknown += 1
                    if unknown <= Self.unknownIDsShown { try issue(CorpusIssue(file: path, line: line, message: "no message \(CorpusText.shown(id)) in \(textsPath)")) }
                    continue
                }
                byID[id] = (fields, line)
            }
            if unknown > Self.unknownIDsShown {
                result.notes.append("\(path): \(unknown - Self.unknownIDsShown) more labels name no message of \(textsPath) (\(unknown) in all; is it a pass over another file?)")
            }
            passes.append(byID)
        }
        let share = 1 / Double(passPaths.count)
        var skipped = 0
        var unlabelled = [Int](repeating: 0, count: passes.count)
        for (message, _) in texts {
            guard let id = message["id"], let text = message["text"] else { continue }
            var labelled: [LabelledMessage] = []
            for (index, pass) in passes.enumerated() {
                guard let (fields, line) = pass[id] else { unlabelled[index] += 1; continue }
                if Self.isSkip(fields) { continue }
                var joined = fields
                joined["text"] = text
                if let source = message["source"] { joined["source"] = source }
                switch Self.message(joined, line: line, name: passPaths[index]) {
                case .success(let label): labelled.append(label)
                case .failure(let problem): try issue(problem)
                }
            }
            guard labelled.count == passes.count else {
                if passes.allSatisfy({ $0[id] != nil }) && passes.contains(where: { Self.isSkip($0[id]!.0) }) { skipped += 1 }
                continue
            }
            if labelled.allSatisfy({ $0.intent == labelled[0].intent && $0.urgency == labelled[0].urgency }) {
                result.messages.append(labelled[0])
            } else {
                for var line in labelled {
                    line.share = share
                    result.messages.append(line)
                }
            }
        }
        if skipped > 0 {
            result.notes.append("\(textsPath): left out \(Counted.phrase(skipped, "message")) an annotator skipped (a message trains when every pass labels it)")
        }
        for (index, count) in unlabelled.enumerated() where count > 0 {
            result.notes.append("\(passPaths[index]): left out \(Counted.phrase(count, "message")) of \(textsPath) this pass has no label for (a message trains when every pass labels it)")
        }
        return result
    }
}
