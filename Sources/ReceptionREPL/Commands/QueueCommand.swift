import Foundation
import ReceptionCore

/// The offline queue as the REPL sees it. The executable wires `ReceptionQueue`'s
/// `OfflineQueue` in (the REPL does not depend on it); the queueing itself is its middleware.
public protocol QueueControl: Sendable {
    /// Every queued message, oldest first.
    func items() throws -> [QueuedItem]
    /// Forgets these entries; returns how many were there.
    func drop(_ ids: [String]) throws -> Int
    /// The context that sends a queued message again through the pipeline; `force` sends one
    /// whose earlier attempt may have arrived at an engine that cannot check.
    func context(forSending item: QueuedItem, force: Bool) -> ReceptionContext
    /// The context for a new message that must wait behind queued ones: it is queued without
    /// trying the backend. `behindDelivery` when the backend answers and the older ones are
    /// being delivered now; otherwise it was just found unreachable. The notice says which.
    func holding(_ context: ReceptionContext, behindDelivery: Bool) -> ReceptionContext
    /// Something to say once at start (e.g. a damaged queue file was kept aside).
    var problem: String? { get }
    /// True when a message waits for this backend (asked at every prompt: a queue can answer
    /// it without reading every entry).
    func hasItems(for backend: BackendDescriptor) throws -> Bool
}

extension QueueControl {
    public func hasItems(for backend: BackendDescriptor) throws -> Bool {
        try items().contains { $0.isFor(backend) }
    }
}

/// One queued message.
public struct QueuedItem: Sendable {
    public var id: String
    /// The backend profile it was sent to; it is only ever sent there.
    public var backend: String
    /// The server that profile pointed at when it was queued (`BackendDescriptor.endpoint`);
    /// nil when none was recorded.
    public var destination: String?
    public var createdAt: Date
    public var request: ReceptionRequest
    /// True while a session sends it (or one that died did: it may have reached the engine).
    public var sending: Bool
    /// True while another Reception that is still running sends it (or keeps it to send next,
    /// behind its own delivery): it is on its way, and this session neither sends it nor waits
    /// for it.
    public var sentByAnotherSession: Bool
    public var lastError: String?

    public init(id: String, backend: String, destination: String? = nil, createdAt: Date, request: ReceptionRequest,
                sending: Bool, sentByAnotherSession: Bool = false, lastError: String?) {
        self.id = id
        self.backend = backend
        self.destination = destination
        self.createdAt = createdAt
        self.request = request
        self.sending = sending
        self.sentByAnotherSession = sentByAnotherSession
        self.lastError = lastError
    }

    /// True when it may be sent to this backend: the name it was queued for and, when it
    /// recorded one, the same server (a profile pointed elsewhere since does not get it).
    public func isFor(_ backend: BackendDescriptor) -> Bool {
        BackendDescriptor.queued(for: self.backend, at: destination, goesTo: backend.name, at: backend.endpoint)
    }

    /// Written for a server other than `endpoint` (one its profile names now): not sent there.
    public func waitsForAnotherServer(than endpoint: String?) -> Bool {
        !BackendDescriptor.queued(for: backend, at: destination, goesTo: backend, at: endpoint)
    }

    /// Queued for this backend's name while it pointed at another server.
    func isForAnotherServer(of backend: BackendDescriptor) -> Bool {
        self.backend == backend.name && !isFor(backend)
    }
}

/// How `execute` ended.
enum ExecuteOutcome: Equatable {
    /// The backend answered (a result, a plan, or a task failure: it was delivered).
    case answered
    /// Held in the offline queue instead.
    case queued
    case failed
    case cancelled
}

