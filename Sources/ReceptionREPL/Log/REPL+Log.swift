import Foundation
import ReceptionCore

/// The conversation log, from the REPL's side: what is written when, resuming a conversation,
/// `/new` and `/history`. Writing never stands between a person and their message: the
/// message has gone out before its exchange is written, and a log that fails to be written is
/// said once and left alone for the rest of the conversation (a read that fails is said, and
/// stops nothing).
extension REPL {
    // MARK: writing

    /// The exchange of `request` has gone out (`sent` is it after every middleware): written
    /// with its classification before the answer comes. An approved plan reopens its exchange.
    func logBegan(_ request: ReceptionRequest, sent: ReceptionRequest) {
        guard log.writable != nil else { return }
        if case .approve = request.action, var open = log.open[request.id] {
            open.record.ending = .open
            open.record.plan = .approved
            open.started = .now
            log.open[request.id] = open
            persist(open.record)
            return
        }
        let record = exchangeRecord(request, sent: sent)
        log.open[request.id] = LogSession.OpenExchange(record: record, started: .now)
        persist(record)
    }

    /// A piece of a streamed answer, about to be printed (written first: a process killed now
    /// leaves it in the log).
    func logShown(_ requestID: String, shown: String, engineText: String) {
        guard log.open[requestID] != nil, !(shown.isEmpty && engineText.isEmpty) else { return }
        write { try $0.appendShown(exchangeID: requestID, shown: shown, engineText: engineText) }
    }

    /// How the exchange ended (`execute` knows it last): the answer as shown, the engine's
    /// own text, ids, timings, tokens.
    func logEnded(_ request: ReceptionRequest, sent: ReceptionRequest, outcome: ExecuteOutcome,
                  running: RunningTask, errorText: String?) {
        guard log.writable != nil else { return }
        var record = log.open[request.id]?.record ?? exchangeRecord(request, sent: sent)
        if record.intent == nil, let classification = sent.classification {
            record.intent = classification.intent
            record.intentConfidence = classification.intentConfidence
            record.urgency = classification.urgency
            record.urgencyConfidence = classification.urgencyConfidence
            record.intentByHand = classification.intentByHand
            record.urgencyByHand = classification.urgencyByHand
        }
        let now = ContinuousClock.now
        record.endedAt = Date()
        record.totalMilliseconds = Self.milliseconds(running.started.duration(to: now))
        if let first = running.firstShown { record.firstCharacterMilliseconds = Self.milliseconds(running.started.duration(to: first)) }
        switch outcome {
        case .queued: record.ending = .queued
        case .cancelled: record.ending = .cancelled
        case .failed:
            record.ending = .failed
            record.detail = errorText
        case .answered:
            let ending = running.logEnding ?? (.answered, nil, nil)
            record.ending = ending.ending
            record.engineOutcome = ending.outcome
            record.detail = ending.detail
        }
        if let final = running.final {
            record.shown = final.shown
            record.engineText = final.engineText
        }
        if let result = running.result {
            record.taskID = result.taskID ?? record.taskID
            record.inputTokens = result.usage?.inputTokens
            record.outputTokens = result.usage?.outputTokens
        }
        record.taskID = record.taskID ?? running.taskID
        let engineState = session?.continuity?.state() ?? [:]
        if !engineState.isEmpty { record.engineState = engineState }
        record.model = engineState["model"] ?? record.model
        if record.ending == .planWaiting {
            log.open[request.id] = LogSession.OpenExchange(record: record, started: log.open[request.id]?.started ?? running.started)
        } else {
            log.open[request.id] = nil
        }
        persist(record)
    }

    /// A plan that will not run: rejected, replaced by another, or left waiting at `/new` or
    /// the end of the session.
    func logPlanClosed(_ requestID: String, _ decision: ExchangeRecord.PlanDecision) {
        guard var open = log.open.removeValue(forKey: requestID)?.record else { return }
        open.ending = .planNotRun
        open.plan = decision
        open.endedAt = Date()
        persist(open)
    }

