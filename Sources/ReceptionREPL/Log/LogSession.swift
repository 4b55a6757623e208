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

    /// The log to write to now, if any (not off, not failed, not `--no-log`).
    var writable: (any LogControl)? {
        guard writing, unavailable == nil, let control, control.isOn else { return nil }
        return control
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
