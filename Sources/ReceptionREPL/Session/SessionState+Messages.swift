import ReceptionCore

/// One message this session sent (or tried to), for `/history`. `turns` holds only answered
/// messages, because it is the conversation every engine is sent; a person looking back also
/// wants the ones that were cancelled, failed, queued or left as a plan.
public struct SentMessage: Sendable, Equatable {
    /// The request's id: a later event for the same message (a plan approved, a queued
    /// message delivered) updates this entry instead of adding one.
    public var id: String
    public var text: String
    public var intent: IntentType?
    public var urgency: UrgencyLevel?
    /// How it ended, in words: an outcome (`complete`, `bounded`, …), `answered`, `cancelled`,
    /// `failed`, `queued`, `plan waiting for /approve` or `plan rejected`.
    public var status: String
}

extension SessionState {
    /// Adds the message, or updates the status of the one with the same id.
    mutating func recordMessage(_ request: ReceptionRequest, status: String) {
        if let index = messages.firstIndex(where: { $0.id == request.id }) {
            messages[index].status = status
            if let classification = request.classification {
                messages[index].intent = classification.intent
                messages[index].urgency = classification.urgency
            }
        } else {
            messages.append(SentMessage(id: request.id, text: request.text, intent: request.classification?.intent,
                                        urgency: request.classification?.urgency, status: status))
        }
    }
}