extension REPL {
    /// Sends the current backend's queued messages, oldest first, showing each answer under
    /// the message it answers; stops at the first one that is not delivered because the
    /// backend is still unreachable (or an error, or Ctrl-C), so the order holds. Messages
    /// queued behind the delivery while it runs (`deliverWhileReading`) go in the same turn.
    ///
    /// A message another running session is sending is left to it: it is on its way, and
    /// nothing here waits for it (five sessions started at once must not tell four of them
    /// that a server that answers is unreachable).
    ///
    /// Returns true when messages for the current backend still wait because it is unreachable.
    /// With `quiet` (a retry while the person is idle), nothing is printed unless the first
    /// message reaches the backend: one still unreachable stays queued without a word.
    @discardableResult
    func flushQueue(only: QueuedItem? = nil, force: Bool = false, quiet: Bool = false) async -> Bool {
        guard let queue, let session else { return false }
        // A plan waiting for /approve goes first: a queued message's plan would replace it.
        if state.pendingPlan != nil, only == nil { return false }
        let descriptor = session.backend.descriptor
        let backend = descriptor.name
        var attempted = Set<String>()
        var announced = false
        // Held until the backend answers the first one (`consume` releases it at its first
        // event that is not "still queued"), dropped if it does not.
        if quiet { console.hold() }
        defer { console.release() }
        while true {
            let items: [QueuedItem]
            if let only {
                guard !attempted.contains(only.id) else { return false }
                items = [only]
            } else {
                do {
                    let all = try queue.items()
                    items = all.filter { $0.isFor(descriptor) && !$0.sentByAnotherSession && !attempted.contains($0.id) }
                    let elsewhere = all.filter { $0.isForAnotherServer(of: descriptor) }
                    if let first = elsewhere.first, !state.queueElsewhereNoted.contains(backend) {
                        state.queueElsewhereNoted.insert(backend)
                        let count = elsewhere.count == 1 ? "1 queued message" : "\(elsewhere.count) queued messages"
                        note("\(count) for \(backend) \(elsewhere.count == 1 ? "was" : "were") written for \(QueueListing.server(first.destination)); \(backend) now points at \(QueueListing.server(descriptor.endpoint)), so \(elsewhere.count == 1 ? "it is not sent here. /queue lists it; /queue drop N forgets it." : "they are not sent here. /queue lists them; /queue drop N forgets one, /queue drop all every queued message.")")
                    }
                } catch {
                    self.error("The offline queue cannot be read: \(describe(error))")
                    return false
                }
            }
            guard !items.isEmpty, !isLeaving else { return false }
            if only == nil, !announced {
                announced = true
                note("Sending \(items.count) queued message\(items.count == 1 ? "" : "s") to \(backend), oldest first.")
            }
            for item in items {
                guard !isLeaving else { return false }
                attempted.insert(item.id)
                if console.mode != .json {
                    console.line(style(dim: "→ queued \(QueueListing.age(since: item.createdAt)) ago: \(TerminalText.line(item.request.text, limit: 200))"))
                }
                let mark = state.transcript.count
                let known = state.messages.contains { $0.id == item.request.id }
                state.transcript.append(TranscriptEntry(speaker: .person, markdown: item.request.text))
                lastQueuedCause = nil
                let outcome = await execute(item.request, context: queue.context(forSending: item, force: force))
                let cause = lastQueuedCause
                // Still waiting, and not typed in this session: not part of its /history yet.
                if outcome == .queued, !known { state.messages.removeAll { $0.id == item.request.id } }
                if console.isHolding { outcome == .queued ? console.discard() : console.release() }
                // Still unreachable: the message waits on, and the transcript already holds it from
                // when it was typed; an attempt per flush must not write it (and "queued") again.
                if outcome == .queued, mark <= state.transcript.count { state.transcript.removeSubrange(mark...) }
                let left = (try? queue.items().filter { $0.isFor(descriptor) && !$0.sentByAnotherSession && !attempted.contains($0.id) }.count) ?? 0
                if outcome == .cancelled, InterruptMonitor.shared.terminationSignal == nil, !isLeaving {
                    // Ctrl-C on a queued message is the person saying "not this one": it leaves
                    // the queue (a closed terminal, SIGTERM or leaving is not, and it stays for later).
                    _ = try? queue.drop([item.id])
                    note("Dropped from the queue, since you cancelled it." + (left > 0 ? " \(left) more wait\(left == 1 ? "s" : ""); /queue flush sends \(left == 1 ? "it" : "them")." : ""))
                }
                if outcome == .queued, cause == .sentByAnotherSession || cause == .mayHaveArrived {
                    // Not a sign the backend is unreachable: the others go on.
                    continue
                }
                guard outcome == .answered else { return outcome == .queued }
                // A plan waits for /approve: the next queued message would replace it, so the rest
                // wait until it is approved or rejected.
                if state.pendingPlan != nil {
                    if left > 0 { note("\(left) more queued message\(left == 1 ? " waits" : "s wait") until this plan is approved or rejected.") }
                    return false
                }
            }
        }
    }

