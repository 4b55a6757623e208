import Foundation
import ReceptionCore
import ReceptionReferenceServers
import ReceptionTesting
import ReceptionTimepoint
import Testing

@Suite("TIMEPOINT: a conversation carried into another session")
struct ContinuityTests {
    /// What a later session is given back: the scene (fetched again) and each character's
    /// chat session, so the next message goes on in the same scene instead of making a new one.
    @Test func aResumedConversationIsBackInItsSceneWithItsChatSessions() async throws {
        try await withTimepoint { rig in
            let first = TimepointBackend(client: rig.client)
            _ = try await collect(first.submit(ReceptionRequest(text: "Oppenheimer at Trinity, 1945", trustLevel: 1)))
            _ = try await collect(first.submit(ReceptionRequest(text: "ask Oppenheimer what he is thinking", trustLevel: 1)))
            let scene = try #require(first.scene)
            let state = first.continuity.state()
            #expect(state["timepoint.scene_id"] == scene.id)

            let later = TimepointBackend(client: rig.client)
            let said = try await later.continuity.resume(state)
            #expect(said?.contains("scene \(scene.id)") == true, "\(said ?? "")")
            #expect(later.scene?.id == scene.id)
            #expect(later.chatSessions == first.chatSessions)
            _ = try await collect(later.submit(ReceptionRequest(text: "ask Oppenheimer are you afraid", trustLevel: 1)))
            let generations = await rig.reference.receivedCalls().filter { $0.path.hasPrefix("/api/v1/timepoints/generate") }
            let chats = await rig.reference.receivedCalls().filter { $0.path == "/api/v1/interactions/\(scene.id)/chat" }
            #expect(generations.count == 1, "no second scene was generated")
            #expect(chats.count == 2)

            // /new puts the scene aside: the next message makes a new one.
            _ = try await later.continuity.startOver()
            #expect(later.scene == nil && later.continuity.state().isEmpty)
        }
    }
}