    /// The exchange as the log keeps it, before anything came back.
    private func exchangeRecord(_ request: ReceptionRequest, sent: ReceptionRequest) -> ExchangeRecord {
        let classification = sent.classification ?? request.classification
        let engineState = session?.continuity?.state() ?? [:]
        return ExchangeRecord(
            id: request.id, conversationID: log.otherConversation(of: request) ?? log.conversation?.id ?? "", backend: backendName,
            endpoint: session?.backend.descriptor.endpoint, soul: soulForLog, model: engineState["model"],
            message: request.text, goal: sent.goal, trustLevel: sent.trustLevel,
            intent: classification?.intent, intentConfidence: classification?.intentConfidence,
            // The classification says which heads were set by hand, as it does for the screen
            // and `--json`; the pending override is not asked again (a queued message
            // delivered later carries its classification, not the context it was typed in).
            intentByHand: classification?.intentByHand ?? false,
            urgency: classification?.urgency, urgencyConfidence: classification?.urgencyConfidence,
            urgencyByHand: classification?.urgencyByHand ?? false,
            engineState: engineState)
    }

    /// The soul as the log names it: its catalog id (what `--soul` takes), else its name.
    /// A soul read from a file no soul folder lists is logged by its path: by name, `--continue`
    /// found another file of that name, or none.
    var soulForLog: String? { souls.flatMap { $0.currentReference } }

    /// `request` naming the conversation it is sent in, for the log: a message the offline
    /// queue keeps carries it to the session that delivers it (`otherConversation`).
    func stampedForLog(_ request: ReceptionRequest) -> ReceptionRequest {
        guard log.writable != nil else { return request }
        var request = request
        request.extensions[LogSession.conversationKey] = .string(log.currentConversationID)
        return request
    }

    /// Writes the exchange, and its conversation first when it is the conversation's first.
    /// An exchange of another conversation (a queued message from an earlier session, being
    /// delivered) is written in that one, and starts none here: an empty conversation, newest
    /// of all, was what `reception -c` then carried on.
    private func persist(_ record: ExchangeRecord) {
        write { control in
            var record = record
            if !record.conversationID.isEmpty, record.conversationID != log.currentConversationID {
                try control.save(record)
                return
            }
            if log.conversation == nil {
                let conversation = ConversationRecord(id: log.nextConversationID, backend: backendName,
                                                      endpoint: session?.backend.descriptor.endpoint,
                                                      soul: soulForLog, model: record.model, title: record.message)
                try control.save(conversation)
                log.conversation = conversation
                log.hold(conversation.id, with: control)
                log.nextConversationID = UUID().uuidString.lowercased()
            }
            record.conversationID = log.conversation!.id
            if var open = log.open[record.id] {
                open.record.conversationID = record.conversationID
                log.open[record.id] = open
            }
            try control.save(record)
        }
    }

    /// Runs a write; the first failure stops the log for this conversation and is said once.
    private func write(_ body: (any LogControl) throws -> Void) {
        guard let control = log.writable else { return }
        do {
            try body(control)
        } catch {
            logFailed(describe(error))
        }
    }

