import Foundation
import ReceptionCore

/// The REPL commands of a Codex connection: `/workers`, `/worker …`, `/handshake ID`.
struct CodexCommands: Sendable {
    let backend: CodexBackend
    let watchOptions: CodexWatcher.Options
    /// Events shown from before the live part when `/worker ID` starts.
    var backlog = 10

    var client: CodexClient { backend.client }

    var all: [BackendCommand] {
        [
            BackendCommand(name: "/workers", arguments: "[STATUS]", summary: "the Codex workers this token can see, optionally of one status",
                           usage: "/workers [starting|running|stopping|stopped|failed]    list workers, optionally only those with that status",
                           completions: { _ in CodexWorkerStatus.knownCases.map(\.rawValue) }) { arguments in
                try await workers(arguments)
            },
            BackendCommand(name: "/worker", arguments: "[request | stop | watch] ID …", summary: "watch a worker live, send it a request, or stop it",
                           usage: """
                           /worker ID                           select the worker, show its snapshot, then its events live until Ctrl-C
                           /worker request ID METHOD [JSON]     send a request (JSON: the params object, in single quotes: '{"thread_id":"t1"}')
                           /worker stop ID [REASON]             stop the worker (stopping a stopped worker is not an error)
                           /worker watch ID                     the same as /worker ID (for a worker named "request" or "stop")
                           While a worker is selected, a message you type goes to it as a request (\(client.configuration.messageMethod)).
                           """,
                           completions: { arguments in
                               switch arguments.first {
                               case nil: ["request", "stop", "watch"] + backend.knownWorkers
                               case "request"?, "stop"?, "watch"?: arguments.count == 1 ? backend.knownWorkers : []
                               default: []
                               }
                           },
                           live: { arguments, output in try await worker(arguments, output) }),
            BackendCommand(name: "/handshake", arguments: "ID", summary: "check that the desktop running a worker answers (ios/handshake → desktop/handshake_ack)",
                           usage: "/handshake ID    post ios/handshake to the worker and wait up to \(CodexText.duration(client.configuration.handshakeTimeout)) for the desktop's ack",
                           completions: { arguments in arguments.isEmpty ? backend.knownWorkers : [] },
                           live: { arguments, output in try await handshake(arguments, output) }),
        ]
    }

    func workers(_ arguments: [String]) async throws -> String {
        guard arguments.count <= 1 else { throw CodexUsageError("Usage: /workers [STATUS]") }
        let status = arguments.first.map { CodexWorkerStatus(wire: $0.lowercased()) }
        let list = try await client.list(status: status)
        backend.remember(list.map(\.workerID))
        let selected = backend.selectedWorker.map { "\n\nSelected: **\($0)** (messages you type go to it)." } ?? ""
        return CodexFormatting.table(list) + selected
    }

    func worker(_ arguments: [String], _ output: CommandOutput) async throws -> String {
        switch arguments.first?.lowercased() {
        case nil:
            if let selected = backend.selectedWorker { return "Selected worker: **\(selected)**. /worker \(selected) shows it live." }
            throw CodexUsageError("Usage: /worker ID, /worker request ID METHOD [JSON], /worker stop ID [REASON]. /workers lists them.")
        case "request":
            return try await request(Array(arguments.dropFirst()))
        case "stop":
            guard arguments.count >= 2 else { throw CodexUsageError("Usage: /worker stop ID [REASON]") }
            let reason = arguments.count > 2 ? arguments.dropFirst(2).joined(separator: " ") : "reception_admin_stop"
            let result = try await client.stop(arguments[1], reason: reason)
            return result.idempotentReplay
                ? "Worker **\(arguments[1])** was already stopped; nothing changed."
                : "Worker **\(arguments[1])** stopped (\(result.status.rawValue)); reason: \(CodexFormatting.clip(reason, 255))."
        case "watch":
            guard arguments.count == 2 else { throw CodexUsageError("Usage: /worker watch ID") }
            return try await watch(arguments[1], output)
        default:
            guard arguments.count == 1 else { throw CodexUsageError("Usage: /worker ID (one worker id). /worker request ID METHOD [JSON] sends a request.") }
            return try await watch(arguments[0], output)
        }
    }

    func request(_ arguments: [String]) async throws -> String {
        guard arguments.count >= 2 else { throw CodexUsageError("Usage: /worker request ID METHOD [JSON]") }
        let (workerID, method) = (arguments[0], arguments[1])
        var params = JSONValue.object([:])
        if arguments.count > 2 {
            let text = arguments.dropFirst(2).joined(separator: " ")
            do {
                params = try Wire.decode(JSONValue.self, from: Data(text.utf8))
            } catch {
                throw CodexUsageError("The params are not JSON (\(CodexParamsError.describe(error))): \(CodexFormatting.clip(text, 120)). Put them in single quotes so the double quotes stay: '{\"thread_id\":\"t1\"}'")
            }
            guard case .object = params else { throw CodexUsageError("The params must be a JSON object, e.g. {\"thread_id\":\"t1\"}; got \(CodexFormatting.clip(text, 120))") }
        }
        let answer = try await client.request(workerID, CodexWorkerRequest(method: method, params: params, source: client.configuration.deviceID))
        let verdict = answer.ok ? "took" : "refused"
        return "Worker **\(workerID)** \(verdict) `\(CodexFormatting.clip(method, 80))` (request \(answer.requestID)): \(CodexFormatting.clip(CodexMapping.summary(of: answer.response), 1_000))"
    }

