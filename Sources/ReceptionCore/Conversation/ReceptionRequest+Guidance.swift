import Foundation

/// What a message's classification and goal ask of the answer, in words a language model
/// reads. It belongs to the message, not to the conversation: language-model adapters send it
/// after the conversation, never inside the system prompt, so that the system prompt stays the
/// same text from turn to turn and a server's prompt cache (llama.cpp keeps the last prompt's)
/// serves it again on the next turn.
extension ReceptionRequest {
    /// How the guidance opens: it follows the person's words in the same message, and this
    /// tells a reader (a model, a reference server, a log) where their words end.
    public static let answerGuidanceOpening = "[Note for this message: "

    /// "[Note for this message: the person is choosing between options: lead with a
    /// recommendation and the one factor that decides it. They need this now: …]", or nil when
    /// the classification asks for nothing in particular and there is no goal. Only what an
    /// answer should do differently is said, not the labels: every token is paid for again on
    /// every message.
    public var answerGuidance: String? {
        Self.answerGuidance(intent: classification?.intent, urgency: classification?.urgency, goal: goal)
    }

    /// The note for a message of this intent, urgency and goal: the same text whenever it is
    /// worked out again (a conversation carried on from the log is sent as it was first sent).
    public static func answerGuidance(intent: IntentType?, urgency: UrgencyLevel?, goal: String?) -> String? {
        var parts: [String] = []
        if let intent {
            switch intent {
            case .decision: parts.append("The person is choosing between options: lead with a recommendation and the one factor that decides it.")
            case .research: parts.append("The person wants to understand a topic: give the key points.")
            case .action: parts.append("The person wants something done: give the steps, in order.")
            case .curiosity: parts.append("The person is curious: a clear, friendly explanation is enough.")
            case .validation: parts.append("The person wants a claim checked: say whether it holds, then why.")
            case .unknown: break
            }
        }
        if urgency == .immediate { parts.append("They need this now: answer first, details after.") }
        if var goal = goal?.trimmingCharacters(in: .whitespacesAndNewlines), !goal.isEmpty {
            while let last = goal.last, ".!;:".contains(last) { goal.removeLast() }
            parts.append("The conversation's goal: \(goal).")
        }
        guard !parts.isEmpty else { return nil }
        var text = parts.joined(separator: " ")
        text = text.prefix(1).lowercased() + text.dropFirst()
        return Self.answerGuidanceOpening + text + "]"
    }
}
