import ReceptionCore

/// `POST /timepoints/generate[/sync|/stream]` body.
public struct GenerateRequest: Encodable, Sendable, Hashable {
    public var query: String
    public var generateImage: Bool
    public var preset: String?
    public var visibility: SceneVisibility?

    public init(query: String, generateImage: Bool = false, preset: String? = nil, visibility: SceneVisibility? = nil) {
        self.query = query
        self.generateImage = generateImage
        self.preset = preset
        self.visibility = visibility
    }

    enum CodingKeys: String, CodingKey { case query, generateImage = "generate_image", preset, visibility }
}

public enum SceneVisibility: String, Codable, Sendable, Hashable, CaseIterable {
    case `public`, `private`
}

/// `POST /timepoints/generate` answers at once with the id to poll.
public struct GenerationStarted: Decodable, Sendable, Hashable {
    public var id: String
    public var status: String?
    public var message: String?
}

/// A scene (`TimepointResponse`). Everything but `id` may be null: `GET` leaves the rich
/// parts out unless asked for `full`, and a private scene seen by another user is redacted.
public struct Timepoint: Decodable, Sendable, Hashable {
    public var id: String
    public var query: String?
    public var slug: String?
    /// pending, processing, completed or failed (kept as sent: an unknown value is not an error).
    public var status: String?
    public var year: Int?
    public var season: String?
    public var timeOfDay: String?
    public var era: String?
    public var location: String?
    public var hasImage: Bool?
    public var imageURL: String?
    public var imageBase64: String?
    public var createdAt: String?
    public var error: String?
    public var visibility: String?
    public var shareURL: String?
    public var presetUsed: String?
    public var characters: JSONValue?
    public var scene: JSONValue?
    public var dialog: JSONValue?

    enum CodingKeys: String, CodingKey {
        case id, query, slug, status, year, season, era, location, error, visibility, characters, scene, dialog
        case timeOfDay = "time_of_day", hasImage = "has_image", imageURL = "image_url", imageBase64 = "image_base64"
        case createdAt = "created_at", shareURL = "share_url", presetUsed = "preset_used"
    }

    public var isCompleted: Bool { status == "completed" }
    public var isFinished: Bool { status == "completed" || status == "failed" }

    /// The cast, as `characters.characters[].{name, role}` holds it (primary first).
    public var cast: [SceneCharacter] {
        guard case .array(let items)? = characters?["characters"] else { return [] }
        let all = items.compactMap { item -> SceneCharacter? in
            guard let name = item["name"]?.stringValue, !name.isEmpty else { return nil }
            return SceneCharacter(name: String(name.prefix(120)), role: item["role"]?.stringValue,
                                  speaks: item["speaks_in_scene"]?.boolValue ?? true)
        }
        let order = ["primary": 0, "secondary": 1, "background": 2]
        return all.enumerated().sorted { (order[$0.element.role ?? ""] ?? 1, $0.offset) < (order[$1.element.role ?? ""] ?? 1, $1.offset) }.map(\.element)
    }

    /// The scene's dialog lines (`dialog` is a list of `{speaker, text}`, or an object holding `lines`).
    public var dialogLines: [(speaker: String, text: String)] {
        let list: [JSONValue]
        switch dialog {
        case .array(let items)?: list = items
        case .object?: if case .array(let items)? = dialog?["lines"] { list = items } else { list = [] }
        default: list = []
        }
        return list.compactMap { line in
            guard let text = line["text"]?.stringValue else { return nil }
            return (line["speaker"]?.stringValue ?? "someone", text)
        }
    }
}

/// One person in a scene.
public struct SceneCharacter: Sendable, Hashable {
    public var name: String
    public var role: String?
    public var speaks: Bool

    public init(name: String, role: String? = nil, speaks: Bool = true) {
        self.name = name
        self.role = role
        self.speaks = speaks
    }
}

/// `GET /timepoints`: a page of scenes.
public struct TimepointPage: Decodable, Sendable, Hashable {
    public var items: [Timepoint]
    public var total: Int?
    public var page: Int?
    public var pageSize: Int?
    enum CodingKeys: String, CodingKey { case items, total, page, pageSize = "page_size" }
}

struct VisibilityRequest: Encodable, Sendable {
    var visibility: SceneVisibility
}
