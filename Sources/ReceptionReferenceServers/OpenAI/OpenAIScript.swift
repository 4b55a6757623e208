import Foundation
import ReceptionCore

/// The reference model: a deterministic answer built from the conversation, cut into small
/// chunks, with words in the last user message choosing how the stream behaves.
///
/// | word | the stream |
/// |---|---|
/// | (none) | role chunk, 3-character content chunks, finish `stop`, `[DONE]` |
/// | `slow` | the slow chunk pause, and a `: ping` comment first |
/// | `nodone` | finish chunk, then the connection closes without `[DONE]` |
/// | `cut` | `[DONE]` after a few chunks and no finish reason (llama.cpp, when another request interrupts) |
/// | `dropped` | the connection closes mid-answer, nothing more |
/// | `stalled` | the role chunk and one content chunk, then silence with the connection open (a stuck model) |
/// | `halfway` | half the answer's chunks, then silence with the connection open (a test can stop the client mid-answer whatever the machine's load) |
/// | `overflow` | 200 with an empty body (a streamed prompt longer than the context) |
/// | `errorbody` | 400 with an OpenAI error body |
/// | `busy` | 429 with `Retry-After: 1` the first time, then an answer |
/// | `reasoning` | `reasoning_content` chunks before the answer |
/// | `long` / `max_tokens` | finish `length` |
/// | `escapes` | `reasoning_content` and content wrapped in escape sequences (`HostileText`), a whole sequence per chunk |
/// | `escapeerror` | 400 whose OpenAI error message is wrapped in escape sequences |
/// | `garbagejson` | an event stream whose first `data:` line is not JSON |
/// | `garbageutf8` | an event stream with bytes that are not UTF-8 in a `data:` line |
/// | `garbagehtml` | 200 with an HTML page (a captive portal, a proxy) where the event stream was expected |
///
/// A rewrite request (the last user message is `Prompts/rewrite.mustache`'s: it starts with
/// "Rewrite the text below" and ends with "Text:" and the text) is answered with the text
/// reworded without touching a fact ("Okay." becomes "Very well.", "said" "put it as"),
/// unless words in the text to rewrite script a damaged rewrite (the words above still
/// shape the stream; only the text is searched for them, not the persona in the prompt):
///
/// | word | the rewrite |
/// |---|---|
/// | `changenumber` | its first digit is one more (9 becomes 0) |
/// | `dropurl` | its first link is left out |
/// | `addnumber` | ends with "That makes 42 in all." |
/// | `addname` | ends with "Ask Margaret Hamilton." |
struct OpenAIScript {
    enum Step { case pause, data(String), comment(String), stall }

    let messages: [JSONValue]
    let model: String
    let maxTokens: Int?
    let lastUser: String
    /// The text to rewrite, when this is a rewrite request.
    let rewriteText: String?
    let id = "chatcmpl-reference"

