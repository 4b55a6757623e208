import Foundation
import ReceptionCore

/// What the REPL knows of the conversation log during a session: the conversation being
/// written, the exchanges still open, and whether the log is there at all.
struct LogSession {
    /// Where conversations are logged; nil when the front end has no log.
    let control: (any LogControl)?
    /// False with `--no-log`: a resumed conversation is read, nothing is written.
    let writing: Bool
    /// The conversation being written, once its first exchange was (or once it was resumed).
    var conversation: ConversationRecord?
    /// This session's hold on `conversation`, so that another session taking it up is told.
    var hold: (any ConversationHold)?
    /// The id the next conversation takes, chosen before its first message goes out: every
    /// request carries its conversation's id (`conversationKey`), so that a message queued
    /// offline is logged in its own conversation when a later session delivers it.
    var nextConversationID = UUID().uuidString.lowercased()
    /// The request extension that names the conversation a message belongs to in the log.
    static let conversationKey = "reception.log.conversation"
    /// Why the log is not written, once it failed: said once, then nothing more is tried.
    var unavailable: String?
    /// Exchanges this session began and has not closed for good (answers streaming, plans waiting).
    var open: [String: OpenExchange] = [:]

    struct OpenExchange {
        var record: ExchangeRecord
        var started: ContinuousClock.Instant
    }

    init(control: (any LogControl)?, writing: Bool) {
        self.control = control
        self.writing = writing
    }

    /// Holds `conversationID` (`LogControl.hold`) in place of the conversation held before:
    /// that hold goes first, or this process would find its own and call it another session's.
    mutating func hold(_ conversationID: String, with control: (any LogControl)?) {
        hold = nil
        hold = control?.hold(conversationID)
    }

    /// The log to write to now, if any (not off, not failed, not `--no-log`).
    var writable: (any LogControl)? {
        guard writing, unavailable == nil, let control, control.isOn else { return nil }
        return control
    }

    /// The id of the conversation a message sent now belongs to (the next one's, before its
    /// first exchange is written).
    var currentConversationID: String { conversation?.id ?? nextConversationID }

    /// The conversation `request` was sent in, when that is not this session's: a queued
    /// message from an earlier session (or from before `/new`) being delivered now.
    func otherConversation(of request: ReceptionRequest) -> String? {
        guard case .string(let id)? = request.extensions[Self.conversationKey], !id.isEmpty, id != currentConversationID else {
            return nil
        }
        return id
    }
}

/// How a session was asked to start: a new conversation, or one from the log.
public enum ConversationStart: Sendable, Equatable {
    case new
    /// `--continue`: the most recent conversation.
    case last
    /// `--conversation ID` (or the first characters of it).
    case id(String)
}
