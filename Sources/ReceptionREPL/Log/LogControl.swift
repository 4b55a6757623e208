import ReceptionCore

/// The conversation log as the REPL sees it. The executable wires `ReceptionLog`'s SQLite
/// store in; the REPL knows only these calls, so it does not depend on SQLite.
///
/// Any call may throw. A write that throws stops the log for this conversation: the REPL says
/// once why, and goes on (the message is sent whatever the log does). A read that throws
/// (`conversation`: the database locked longer than the wait) fails that read only: writes
/// append to a pending file, which a locked database does not stop.
public protocol LogControl: Sendable {
    /// False when the person turned the log off for good (`reception logs off`). Asked
    /// before the first write; answered without opening the database.
    var isOn: Bool { get }
    /// Records a new conversation.
    func save(_ conversation: ConversationRecord) throws
    /// Records an exchange as it stands (when its message has gone out, when it ends, and
    /// when a plan is approved, rejected or dropped).
    func save(_ exchange: ExchangeRecord) throws
    /// Adds a piece of the answer being streamed, before it is printed, so that a process
    /// killed mid-answer leaves in the log what was shown.
    func appendShown(exchangeID: String, shown: String, engineText: String) throws
    /// The conversation `id` (or the first characters of it), or the most recent one when
    /// `id` is nil, with its last `limit` exchanges, oldest first; nil when there is none.
    func conversation(_ id: String?, lastExchanges limit: Int) throws -> (ConversationRecord, [ExchangeRecord])?
    /// Records that queued messages (by their exchanges' ids) were dropped from the offline queue.
    func dropped(exchangeIDs: [String]) throws
    /// Takes a hold on a conversation for as long as the returned value lives, saying whether
    /// another session holds it too; nil where holds cannot be taken.
    func hold(_ conversationID: String) -> (any ConversationHold)?
}

/// A session's hold on a conversation of the log (`LogControl.hold`).
public protocol ConversationHold: Sendable {
    /// True when another session held the conversation when this one took it up.
    var isHeldElsewhere: Bool { get }
}

extension LogControl {
    public func dropped(exchangeIDs: [String]) throws {}
    public func hold(_ conversationID: String) -> (any ConversationHold)? { nil }
}
