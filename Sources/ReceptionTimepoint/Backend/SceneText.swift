import Foundation

/// A scene and the answers of its people, as neutral Markdown for the soul to wrap. Server
/// text is shortened here; the front end cleans it of control characters when it prints.
public enum SceneText {
    public static func summary(_ scene: Timepoint) -> String {
        var lines: [String] = []
        let title = clip(scene.query ?? scene.slug ?? "A scene", 200)
        let when = [scene.year.map(year), scene.season, scene.timeOfDay].compactMap { $0 }.joined(separator: ", ")
        let place = scene.location.map { clip($0, 200) }
        let setting = [when.isEmpty ? nil : when, place].compactMap { $0 }.joined(separator: " · ")
        // The id goes on the first line: a soul that shortens answers keeps it (`/scene ID`).
        let reference = "scene \(scene.id)\(scene.visibility.map { ", \($0)" } ?? "")"
        lines.append("**\(title)** (" + (setting.isEmpty ? "" : "\(setting); ") + reference + ").")
        let cast = scene.cast
        if !cast.isEmpty {
            lines.append("")
            lines.append("In the scene: " + cast.prefix(8).map { character in
                character.role == "primary" ? "**\(character.name)**" : character.name
            }.joined(separator: ", ") + ".")
        }
        // What to do next comes before the dialog: a soul that keeps few sentences drops the
        // dialog first.
        if let first = cast.first(where: { $0.speaks }) ?? cast.first {
            lines.append("")
            lines.append("Ask anyone here something, e.g. “ask \(shortName(first.name)) what they are thinking”; /jump next moves on in time.")
        }
        let dialog = scene.dialogLines
        if !dialog.isEmpty {
            lines.append("")
            for line in dialog.prefix(3) { lines.append("> \(clip(line.speaker, 80)): “\(clip(line.text, 300))”") }
        }
        return lines.joined(separator: "\n")
    }

    public static func reply(_ reply: CharacterReply) -> String {
        "**\(clip(reply.characterName, 120))**: \(clip(reply.response, 4000))"
    }

    public static func lines(_ lines: [(speaker: String, text: String)]) -> String {
        lines.prefix(20).map { "**\(clip($0.speaker, 120))**: \(clip($0.text, 2000))" }.joined(separator: "\n\n")
    }

    public static func cast(_ cast: [SceneCharacter]) -> String {
        cast.map(\.name).joined(separator: ", ")
    }

    static func year(_ year: Int) -> String { year < 0 ? "\(-year) BCE" : String(year) }

    /// The surname (last word) of a name of several words, else the name.
    static func shortName(_ name: String) -> String {
        let words = MessageRoute.words(name).filter { !MessageRoute.ignored.contains($0.lowercased()) }
        return words.last ?? name
    }

    static func clip(_ text: String, _ limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit)) + "…" : text
    }
}
