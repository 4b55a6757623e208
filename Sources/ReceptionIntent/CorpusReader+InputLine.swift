/// One line of `reception classify --jsonl-input`: a message to classify, read by the same
/// JSON reader as a corpus line, so that a line `eval` reads (a numeric id, `null` for a
/// missing goal) reads the same way here, and a line it refuses (a "text" that is not a
/// string) is refused with the same located words.
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
        var nonStrings: [String] = []
        let parsed = bytes.withUnsafeBufferPointer { FlatJSON.parse($0[...], nonStrings: &nonStrings) }
        switch parsed {
        case .failure(let error):
            return .failure(InputLineProblem(message: "malformed JSON: \(error.message)"))
        case .success(let fields):
            if nonStrings.contains("text") { return .failure(InputLineProblem(message: textNotAString)) }
            guard let text = messageText(fields) else { return .failure(InputLineProblem(message: missingText)) }
            return .success(InputLine(text: text, id: optional("id", in: fields), goal: optional("goal", in: fields)))
        }
    }
}

public struct InputLineProblem: Error, Sendable, Hashable {
    public var message: String
}
