import ReceptionCore

/// How a TIMEPOINT conversation is carried across sessions: its scene (the context every
/// message is routed by) and the server's chat session with each character in it.
struct TimepointContinuity: Sendable {
    let backend: TimepointBackend

    static let sceneKey = "timepoint.scene_id"
    static let chatPrefix = "timepoint.chat."

    var continuity: ConversationContinuity {
        let backend = backend
        return ConversationContinuity(
            state: {
                guard let scene = backend.scene else { return [:] }
                var state = [Self.sceneKey: scene.id]
                for (character, session) in backend.chatSessions { state[Self.chatPrefix + character] = session }
                return state
            },
            resume: { state in
                guard let id = state[Self.sceneKey] else { return nil }
                let scene = try await backend.client.scene(id, full: true)
                backend.setScene(scene)
                var sessions: [String: String] = [:]
                for (key, value) in state where key.hasPrefix(Self.chatPrefix) { sessions[String(key.dropFirst(Self.chatPrefix.count))] = value }
                backend.restoreChatSessions(sessions)
                let title = SceneText.clip(scene.query ?? scene.slug ?? scene.id, 120)
                return "Back in the scene “\(title)” (scene \(scene.id)); its people remember what you asked them."
            },
            startOver: {
                guard backend.scene != nil else { return nil }
                backend.setScene(nil)
                return "The scene is put aside: your next message starts a new one (/scene ID goes back to it)."
            })
    }
}

extension TimepointBackend {
    /// What a front end keeps to carry this conversation into a later session (and forgets at `/new`).
    public var continuity: ConversationContinuity { TimepointContinuity(backend: self).continuity }
}
