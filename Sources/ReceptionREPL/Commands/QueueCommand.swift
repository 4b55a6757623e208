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
    /// The context for a new message that must wait behind queued ones (the backend was just
    /// found unreachable): it is queued without trying the backend again.
    func holding(_ context: ReceptionContext) -> ReceptionContext
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
    public var lastError: String?

    public init(id: String, backend: String, destination: String? = nil, createdAt: Date, request: ReceptionRequest,
                sending: Bool, lastError: String?) {
        self.id = id
        self.backend = backend
        self.destination = destination
        self.createdAt = createdAt
        self.request = request
        self.sending = sending
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
    /// the message it answers; stops at the first one that is not delivered (still
    /// unreachable, an error, Ctrl-C), so the order holds.
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
        let items: [QueuedItem]
        if let only {
            items = [only]
        } else {
            do {
                let all = try queue.items()
                items = all.filter { $0.isFor(descriptor) }
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
        guard !items.isEmpty else { return false }
        // Held until the backend answers the first one (`consume` releases it at its first
        // event that is not "still queued"), dropped if it does not.
        if quiet { console.hold() }
        defer { console.release() }
        if only == nil {
            note("Sending \(items.count) queued message\(items.count == 1 ? "" : "s") to \(backend), oldest first.")
        }
        for item in items {
            if console.mode != .json {
                console.line(style(dim: "→ queued \(QueueListing.age(since: item.createdAt)) ago: \(TerminalText.line(item.request.text, limit: 200))"))
            }
            let mark = state.transcript.count
            let known = state.messages.contains { $0.id == item.request.id }
            state.transcript.append(TranscriptEntry(speaker: .person, markdown: item.request.text))
            let outcome = await execute(item.request, context: queue.context(forSending: item, force: force))
            // Still waiting, and not typed in this session: not part of its /history yet.
            if outcome == .queued, !known { state.messages.removeAll { $0.id == item.request.id } }
            if console.isHolding { outcome == .queued ? console.discard() : console.release() }
            // Still unreachable: the message waits on, and the transcript already holds it from
            // when it was typed; an attempt per flush must not write it (and "queued") again.
            if outcome == .queued, mark <= state.transcript.count { state.transcript.removeSubrange(mark...) }
            let left = items.count - 1 - (items.firstIndex { $0.id == item.id } ?? 0)
            if outcome == .cancelled, InterruptMonitor.shared.terminationSignal == nil {
                // Ctrl-C on a queued message is the person saying "not this one": it leaves
                // the queue (a closed terminal or SIGTERM is not, and it stays for later).
                _ = try? queue.drop([item.id])
                note("Dropped from the queue, since you cancelled it." + (left > 0 ? " \(left) more wait\(left == 1 ? "s" : ""); /queue flush sends \(left == 1 ? "it" : "them")." : ""))
            }
            guard outcome == .answered else { return outcome == .queued }
            // A plan waits for /approve: the next queued message would replace it, so the rest
            // wait until it is approved or rejected.
            if state.pendingPlan != nil, left > 0 {
                note("\(left) more queued message\(left == 1 ? " waits" : "s wait") until this plan is approved or rejected.")
                return false
            }
        }
        return false
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
            guard let which = arguments.dropFirst().first else { return error("Usage: /queue drop N|all") }
            guard let chosen = QueueListing.choose(which, in: items) else {
                return error("There is no queued message \(which); /queue lists \(items.count).")
            }
            do {
                let dropped = try queue.drop(chosen.map(\.id))
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
            guard let which = arguments.dropFirst().first, let number = Int(which), items.indices.contains(number - 1) else {
                return error("Usage: /queue resend N (/queue lists \(items.count))")
            }
            let item = items[number - 1]
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
