import Foundation
import ReceptionCore

extension TimepointCommands {
    func scene(_ arguments: [String], before output: CommandOutput? = nil) async throws -> String {
        switch arguments.first {
        case nil:
            return SceneText.summary(try currentScene())
        case "new":
            let query = arguments.dropFirst().joined(separator: " ")
            guard !query.isEmpty else { throw CommandUsage("Usage: /scene new QUERY") }
            let configuration = client.configuration
            let cost = try await stateCost("Generating a scene", cost: await backend.costs().generation(preset: configuration.preset), before: output)
            let scene = try await client.generate(GenerateRequest(query: query, generateImage: configuration.generateImage,
                                                                  preset: configuration.preset, visibility: configuration.visibility),
                                                  mode: configuration.generation == .stream ? .sync : configuration.generation)
            guard scene.status != "failed" else { return "\(cost)The scene could not be generated: \(scene.error ?? "no reason given") (scene \(scene.id))." }
            backend.setScene(scene)
            return cost + SceneText.summary(scene)
        case "list":
            var visibility: SceneVisibility?
            var page = 1
            for word in arguments.dropFirst() {
                if let value = SceneVisibility(rawValue: word) { visibility = value } else if let number = Int(word), number >= 1 { page = number } else {
                    throw CommandUsage("Usage: /scene list [public|private] [PAGE]")
                }
            }
            let list = try await client.scenes(page: page, pageSize: 20, visibility: visibility)
            guard !list.items.isEmpty else { return "No scenes\(visibility.map { " that are \($0.rawValue)" } ?? "") on page \(page)." }
            let rows = list.items.map { item in
                "| \(item.id) | \(SceneText.clip(item.query ?? "", 60)) | \(item.year.map(SceneText.year) ?? "") | \(item.status ?? "") | \(item.visibility ?? "") |"
            }
            let total = list.total.map { "\n\n\($0) in all; /scene ID opens one." } ?? ""
            return "| id | query | year | status | visibility |\n|---|---|---|---|---|\n" + rows.joined(separator: "\n") + total
        case "private", "public":
            let scene = try currentScene()
            let updated = try await client.setVisibility(scene.id, SceneVisibility(rawValue: arguments[0])!)
            var merged = scene
            merged.visibility = updated.visibility
            backend.setScene(merged)
            return "The scene is now \(updated.visibility ?? arguments[0])."
        case "image":
            let scene = try await client.scene(try currentScene().id, full: false, includeImage: true)
            guard scene.hasImage == true else { return "This scene has no image (generate_image: true in the profile makes one)." }
            let size = scene.imageBase64.map { " (\($0.count * 3 / 4 / 1024) KB as base64)" } ?? ""
            return "This scene has an image\(size)\(scene.imageURL.map { url in url.hasPrefix("data:") ? "" : " at \(url)" } ?? "")."
        default:
            guard arguments.count == 1 else { throw CommandUsage("Usage: /scene [ID] | /scene new QUERY | /scene list [public|private] [PAGE] | /scene private|public") }
            let scene = try await client.scene(try await fullSceneID(arguments[0]), full: true)
            backend.setScene(scene)
            return SceneText.summary(scene)
        }
    }

    /// The full id for what was typed: a shorter one (the first characters, as one copies
    /// them from a summary) is looked up among the hundred newest scenes the person can see.
    func fullSceneID(_ typed: String) async throws -> String {
        guard ShortID.needsLookup(typed) else { return typed }
        let list = try await client.scenes(page: 1, pageSize: 100, visibility: nil)
        return try ShortID.resolve(typed, among: list.items.map(\.id),
            none: { TimepointError.unavailable("No scene of yours starts with “\(TerminalText.line(typed, limit: 40))”; /scene list shows them.") },
            several: { TimepointError.unavailable("“\(TerminalText.line(typed, limit: 40))” starts \($0.count) scene ids; type more of it.") })
    }

    func jump(_ arguments: [String], before output: CommandOutput? = nil) async throws -> String {
        guard let direction = arguments.first.flatMap(JumpDirection.init(rawValue:)), arguments.count <= 3 else {
            throw CommandUsage("Usage: /jump next|prior [N [UNIT]]")
        }
        let units = arguments.count > 1 ? Int(arguments[1]) : 1
        let unit = arguments.count > 2 ? arguments[2].lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "s")) : "day"
        guard let units, (1...365).contains(units),
              ["second", "minute", "hour", "day", "week", "month", "year"].contains(unit) else {
            throw CommandUsage("Usage: /jump next|prior [N [UNIT]] with N from 1 to 365 and UNIT second, minute, hour, day, week, month or year.")
        }
        let scene = try currentScene()
        let cost = try await stateCost("A jump in time", cost: await backend.costs().temporalJump, before: output)
        let jump = try await client.jump(from: scene.id, direction, units: units, unit: unit)
        let target = try await client.scene(jump.targetID, full: true)
        backend.setScene(target)
        return cost + SceneText.summary(target)
    }

    func timeline() async throws -> String {
        let scene = try currentScene()
        let sequence = try await client.sequence(of: scene.id)
        func line(_ entry: TimelineSequence.Entry) -> String {
            "- \(entry.year.map(SceneText.year) ?? "?") · \(entry.slug ?? "") (\(entry.id))\(entry.id == scene.id ? " ← here" : "")"
        }
        // The server lists both chains from this scene outwards: the earlier ones nearest
        // first, so they are turned round to read in time order.
        let entries = sequence.prior.reversed() + (sequence.center.map { [$0] } ?? []) + sequence.next
        guard entries.count > 1 else { return "This scene has no linked scenes yet; /jump next or /jump prior makes one." }
        return entries.map(line).joined(separator: "\n")
    }
}
