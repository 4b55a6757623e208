import ReceptionCore

struct ChatRequest: Encodable, Sendable {
    var character: String
    var message: String
    var sessionID: String?
    enum CodingKeys: String, CodingKey { case character, message, sessionID = "session_id" }
}

/// `POST /interactions/{id}/chat`.
public struct CharacterReply: Decodable, Sendable, Hashable {
    public var characterName: String
    public var response: String
    public var sessionID: String?
    public var emotionalTone: String?
    enum CodingKeys: String, CodingKey {
        case characterName = "character_name", response, sessionID = "session_id", emotionalTone = "emotional_tone"
    }
}

struct DialogRequest: Encodable, Sendable {
    var numLines: Int
    var prompt: String?
    enum CodingKeys: String, CodingKey { case numLines = "num_lines", prompt }
}

/// `POST /interactions/{id}/dialog`: new lines, each `{speaker, text, ...}`.
public struct DialogReply: Decodable, Sendable, Hashable {
    public var dialog: [JSONValue]
    public var context: String?
    public var lines: [(speaker: String, text: String)] {
        dialog.compactMap { line in line["text"]?.stringValue.map { (line["speaker"]?.stringValue ?? "someone", $0) } }
    }
    public static func == (a: DialogReply, b: DialogReply) -> Bool { a.dialog == b.dialog && a.context == b.context }
    public func hash(into hasher: inout Hasher) { hasher.combine(dialog) }
}

struct SurveyRequest: Encodable, Sendable {
    var questions: [String]
    var includeSummary: Bool
    enum CodingKeys: String, CodingKey { case questions, includeSummary = "include_summary" }
}

/// `POST /interactions/{id}/survey`: every character's answer.
public struct SurveyReply: Decodable, Sendable, Hashable {
    public var responses: [JSONValue]
    public var summary: String?

    /// Who said what; the item keys vary (`character_name` or `character`, `response` or `answer`).
    public var answers: [(speaker: String, text: String)] {
        responses.compactMap { item in
            let speaker = item["character_name"]?.stringValue ?? item["character"]?.stringValue ?? "someone"
            guard let text = item["response"]?.stringValue ?? item["answer"]?.stringValue ?? item["text"]?.stringValue else { return nil }
            return (speaker, text)
        }
    }
    public static func == (a: SurveyReply, b: SurveyReply) -> Bool { a.responses == b.responses && a.summary == b.summary }
    public func hash(into hasher: inout Hasher) { hasher.combine(responses) }
}

/// `POST /temporal/{id}/next|prior` body.
struct TemporalRequest: Encodable, Sendable {
    var units: Int
    var unit: String
}

public enum JumpDirection: String, Sendable, Hashable { case next, prior }

/// What a jump answers: the new scene's id and where it landed.
public struct Jump: Decodable, Sendable, Hashable {
    public var sourceID: String
    public var targetID: String
    public var sourceYear: Int?
    public var targetYear: Int?
    public var direction: String?
    public var units: Int?
    public var unit: String?
    public var message: String?
    enum CodingKeys: String, CodingKey {
        case sourceID = "source_id", targetID = "target_id", sourceYear = "source_year", targetYear = "target_year"
        case direction, units, unit, message
    }
}

/// `GET /temporal/{id}/sequence`: the linked timeline around a scene.
public struct TimelineSequence: Decodable, Sendable, Hashable {
    public struct Entry: Decodable, Sendable, Hashable {
        public var id: String
        public var year: Int?
        public var slug: String?
    }
    public var center: Entry?
    public var prior: [Entry]
    public var next: [Entry]

    enum CodingKeys: String, CodingKey { case center, prior, next }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        center = try c.decodeIfPresent(Entry.self, forKey: .center)
        prior = try c.decodeIfPresent([Entry].self, forKey: .prior) ?? []
        next = try c.decodeIfPresent([Entry].self, forKey: .next) ?? []
    }
}
