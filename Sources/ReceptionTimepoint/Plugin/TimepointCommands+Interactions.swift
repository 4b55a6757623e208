import ReceptionCore

extension TimepointCommands {
    func chat(_ arguments: [String], before output: CommandOutput? = nil) async throws -> String {
        let scene = try currentScene()
        guard arguments.count >= 2 else { throw CommandUsage("Usage: /chat NAME MESSAGE (in this scene: \(SceneText.cast(scene.cast)))") }
        // The longest run of leading words that names someone in the cast.
        let cast = scene.cast
        var character: String?
        var used = 1
        for count in stride(from: min(4, arguments.count - 1), through: 1, by: -1) {
            let words = arguments.prefix(count).map { $0.lowercased() }
            if let match = MessageRoute.addressed(in: words, cast: cast), match.position == 0, match.nameWords >= count || count == 1 {
                character = match.name
                used = count
                break
            }
        }
        let message = arguments.dropFirst(used).joined(separator: " ")
        // Nobody of that name in the scene: said here, before a cost is announced for a call
        // the server would refuse.
        guard let name = character else {
            throw TimepointError.unavailable("Nobody called “\(TerminalText.line(arguments[0], limit: 60))” is in this scene: \(SceneText.cast(scene.cast)).")
        }
        let cost = try await stateCost("Asking \(name)", cost: await backend.costs().chat, before: output)
        let reply = try await client.chat(scene: scene.id, character: name, message: message)
        return cost + SceneText.reply(reply)
    }

    func dialog(_ arguments: [String]) async throws -> String {
        let scene = try currentScene()
        let reply = try await client.dialog(scene: scene.id, lines: 5, prompt: arguments.isEmpty ? nil : arguments.joined(separator: " "))
        return reply.lines.isEmpty ? "No new lines." : SceneText.lines(reply.lines)
    }

    func survey(_ arguments: [String]) async throws -> String {
        let scene = try currentScene()
        guard !arguments.isEmpty else { throw CommandUsage("Usage: /survey QUESTION") }
        let reply = try await client.survey(scene: scene.id, question: arguments.joined(separator: " "))
        var text = reply.answers.isEmpty ? "Nobody answered." : SceneText.lines(reply.answers)
        if let summary = reply.summary { text += "\n\n" + SceneText.clip(summary, 2000) }
        return text
    }
}
