/// One line of `reception classify --jsonl-input`: a message to classify, read by the same
/// JSON reader as a corpus line, so that a line `eval` reads (a numeric id or text, `null`
/// for a missing goal) reads the same way here, and a line it refuses is refused with the
/// same located words.
public struct InputLine: Sendable, Hashable {
    public var text: String
    public var id: String?
    public var goal: String?
}

extension CorpusReader {
    /// The message on `line`, or why it is not one (`file:line: …` is the caller's to add).
    public static func inputLine(_ line: String) -> Swift.Result<InputLine, InputLineProblem> {
        var bytes = Array(line.utf8)
        while let last = bytes.last, last == 13 || last == 10 { bytes.removeLast() }
        let parsed = bytes.withUnsafeBufferPointer { FlatJSON.parse($0[...]) }
        switch parsed {
        case .failure(let error):
            return .failure(InputLineProblem(message: "malformed JSON: \(error.message)"))
        case .success(let fields):
            guard let text = fields["text"] else { return .failure(InputLineProblem(message: "no \"text\" field")) }
            guard text.utf8.contains(where: { $0 > 32 }) else { return .failure(InputLineProblem(message: "the \"text\" is empty")) }
            func optional(_ key: String) -> String? { fields[key].flatMap { $0.isEmpty ? nil : $0 } }
            return .success(InputLine(text: text, id: optional("id"), goal: optional("goal")))
        }
    }
}

public struct InputLineProblem: Error, Sendable, Hashable {
    public var message: String
}