    /// Delivers the current backend's queued messages while still reading input that is not a
    /// terminal, so that the session's own commands are not held behind them (five tasks
    /// queued by sessions that were killed held a script's `/knowledge cached` and `/quit` for
    /// more than a minute):
    /// - a command runs at once, except those that start a backend task or change the session
    ///   (`CommandRunner.waitsForDelivery`), which run when the delivery is done;
    /// - a message joins the queue behind the ones being delivered, and goes after them in the
    ///   same delivery; when nothing is left to deliver (another session is sending what is
    ///   queued), it is sent as usual;
    /// - `/quit` (or Ctrl-C, SIGTERM) stops the delivery and leaves at once: the message being
    ///   sent stays queued (an engine that can look tasks up follows it next time);
    /// - the end of the input waits for the delivery, as it waits for an answer.
    /// Returns whether the session must leave now, and whether the backend was unreachable.
    func deliverWhileReading() async -> (leave: Bool, unreachable: Bool) {
        let flush = Task { await self.flushQueue() }
        while true {
            let read = pendingInput ?? Task { await self.reader.readLine(prompt: "") }
            pendingInput = read
            switch await Race.first(flush, read) {
            case .left(let unreachable):
                // The line being read stays the next input.
                return (InterruptMonitor.shared.terminationSignal != nil, unreachable)
            case .right(let input):
                pendingInput = nil
                switch input {
                case .endOfInput where InterruptMonitor.shared.terminationSignal == nil:
                    let unreachable = await flush.value
                    pendingInput = Task { .endOfInput }
                    return (false, unreachable)
                case .endOfInput, .interrupt:
                    return await stopDelivery(flush)
                case .idle:
                    continue
                case .line(let raw):
                    let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !text.isEmpty else { continue }
                    if InterruptMonitor.shared.terminationSignal != nil || CommandRunner.isQuit(text) { return await stopDelivery(flush) }
                    let deliveringOthers = hasMessagesToDeliver()
                    if text.hasPrefix("/") && !CommandRunner.waitsForDelivery(text) {
                        _ = await runCommand(text)
                    } else if !text.hasPrefix("/") && deliveringOthers {
                        let message = Int(text).flatMap(state.lastFollowups.element(numbered:)) ?? text
                        await queueBehindDelivery(message)
                    } else {
                        // After the delivery, in the main loop, as any line.
                        let unreachable = await flush.value
                        pendingInput = Task { .line(raw) }
                        return (false, unreachable)
                    }
                }
            }
        }
    }

    private func stopDelivery(_ flush: Task<Bool, Never>) async -> (leave: Bool, unreachable: Bool) {
        isLeaving = true
        flush.cancel()
        _ = await flush.value
        return (true, false)
    }

    /// True while queued messages for the current backend wait to be delivered by this
    /// session (one being sent included; not those another session is sending).
    func hasMessagesToDeliver() -> Bool {
        guard let queue, let descriptor = session?.backend.descriptor, (try? queue.hasItems(for: descriptor)) == true else { return false }
        return (try? queue.items().contains { $0.isFor(descriptor) && !$0.sentByAnotherSession }) == true
    }

    /// A message typed while queued messages are being delivered: it joins the queue behind
    /// them, saying so, and the delivery sends it after them.
    func queueBehindDelivery(_ text: String) async {
        guard let queue else { return }
        let request = stampedForLog(ReceptionRequest(text: text, conversation: state.turns, trustLevel: state.trustLevel, goal: state.goal,
                                                     sessionID: state.sessionID))
        let context = queue.holding(ReceptionContext(intentOverride: state.pendingOverride), behindDelivery: true)
        state.pendingOverride = nil
        state.transcript.append(TranscriptEntry(speaker: .person, markdown: text))
        await execute(request, context: context)
    }

