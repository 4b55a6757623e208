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