    /// Says once that this conversation is not logged, and why.
    func logFailed(_ reason: String) {
        guard log.unavailable == nil else { return }
        log.unavailable = reason
        warning("This conversation is not being logged: \(reason). Your messages are sent as usual.")
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    // MARK: resuming

    /// `--continue` or `--conversation ID`: the conversation to carry on, read before the
    /// backend is connected (its backend and soul become the session's, unless the person
    /// chose others). Nil with no conversation to carry on; `.failure` for an id that is not in
    /// the log (the session does not start: the person meant another one).
    func conversationToResume(_ start: ConversationStart) -> Result<(ConversationRecord, [ExchangeRecord])?, ResumeFailure> {
        let wanted: String?
        switch start {
        case .new: return .success(nil)
        case .last: wanted = nil
        case .id(let id): wanted = id
        }
        guard let control = log.control else {
            return .failure(ResumeFailure(message: "This session has no conversation log to continue from."))
        }
        do {
            guard let found = try control.conversation(wanted, lastExchanges: Self.resumedExchanges) else {
                if let wanted {
                    return .failure(ResumeFailure(message: "There is no conversation “\(TerminalText.line(wanted, limit: 40))” in the log; reception logs lists them."))
                }
                note("There is no conversation in the log to continue yet; this one is new.")
                return .success(nil)
            }
            return .success(found)
        } catch {
            // The log cannot be read now (locked by another process for longer than the wait,
            // damaged): this conversation is new, and it is still logged. A read needs the
            // database; a write only appends to this session's pending file, which the
            // database being locked does not stop.
            if case .id = start { return .failure(ResumeFailure(message: "Cannot continue that conversation: \(describe(error)).")) }
            warning("The last conversation cannot be read from the log (\(describe(error))), so this one is new; it is logged as usual.")
            return .success(nil)
        }
    }

    /// The most turns any engine is sent (an OpenAI-compatible profile's `history_turns` is
    /// at most 200); older exchanges stay in the log.
    static let resumedExchanges = 200

    /// Carries a logged conversation on with the connected backend: its turns go with the
    /// next message (each engine takes what it needs of them), the engine gets back what it
    /// kept (Friday's session, TIMEPOINT's scene), and new exchanges join it in the log. A
    /// profile that now points at another server is not sent the history.
    func resume(_ conversation: ConversationRecord, _ exchanges: [ExchangeRecord]) async {
        let short = String(conversation.id.prefix(8))
        let current = session?.backend.descriptor.endpoint.map(ConversationRecord.endpointKey)
        if conversation.backend == backendName, conversation.endpoint != current {
            warning("Conversation \(short) was held with \(backendName) at \(conversation.endpoint ?? "no server"), and \(backendName) now points at \(current ?? "no server"); its history is not sent there, so this is a new conversation. Point the profile back to continue it.")
            return
        }
        state.turns = exchanges.compactMap(\.turn)
        state.goal = exchanges.last?.goal
        for exchange in exchanges {
            state.messages.append(SentMessage(id: exchange.id, text: exchange.message, intent: exchange.intent,
                                              urgency: exchange.urgency, status: exchange.status))
            state.transcript.append(TranscriptEntry(speaker: .person, markdown: exchange.message))
            if !exchange.shown.isEmpty { state.transcript.append(TranscriptEntry(speaker: .reception, markdown: exchange.shown)) }
        }
        log.conversation = conversation
        log.hold(conversation.id, with: log.writable)
        let moved = conversation.backend == backendName ? "" : " (held with \(conversation.backend); its turns now go to \(backendName))"
        let earlier = conversation.exchangeCount > exchanges.count ? " (the last \(exchanges.count) of \(conversation.exchangeCount))" : ""
        note("Continuing conversation \(short)\(moved): \(Counted.phrase(exchanges.count, "earlier exchange"))\(earlier), the last on \(Self.dateText(conversation.lastAt)). /history lists them; /new starts afresh.")
        // Read from the log, but not written to it: a later `-c` would find the conversation
        // without what is said now, with nothing to say why.
        if !log.writing {
            note("This session is not logged (--no-log): what is said now is not added to conversation \(short).")
        } else if log.control?.isOn == false {
            note("Logging is off (reception logs on turns it on): what is said now is not added to conversation \(short).")
        }
        if log.hold?.isHeldElsewhere == true {
            // Both sessions add to it, each engine seeing only its own session's turns; the log
            // lists the exchanges in the order they were sent.
            warning("Conversation \(short) is open in another session too: both add to it, and each backend sees only what its own session sent. /new starts a conversation of this session's own.")
        }
        let engineState = exchanges.last { !$0.engineState.isEmpty }?.engineState ?? [:]
        if let continuity = session?.continuity, !engineState.isEmpty {
            do {
                if let said = try await continuity.resume(engineState) { note(said) }
            } catch {
                warning("The \(backendName) backend could not pick up where the conversation was: \(describe(error)).")
            }
        }
    }

    static func dateText(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    // MARK: commands

    /// `/new`: a fresh conversation. The engine forgets this one (Friday starts a new
    /// session), the next message carries no history, and `/history` and `/save` start empty;
    /// the log keeps the last one.
    func newConversation() async {
        if let plan = state.pendingPlan {
            note("The plan for “\(TerminalText.line(plan.request.text, limit: 80))” was not approved; it will not run.")
            logPlanClosed(plan.request.id, .unanswered)
            state.pendingPlan = nil
        }
        let previous = log.conversation
        state.turns = []
        state.messages = []
        state.transcript = []
        state.soulsHeard = []
        state.goal = nil
        state.lastFollowups = []
        state.lastAnswerInFull = nil
        log.conversation = nil
        log.hold = nil
        log.open = [:]
        if let continuity = session?.continuity {
            do {
                if let said = try await continuity.startOver() { note(said) }
            } catch {
                warning("The \(backendName) backend could not start afresh: \(describe(error)).")
            }
        }
        var said = "Started a new conversation."
        if let previous, log.control != nil, log.unavailable == nil {
            said += " The last one is kept in the log: reception --conversation \(previous.id.prefix(8)) continues it."
        }
        note(said)
    }

    /// `/history`: this conversation's messages, from the log when it is written (a resumed
    /// conversation's earlier exchanges included), else from this session's memory.
    func historyCommand() {
        if log.writable != nil, let conversation = log.conversation, let control = log.control {
            do {
                if let (stored, exchanges) = try control.conversation(conversation.id, lastExchanges: Self.resumedExchanges) {
                    let lines = exchanges.enumerated().map { index, exchange in
                        Self.historyLine(index + 1 + max(0, stored.exchangeCount - exchanges.count), text: exchange.message,
                                         intent: exchange.intent, urgency: exchange.urgency, status: exchange.status)
                    }
                    let omitted = stored.exchangeCount - exchanges.count
                    let header = omitted > 0 ? ["(\(Counted.phrase(omitted, "earlier exchange")) not shown: reception logs show \(stored.id.prefix(8)))"] : []
                    if !lines.isEmpty { return verbatim((header + lines).joined(separator: "\n")) }
                }
            } catch {
                // Only this read failed (the database locked for longer than the wait): the
                // session's own messages are listed, and logging goes on.
                warning("The log cannot be read just now (\(describe(error))); these are this session's messages. Logging goes on.")
            }
        }
        guard !state.messages.isEmpty else { return note("No messages yet in this conversation.") }
        let lines = state.messages.enumerated().map { index, message in
            Self.historyLine(index + 1, text: message.text, intent: message.intent, urgency: message.urgency, status: message.status)
        }
        verbatim(lines.joined(separator: "\n"))
    }

    /// One line of `/history`: the message as typed (not read as Markdown; a message of
    /// several lines keeps them, a pasted page is clipped), its labels and how it ended.
    static func historyLine(_ number: Int, text: String, intent: IntentType?, urgency: UrgencyLevel?, status: String) -> String {
        let labels = [intent?.rawValue, urgency?.rawValue].compactMap { $0 }.joined(separator: "/")
        let query = TerminalText.clean(text)
        let clipped = query.count > 300 ? String(query.prefix(299)) + "…" : query
        // Its later lines under its first, not at the margin where they read as items of their own.
        let marker = "\(number). "
        let shown = clipped.replacingOccurrences(of: "\n", with: "\n" + String(repeating: " ", count: marker.count))
        return marker + shown + (labels.isEmpty ? "" : "  [\(labels)]") + " → \(status)"
    }
}

/// Why a session cannot carry on the conversation it was asked to.
struct ResumeFailure: Error {
    var message: String
}
