import Foundation

extension TimepointClient {
    /// `POST /interactions/{id}/chat` (1 credit).
    public func chat(scene: String, character: String, message: String, sessionID: String? = nil) async throws -> CharacterReply {
        try await call(CharacterReply.self, .POST, "/interactions/\(Self.pathSegment(scene))/chat",
                       body: ChatRequest(character: character, message: message, sessionID: sessionID))
    }

    /// `POST /interactions/{id}/dialog`: more lines among the cast.
    public func dialog(scene: String, lines: Int = 5, prompt: String? = nil) async throws -> DialogReply {
        try await call(DialogReply.self, .POST, "/interactions/\(Self.pathSegment(scene))/dialog",
                       body: DialogRequest(numLines: min(max(lines, 1), 10), prompt: prompt))
    }

    /// `POST /interactions/{id}/survey`: one question to every character.
    public func survey(scene: String, question: String) async throws -> SurveyReply {
        try await call(SurveyReply.self, .POST, "/interactions/\(Self.pathSegment(scene))/survey",
                       body: SurveyRequest(questions: [question], includeSummary: false))
    }

    /// `POST /temporal/{id}/next|prior` (2 credits): a new scene before or after this one.
    public func jump(from scene: String, _ direction: JumpDirection, units: Int = 1, unit: String = "day") async throws -> Jump {
        try await call(Jump.self, .POST, "/temporal/\(Self.pathSegment(scene))/\(direction.rawValue)",
                       body: TemporalRequest(units: units, unit: unit))
    }

    /// `GET /temporal/{id}/sequence`.
    public func sequence(of scene: String, limit: Int = 10) async throws -> TimelineSequence {
        try await call(TimelineSequence.self, .GET, "/temporal/\(Self.pathSegment(scene))/sequence",
                       query: [("direction", "both"), ("limit", String(min(max(limit, 1), 50)))])
    }
}
