import Foundation
import ReceptionCore

/// Scenes as the reference server makes them: the year from the query ("1945", "50 BCE",
/// else 1850), the place after " at " or " in ", and a cast led by the person the query
/// names first ("Oppenheimer at Trinity, 1945" → Oppenheimer), then Tomas Brenner and an
/// Old Scribe, as the stand-in of the real server casts them.
extension TimepointReferenceState {
    static let pipelineSteps = ["judge", "grounding", "timeline", "scene", "characters", "dialog"]

    func makeScene(query: String, ownerID: String?, visibility: String?, image: Bool, status: String = "completed",
                   year: Int? = nil, sequenceID: String? = nil) -> Scene {
        let id = uuid()
        let parsed = Self.parse(query)
        let failed = query.lowercased().contains("stubfail")
        var slug = query.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
        while slug.contains("--") { slug = slug.replacingOccurrences(of: "--", with: "-") }
        slug = String(slug.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(60)) + "-" + String(id.prefix(6))
        let scene = Scene(id: id, query: query, slug: slug, status: failed ? "failed" : status, year: year ?? parsed.year, location: parsed.location,
                          cast: [(parsed.primary, "primary"), ("Tomas Brenner", "secondary"), ("Old Scribe", "background")],
                          ownerID: ownerID, visibility: visibility == "private" ? "private" : "public",
                          error: failed ? "[stub] every model call failed (stubfail)" : nil, hasImage: image && !failed,
                          pendingPolls: 0, sequenceID: sequenceID ?? uuid(), created: Self.timestamp(sceneOrder.count))
        scenes[id] = scene
        sceneOrder.append(id)
        return scene
    }

    static func parse(_ query: String) -> (year: Int, location: String, primary: String) {
        let words = query.split(separator: " ").map(String.init)
        var year = 1850
        var yearWords: Set<Int> = []
        for (index, word) in words.enumerated() {
            let digits = word.trimmingCharacters(in: .punctuationCharacters)
            guard let number = Int(digits), (1...2100).contains(number), digits.count <= 4 else { continue }
            let era = index + 1 < words.count ? words[index + 1].trimmingCharacters(in: .punctuationCharacters).uppercased() : ""
            if era == "BCE" || era == "BC" {
                year = -number
                yearWords = [index, index + 1]
            } else {
                year = number
                yearWords = [index]
            }
            break
        }
        let rest = words.enumerated().filter { !yearWords.contains($0.offset) }.map(\.element).joined(separator: " ")
            .trimmingCharacters(in: CharacterSet.whitespaces.union(.punctuationCharacters))
        var subject = rest
        var place = rest
        for separator in [" at ", " in "] {
            if let range = rest.range(of: separator) {
                subject = String(rest[..<range.lowerBound])
                place = String(rest[range.upperBound...]).trimmingCharacters(in: CharacterSet.whitespaces.union(.punctuationCharacters))
                break
            }
        }
        let nameWords = subject.split(separator: " ").map(String.init)
        let isName = !nameWords.isEmpty && nameWords.count <= 4 && nameWords.allSatisfy { $0.first?.isUppercase == true }
        return (year, place.isEmpty ? "an unnamed place" : place, isName && subject != place ? subject : "Aurelia Voss")
    }