    /// What `/quit` (or the end of input) says about messages still queued: they are not lost,
    /// and the next session for their backend sends them.
    func remindOfQueuedMessages() {
        guard let queue, let items = try? queue.items() else { return }
        let waiting = items.filter { !$0.sentByAnotherSession }
        guard !waiting.isEmpty else { return }
        let backends = Dictionary(grouping: waiting, by: \.backend).map { "\($0.value.count) for \($0.key)" }.sorted()
        let count = waiting.count == 1 ? "1 message is" : "\(waiting.count) messages are"
        note("\(count) still queued (\(backends.joined(separator: ", "))); the next session for \(backends.count == 1 ? "that backend" : "each backend") sends \(waiting.count == 1 ? "it" : "them"). `reception queue` lists \(waiting.count == 1 ? "it" : "them") without sending.")
    }

    /// While the prompt waits: when messages for the current backend are queued, asks the
    /// reader for the prompt back every `queueRetryInterval` (only if nothing is typed), so
    /// `run` can try them again. Nil when there is nothing to retry or nobody at a terminal.
    /// The server is probed first with the prompt still up (`EndpointProbe`): one that takes
    /// no connection is not worth taking the prompt away for.
    func retryQueueWhileIdle() -> Task<Void, Never>? {
        guard reader.isInteractive, let queue, let descriptor = session?.backend.descriptor,
              (try? queue.hasItems(for: descriptor)) == true else { return nil }
        let reader = reader, interval = configuration.queueRetryInterval, endpoint = descriptor.endpoint
        return Task {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                if let endpoint, await !EndpointProbe.accepts(endpoint, within: .seconds(5)) { continue }
                // A line may have arrived while the probe waited: no wake left over for the next prompt.
                guard !Task.isCancelled else { return }
                reader.wakeIfIdle()
            }
        }
    }

    /// `/queue`, `/queue drop N|all`, `/queue flush`, `/queue resend N`.
    func queueCommand(_ arguments: [String]) async {
        guard let queue else { return error("This session has no offline queue.") }
        let items: [QueuedItem]
        do { items = try queue.items() } catch { return self.error("The offline queue cannot be read: \(describe(error))") }
        let descriptor = session?.backend.descriptor
        let current = descriptor?.name
        switch arguments.first?.lowercased() {
        case nil, "list":
            guard !items.isEmpty else { return say("The offline queue is empty.") }
            verbatim(QueueListing.render(items, current: descriptor)
                     + "\n/queue drop N|all forgets entries; /queue flush sends this backend's now.")
        case "drop":
            // One entry at a time, as resend: "/queue drop 1 2" dropped the first and said nothing of 2.
            guard arguments.count == 2, let which = arguments.dropFirst().first else { return error("Usage: /queue drop N|all") }
            guard let chosen = QueueListing.choose(which, in: items) else {
                return error("There is no queued message \(which); /queue lists \(items.count).")
            }
            do {
                let dropped = try queue.drop(chosen.map(\.id))
                // Their exchanges in the log are no longer "queued": they will never be sent.
                try? log.writable?.dropped(exchangeIDs: chosen.map(\.id))
                note(QueueListing.dropped(dropped, of: items.count))
            } catch {
                self.error("The offline queue cannot be changed: \(describe(error))")
            }
        case "flush":
            guard let descriptor, items.contains(where: { $0.isFor(descriptor) }) else {
                return note("Nothing is queued for \(current ?? "this backend")\(descriptor?.endpoint.map { " at " + TerminalText.line($0, limit: 120) } ?? "").")
            }
            await flushQueue()
        case "resend":
            guard arguments.count == 2, let which = arguments.dropFirst().first else {
                return error("Usage: /queue resend N (/queue lists \(items.count))")
            }
            guard let item = Int(which).flatMap(items.element(numbered:)) else {
                return error("There is no queued message \(which); /queue lists \(items.count).")
            }
            guard item.backend == current else { return error("That message belongs to \(item.backend); switch with /backend \(item.backend) first.") }
            if let descriptor, item.isForAnotherServer(of: descriptor) {
                return error("That message was written for \(QueueListing.server(item.destination)), and \(item.backend) now points at \(QueueListing.server(descriptor.endpoint)); it is only sent to the server it was written for. /queue drop \(which) forgets it.")
            }
            await flushQueue(only: item, force: true)
        default:
            error("Usage: /queue [list | drop N|all | flush | resend N]")
        }
    }
}