    /// Snapshot, then the live timeline until Ctrl-C (or, when input is not a terminal, the
    /// events so far: a script cannot press Ctrl-C).
    func watch(_ workerID: String, _ output: CommandOutput) async throws -> String {
        guard output.interactive else { return try await eventsSoFar(workerID, output) }
        let watcher = CodexWatcher(client: client, workerID: workerID, options: watchOptions)
        let started = ContinuousClock.now
        var first = true
        do {
            for try await update in watcher.updates(backlog: backlog) {
                switch update {
                case .snapshot(let worker):
                    if first {
                        backend.select(workerID)
                        output.plain(CodexFormatting.workerLine(worker))
                        output.plain("Live timeline (the last \(min(backlog, worker.latestSeq)) events first). Ctrl-C returns to the prompt, where messages you type go to this worker (what is typed during the watch is not sent).")
                        first = false
                    } else {
                        output.plain("Worker now: \(CodexFormatting.workerLine(worker))")
                    }
                case .event(let event):
                    output.plain(CodexFormatting.eventLine(event))
                case .unreadable(let seq, let reason):
                    output.plain("Event \(seq.map(String.init) ?? "without id") could not be read: \(CodexFormatting.clip(reason, 200))")
                case .reconnecting(let attempt, let delay, let reason):
                    output.plain("Stream interrupted (\(CodexFormatting.clip(reason, 300))); reconnecting in \(CodexText.duration(delay)) (attempt \(attempt)).")
                case .missed(let from, let through, let requestID):
                    output.plain("Missed events \(from)–\(through): the server no longer keeps them (stale cursor, x-request-id \(requestID)); resumed from a fresh snapshot at seq \(through).")
                case .rewound(let cursor, let latest):
                    output.plain("The server's ledger for \(workerID) now ends at seq \(latest), before seq \(cursor) already shown (its store was reset or the worker recreated); following from seq \(latest).")
                }
            }
        } catch where Task.isCancelled || error is CancellationError {
            // Ctrl-C ended it: the summary below is the closing line.
        }
        let statistics = watcher.statistics
        var summary = "Watched **\(workerID)** for \(CodexText.duration(started.duration(to: .now))): \(statistics.delivered) events"
        if statistics.duplicatesSuppressed > 0 { summary += ", \(statistics.duplicatesSuppressed) repeated ones dropped" }
        if statistics.reconnects > 0 { summary += ", \(statistics.reconnects) reconnects" }
        if statistics.missed > 0 { summary += ", \(statistics.missed) missed" }
        return summary + ". Messages you type go to **\(workerID)**."
    }

    /// The snapshot and the last few events, from one short poll.
    func eventsSoFar(_ workerID: String, _ output: CommandOutput) async throws -> String {
        let worker = try await client.snapshot(workerID)
        backend.select(workerID)
        output.plain(CodexFormatting.workerLine(worker))
        var cursor = max(0, worker.latestSeq - backlog)
        var shown = 0
        // A cut stream is read again from where it stopped, a few times.
        for attempt in 1...4 {
            do {
                for try await item in client.stream(workerID, cursor: cursor, tailMS: 1) {
                    guard case .event(let event) = item, event.seq > cursor else { continue }
                    cursor = event.seq
                    shown += 1
                    output.plain(CodexFormatting.eventLine(event))
                }
                break
            } catch let error as CodexError where error.isTransient && attempt < 4 {
                output.plain("Stream interrupted (\(error.brief)); reading again from seq \(cursor).")
                try await Task.sleep(for: watchOptions.backoff.delay(attempt: attempt, unit: Double.random(in: 0..<1)))
            }
        }
        return "\(shown) recent events of **\(workerID)** (input is not a terminal, so not following live). Messages go to **\(workerID)**."
    }

    func handshake(_ arguments: [String], _ output: CommandOutput) async throws -> String {
        guard arguments.count == 1 else { throw CodexUsageError("Usage: /handshake WORKER_ID") }
        output.plain("Sending ios/handshake to \(arguments[0]); waiting up to \(CodexText.duration(client.configuration.handshakeTimeout)) for desktop/handshake_ack…")
        let done = try await client.handshake(arguments[0])
        let session = done.desktopSessionID.map { ", desktop session \(CodexFormatting.clip($0, 80))" } ?? ""
        return "Connected: the desktop acknowledged handshake \(done.handshakeID) in \(CodexText.duration(done.elapsed)) (sent as seq \(done.sentSeq), ack seq \(done.ackSeq)\(session))."
    }
}

/// A command typed wrong: said as it is, with the usage.
struct CodexUsageError: Error, Sendable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum CodexParamsError {
    static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo["NSDebugDescription"] as? String
            return underlying ?? context.debugDescription
        }
        return String(describing: error)
    }
}
