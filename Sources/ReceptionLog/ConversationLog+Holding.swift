import Foundation
import ReceptionCore

/// Which sessions hold a conversation now. Two sessions that carry one conversation on
/// (`reception -c` in two terminals) both add to it, and each engine sees only its own
/// session's turns: the second is told, where it used to merge into the first unsaid.
extension ConversationLog {
    /// A session's hold on a conversation: an advisory lock on a file of its own in
    /// `conversations.sqlite-open/`, released when the session moves on or ends (the kernel
    /// releases it when the process dies, however it dies).
    public final class Hold: Sendable {
        /// True when another session held the conversation when this one took it up.
        public let isHeldElsewhere: Bool
        private let descriptor: Int32
        private let file: String

        fileprivate init(isHeldElsewhere: Bool, descriptor: Int32, file: String) {
            self.isHeldElsewhere = isHeldElsewhere
            self.descriptor = descriptor
            self.file = file
        }

        deinit {
            // Removed only while this session is its only holder: a file another session holds
            // (or is about to) stays.
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { unlink(file) }
            // Unlocked, not only closed: a copy of the descriptor in a child forked meanwhile
            // would keep the hold (and tell the next session it is held elsewhere). A failed
            // upgrade above drops it too, but only as a side effect of how flock converts.
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    public var holdFolder: String { path + "-open" }

    /// Takes a hold on `conversationID`: shared, so that several sessions can hold one, and
    /// says whether another held it already. Nil where the folder cannot be used (the
    /// hold is a courtesy: a session never stops for it).
    public func hold(_ conversationID: String) -> Hold? {
        guard path != ":memory:", !conversationID.isEmpty,
              conversationID.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { return nil }
        let file = holdFolder + "/" + conversationID
        guard (try? PrivateFile.prepare(file)) != nil else { return nil }
        let descriptor = open(file, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        // Held by another session when an exclusive lock cannot be had.
        let elsewhere = flock(descriptor, LOCK_EX | LOCK_NB) != 0
        guard flock(descriptor, LOCK_SH) == 0 else { close(descriptor); return nil }
        return Hold(isHeldElsewhere: elsewhere, descriptor: descriptor, file: file)
    }
}