    /// `TimepointResponse`, every key present as the real server sends it.
    func json(_ scene: Scene, full: Bool, includeImage: Bool, viewer: String?) -> JSONValue {
        let redacted = scene.visibility == "private" && scene.ownerID != viewer
        let completed = scene.status == "completed"
        var object: [String: JSONValue] = [
            "id": .string(scene.id), "query": .string(scene.query), "slug": .string(scene.slug), "status": .string(scene.status),
            "year": completed ? .number(Double(scene.year)) : .null, "month": .null, "day": .null,
            "season": completed ? .string("summer") : .null, "time_of_day": completed ? .string("dawn") : .null,
            "era": .null, "location": completed ? .string(scene.location) : .null,
            "image_prompt": .null, "has_image": .bool(scene.hasImage),
            "image_url": scene.hasImage && !redacted ? .string("data:image/png;base64,\(Self.pixel)") : .null,
            "image_base64": scene.hasImage && includeImage && !redacted ? .string(Self.pixel) : .null,
            "text_model_used": .null, "image_model_used": .null, "created_at": .string(scene.created),
            "error": scene.error.map(JSONValue.string) ?? .null, "blob_folder_name": .null, "blob_path": .null, "blob_written_at": .null,
            "is_deleted": .bool(false), "sequence_id": .string(scene.sequenceID), "render_type": .string("image"), "generation_version": .number(1),
            "tags": .null, "visibility": .string(scene.visibility), "share_url": .null, "preset_used": .string("balanced"),
            "generation_time_ms": .number(12), "request_context": .null, "metadata": .null,
            "characters": .null, "scene": .null, "dialog": .null, "grounding": .null, "moment": .null,
        ]
        if full && completed && !redacted {
            object["characters"] = .object([
                "characters": .array(scene.cast.map { character in
                    .object(["name": .string(character.name), "role": .string(character.role), "description": .string("[reference] \(character.name)"),
                             "speaks_in_scene": .bool(character.role != "background")])
                }),
                "focal_character": .string(scene.cast[0].name),
            ])
            object["scene"] = .object(["setting": .string("[reference] \(scene.location), \(scene.year)")])
            object["dialog"] = .array(dialogLines(scene).map { .object(["speaker": .string($0.0), "text": .string($0.1)]) })
        }
        return .object(object)
    }

    func dialogLines(_ scene: Scene) -> [(String, String)] {
        let primary = scene.cast[0].name, second = scene.cast[1].name
        return [
            (primary, "So this is \(scene.location)."),
            (second, "It is \(scene.year < 0 ? "\(-scene.year) BCE" : String(scene.year)), and nothing will be the same."),
            (primary, "Then let us see it through."),
        ]
    }

    /// A 1×1 PNG, base64.
    static let pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4X+MMAAQwAdCrJv7PAAAAAElFTkSuQmCC"

    func scene(_ id: String) -> Scene? { scenes[id] }

    func updateScene(_ scene: Scene) { scenes[scene.id] = scene }

    /// A background generation answers `processing` to its first polls.
    func poll(_ id: String) -> Scene? {
        guard var scene = scenes[id] else { return nil }
        if scene.status == "processing" {
            if scene.pendingPolls <= 0 { scene.status = scene.error == nil ? "completed" : "failed" } else { scene.pendingPolls -= 1 }
            scenes[id] = scene
        }
        return scene
    }

    func visibleScenes(to viewer: String, visibility: String?) -> [Scene] {
        sceneOrder.reversed().compactMap { scenes[$0] }.filter { scene in
            (scene.visibility == "public" || scene.ownerID == viewer) && (visibility == nil || scene.visibility == visibility)
        }
    }

    /// A jump: a new scene in the same sequence, linked to its source.
    func jump(from source: Scene, direction: String, units: Int, unit: String) -> Scene {
        let delta = unit == "year" ? units : 0
        let year = direction == "next" ? source.year + delta : source.year - delta
        var target = makeScene(query: source.query, ownerID: nil, visibility: "public", image: true, year: year, sequenceID: source.sequenceID)
        target.cast = source.cast
        target.location = source.location
        scenes[target.id] = target
        if direction == "next" {
            links[source.id, default: (nil, nil)].next = target.id
            links[target.id, default: (nil, nil)].prior = source.id
        } else {
            links[source.id, default: (nil, nil)].prior = target.id
            links[target.id, default: (nil, nil)].next = source.id
        }
        return target
    }

    /// Both chains walked from the scene outwards, nearest first, as the real server's
    /// `GET /temporal/{id}/sequence` lists them (`prior` is the parent, then its parent, …).
    func sequence(around id: String, limit: Int) -> (prior: [Scene], next: [Scene]) {
        var prior: [Scene] = [], next: [Scene] = []
        var cursor = links[id]?.prior
        while let current = cursor, prior.count < limit, let scene = scenes[current] { prior.append(scene); cursor = links[current]?.prior }
        cursor = links[id]?.next
        while let current = cursor, next.count < limit, let scene = scenes[current] { next.append(scene); cursor = links[current]?.next }
        return (prior, next)
    }

    func nextChatSession() -> String {
        chatSessions += 1
        return "chat-\(chatSessions)"
    }
}