    init(messages: [JSONValue], model: String, maxTokens: Int?) {
        self.messages = messages
        self.model = model
        self.maxTokens = maxTokens
        var lastUser = messages.last { $0["role"]?.stringValue == "user" }?["content"]?.stringValue ?? ""
        // The person's words, without the guidance Reception adds after them: only their words
        // are echoed and script the stream.
        if let guidance = lastUser.range(of: "\n\n" + ReceptionRequest.answerGuidanceOpening, options: .backwards) {
            lastUser = String(lastUser[..<guidance.lowerBound])
        }
        self.lastUser = lastUser
        if lastUser.hasPrefix("Rewrite the text below"), let marker = lastUser.range(of: "\nText:\n", options: .backwards) {
            rewriteText = lastUser[marker.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            rewriteText = nil
        }
    }

    func has(_ word: String) -> Bool { (rewriteText ?? lastUser).lowercased().contains(word) }

    /// "Okay. You said: hello. We utilize the same words. I am Ambrose. This is message 2 of our conversation."
    /// The name comes from the system prompt ("You are NAME,"), so a soul change shows in the
    /// answer; the count comes from the user messages, so history shows too. "Okay" and
    /// "utilize" are words the shipped souls replace, and both span chunk boundaries.
    var answer: String {
        if let rewriteText { return rewrite(rewriteText) }
        let system = messages.first { $0["role"]?.stringValue == "system" }?["content"]?.stringValue
        let userCount = messages.filter { $0["role"]?.stringValue == "user" }.count
        var parts = ["Okay. You said: \(lastUser.prefix(2000)). We utilize the same words."]
        if let name = system.flatMap(Self.name(inSystemPrompt:)) { parts.append("I am \(name).") }
        else { parts.append("No system prompt reached me.") }
        parts.append("This is message \(userCount) of our conversation.")
        return parts.joined(separator: " ")
    }

    /// The reference model's rewrite: reworded, facts kept, unless the text scripts damage.
    func rewrite(_ text: String) -> String {
        var result = text
        var reworded = false
        for (from, to) in [("Okay.", "Very well."), (" said", " put it as"), (" utilize ", " employ "), ("This is ", "Here we have ")]
        where result.contains(from) {
            result = result.replacingOccurrences(of: from, with: to)
            reworded = true
        }
        if !reworded { result = "Indeed: " + result }
        if has("changenumber"), let digit = result.firstIndex(where: { $0.isASCII && $0.isNumber }) {
            let value = (Int(String(result[digit]))! + 1) % 10
            result.replaceSubrange(digit...digit, with: String(value))
        }
        if has("dropurl"), let start = result.range(of: "http")?.lowerBound {
            let end = result[start...].firstIndex(where: { $0.isWhitespace }) ?? result.endIndex
            let from = start > result.startIndex && result[result.index(before: start)] == " " ? result.index(before: start) : start
            result.removeSubrange(from..<end)
        }
        if has("addnumber") { result += " That makes 42 in all." }
        if has("addname") { result += " Ask Margaret Hamilton." }
        return result
    }

    static func name(inSystemPrompt text: String) -> String? {
        guard let range = text.range(of: "You are ") else { return nil }
        let rest = text[range.upperBound...]
        let name = rest.prefix { $0 != "," && $0 != "." && $0 != "\n" }
        return name.isEmpty ? nil : String(name.prefix(60))
    }

    var pieces: [String] {
        var result: [String] = []
        var current = ""
        for character in answer {
            current.append(character)
            if current.count == 3 { result.append(current); current = "" }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    var finishReason: String { has("long") || (maxTokens.map { $0 < pieces.count } ?? false) ? "length" : "stop" }

    func events(includeUsage: Bool) -> [Step] {
        var steps: [Step] = []
        if has("slow") { steps.append(.comment("ping - reference")) }
        steps.append(.data(chunk(delta: ["role": .string("assistant")])))
        if has("escapes") {
            // A hostile model: each field it sends carries its words between escape sequences.
            steps += [.pause, .data(chunk(delta: ["reasoning_content": .string(HostileText.around("Reasoningwords"))]))]
            for piece in [HostileText.around("Contentwords"), " arrive ", HostileText.around("whole.")] {
                steps += [.pause, .data(chunk(delta: ["content": .string(piece)]))]
            }
            return steps + [.data(chunk(delta: [:], finish: "stop")), .data("[DONE]")]
        }
        if has("reasoning") {
            for thought in ["Let me think. ", "The person said \(lastUser.prefix(40)).", "\nI will answer."] {
                steps += [.pause, .data(chunk(delta: ["reasoning_content": .string(thought)]))]
            }
        }
        var pieces = pieces
        if let maxTokens, maxTokens < pieces.count { pieces = Array(pieces.prefix(maxTokens)) }
        for (index, piece) in pieces.enumerated() {
            steps += [.pause, .data(chunk(delta: ["content": .string(piece)]))]
            if has("cut"), index == 4 { return steps + [.data("[DONE]")] }
            if has("dropped"), index == 6 { return steps }
            if has("stalled"), index == 0 { return steps + [.stall] }
            if has("halfway"), index == pieces.count / 2 { return steps + [.stall] }
        }
        steps.append(.data(chunk(delta: [:], finish: finishReason)))
        if includeUsage {
            steps.append(.data(Wire.jsonString(JSONValue.object([
                "id": .string(id), "object": .string("chat.completion.chunk"), "model": .string(model), "choices": .array([]),
                "usage": .object(["prompt_tokens": .number(Double(promptTokens)), "completion_tokens": .number(Double(pieces.count)),
                                  "total_tokens": .number(Double(promptTokens + pieces.count))]),
            ]))))
        }
        if has("nodone") { return steps }
        return steps + [.data("[DONE]")]
    }

    var promptTokens: Int { messages.reduce(0) { $0 + ($1["content"]?.stringValue?.count ?? 0) / 4 } }

    func chunk(delta: [String: JSONValue], finish: String? = nil) -> String {
        Wire.jsonString(JSONValue.object([
            "id": .string(id), "object": .string("chat.completion.chunk"), "created": .number(1_790_000_000), "model": .string(model),
            "choices": .array([.object(["index": .number(0), "delta": .object(delta), "logprobs": .null,
                                        "finish_reason": finish.map(JSONValue.string) ?? .null])]),
        ]))
    }

    func completion() -> JSONValue {
        .object([
            "id": .string(id), "object": .string("chat.completion"), "created": .number(1_790_000_000), "model": .string(model),
            "choices": .array([.object(["index": .number(0), "message": .object(["role": .string("assistant"), "content": .string(answer)]),
                                        "logprobs": .null, "finish_reason": .string(finishReason)])]),
            "usage": .object(["prompt_tokens": .number(Double(promptTokens)), "completion_tokens": .number(Double(pieces.count)),
                              "total_tokens": .number(Double(promptTokens + pieces.count))]),
        ])
    }
}
