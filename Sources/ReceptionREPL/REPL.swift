import Foundation
import ReceptionCore
import Synchronization

/// The interactive shell: reads lines, runs slash commands, sends messages through the
/// middleware pipeline to the current backend and prints what comes back.
///
/// It knows nothing about how intent is classified, how souls are parsed or how backends
/// talk to their servers: those arrive as middleware, a `SoulControl` and a `BackendCatalog`
/// of plugins and profiles.
public actor REPL {
    public struct Configuration: Sendable {
        public var mode: OutputMode
        /// The level the person asked for; nil lets the backend's configuration decide (else 0).
        public var trustLevel: Int?
        public var initialBackend: String
        /// While the person sits at the prompt with messages queued for the current backend,
        /// they are tried again this often (quietly: nothing is printed unless one goes).
        public var queueRetryInterval: Duration
        /// A new conversation, or one from the log to carry on (`--continue`, `--conversation ID`).
        public var conversation: ConversationStart
        /// False with `--no-log`: nothing of this session is written to the conversation log.
        public var logging: Bool
        /// False when `initialBackend` is only the default: a resumed conversation then
        /// starts on its own backend (likewise the soul).
        public var backendChosenByPerson: Bool
        public var soulChosenByPerson: Bool
        /// Lines shown under the greeting at a terminal (e.g. a model server found on this
        /// machine), asked for once the backend is connected, just before the greeting: work
        /// started earlier has had all of start-up to finish.
        public var startupNotes: @Sendable () async -> [String]
        /// Profiles of the configuration file left out of this session for their problems
        /// (said at start-up): `/backend NAME` says so rather than "Unknown backend".
        public var leftOutBackends: Set<String> = []

        public init(mode: OutputMode, trustLevel: Int? = nil, initialBackend: String = "local",
                    queueRetryInterval: Duration = .seconds(30), conversation: ConversationStart = .new, logging: Bool = true,
                    backendChosenByPerson: Bool = true, soulChosenByPerson: Bool = true,
                    startupNotes: @escaping @Sendable () async -> [String] = { [] }) {
            self.mode = mode
            self.trustLevel = trustLevel
            self.initialBackend = initialBackend
            self.queueRetryInterval = queueRetryInterval
            self.conversation = conversation
            self.logging = logging
            self.backendChosenByPerson = backendChosenByPerson
            self.soulChosenByPerson = soulChosenByPerson
            self.startupNotes = startupNotes
        }
    }

    let configuration: Configuration
    let reader: any LineReader
    let console: Console
    let printer: BlockPrinter
    let middleware: [any Middleware]
    let catalog: BackendCatalog
    let souls: (any SoulControl)?
    let completionWords: CompletionWords?
    /// The offline queue, when the front end has one (the executable wires `ReceptionQueue`'s).
    let queue: (any QueueControl)?
    /// The conversation log (the executable wires `ReceptionLog`'s), and this session's use of it.
    var log: LogSession
    var state: SessionState
    var session: BackendConnection?
    var backendName: String = ""
    /// Why the last request that was queued waits (`QueuedNotice.cause`).
    var lastQueuedCause: QueuedNotice.Cause?
    /// A line already being read while queued messages were delivered: the next input.
    var pendingInput: Task<LineInput, Never>?
    /// True once the session is leaving: a delivery stopped now is not the person saying "not
    /// this one" (Ctrl-C), so its message stays queued.
    var isLeaving = false

    public init(configuration: Configuration, reader: any LineReader, console: Console,
                middleware: [any Middleware], catalog: BackendCatalog, souls: (any SoulControl)?,
                completionWords: CompletionWords? = nil, queue: (any QueueControl)? = nil, log: (any LogControl)? = nil) {
        self.completionWords = completionWords
        self.queue = queue
        self.log = LogSession(control: log, writing: configuration.logging)
        self.configuration = configuration
        self.reader = reader
        self.console = console
        self.printer = BlockPrinter(styled: console.mode == .styled)
        self.middleware = middleware
        self.catalog = catalog
        self.souls = souls
        self.state = SessionState(sessionID: UUID().uuidString.lowercased(), trustLevel: configuration.trustLevel ?? 0)
        self.state.trustChosenByPerson = configuration.trustLevel != nil
    }

    /// The session as it stands (for tests and embedding).
    public var snapshot: SessionState { state }

    /// Runs until `/quit` or end of input. Returns the process exit status.
    public func run() async -> Int32 {
        InterruptMonitor.shared.install()
        // A conversation to carry on is read first: its backend and soul are the session's.
        var resumed: (ConversationRecord, [ExchangeRecord])?
        switch conversationToResume(configuration.conversation) {
        case .success(let found): resumed = found
        case .failure(let failure):
            error(failure.message)
            return 1
        }
        var backend = configuration.initialBackend
        if let (conversation, _) = resumed {
            if !configuration.backendChosenByPerson { backend = conversation.backend }
            if !configuration.soulChosenByPerson, let soul = conversation.soul, let souls, soul != soulForLog {
                do { _ = try souls.use(soul) } catch {
                    warning("The conversation's soul \(soul) cannot be used (\(describe(error))); \(souls.currentName) speaks instead.")
                }
            }
        }
        // Stopped by SIGTERM or SIGHUP while connecting: 128 + the signal, as everywhere else.
        guard await connect(to: backend) else {
            if resumed != nil, !configuration.backendChosenByPerson, InterruptMonitor.shared.terminationSignal == nil {
                // The profile the conversation was held with may be gone or renamed: another carries it on.
                note("The conversation was held with \(backend); --backend NAME carries it on with another (reception backends lists them).")
            }
            return InterruptMonitor.shared.terminationSignal.map { 128 + $0 } ?? 1
        }
        greet(notes: await configuration.startupNotes())
        if let (conversation, exchanges) = resumed { await resume(conversation, exchanges) }
        if let problem = queue?.problem { error(problem) }
        // Messages queued while the backend was unreachable (in this or an earlier run) go first;
        // a script's own commands are read and run meanwhile (see `deliverWhileReading`).
        if reader.isInteractive {
            await flushQueue()
        } else if await deliverWhileReading().leave {
            await leave()
            return exitStatus
        }
        var pending = ""
        var overlong = false
        while true {
            if let message = souls?.reloadIfChanged() { note(message) }
            let retry = pending.isEmpty ? retryQueueWhileIdle() : nil
            let input: LineInput
            if InterruptMonitor.shared.terminationSignal != nil {
                input = .endOfInput
            } else if let read = pendingInput {
                // Read while queued messages were delivered.
                pendingInput = nil
                input = await read.value
            } else {
                input = await reader.readLine(prompt: pending.isEmpty ? prompt : continuationPrompt)
            }
            retry?.cancel()
            switch input {
            case .idle:
                await flushQueue(quiet: true)
                reader.idleWorkFinished()
                continue
            case .endOfInput:
                // A message continued with "\\" and then the end (a script's last line, Ctrl-D at
                // the "…" prompt) is still a message: sent, not dropped without a word.
                let unfinished = pending.trimmingCharacters(in: .whitespacesAndNewlines)
                if !unfinished.isEmpty, InterruptMonitor.shared.terminationSignal == nil {
                    pending = ""
                    reader.remember(unfinished.replacingOccurrences(of: "\n", with: " "))
                    if unfinished.hasPrefix("/") { _ = await runCommand(unfinished) } else { await send(unfinished) }
                }
                await leave()
                return exitStatus
            case _ where InterruptMonitor.shared.terminationSignal != nil:
                await leave()
                return exitStatus
            case .interrupt:
                pending = ""
                continue
            case .line(let raw):
                // An edit made while the prompt waited applies to this line's answer, not only
                // to the next one (the check before the prompt ran before the edit). A /soul
                // command handles the soul itself: checked here too, "/soul reload" said twice.
                let command = raw.split(separator: " ", maxSplits: 1).first.map { $0.lowercased() }
                if command != "/soul", let message = souls?.reloadIfChanged() { note(message) }
                // A trailing backslash continues the message on the next line (at a terminal and
                // from a script alike: how a script sends a message of several lines); a doubled
                // one is a backslash that ends the line ("C:\\temp\\").
                let (line, continues) = Self.continuation(raw)
                // A message continued line after line is bounded as one line is: past the
                // limit, it is dropped to its last line and said, not sent in part.
                if overlong || pending.utf8.count + line.utf8.count > BoundedLine.limit {
                    if !overlong {
                        error("A message of several lines over \(BoundedLine.limit >> 20) MB was not sent.")
                        state.failedTasks += 1
                    }
                    overlong = continues
                    pending = ""
                    continue
                }
                if continues {
                    pending += line + "\n"
                    continue
                }
                let text = (pending + line).trimmingCharacters(in: .whitespacesAndNewlines)
                pending = ""
                guard !text.isEmpty else { continue }
                reader.remember(text.replacingOccurrences(of: "\n", with: " "))
                if text.hasPrefix("/") {
                    if await runCommand(text) == .quit {
                        await leave()
                        return exitStatus
                    }
                } else if let number = Self.typedNumber(text), !state.lastFollowups.isEmpty || backendSuggestsFollowups {
                    await sendFollowup(number)
                } else if let whole = state.lastAnswerInFull, MoreRequest.asksForMore(text) {
                    showInFull(whole, asked: text)
                } else {
                    await send(text)
                }
                // SIGTERM or SIGHUP stopped what ran (as Ctrl-C would), or `/quit` came while
                // queued messages were delivered: leave now.
                if InterruptMonitor.shared.terminationSignal != nil || isLeaving {
                    await leave()
                    return exitStatus
                }
            }
        }
    }

    /// A line as typed: without its trailing `\` and true when that continues the message on
    /// the next line; a trailing `\\` stands for one backslash that ends it.
    static func continuation(_ raw: String) -> (line: String, continues: Bool) {
        let trailing = raw.reversed().prefix { $0 == "\\" }.count
        guard trailing > 0 else { return (raw, false) }
        let kept = String(raw.dropLast(trailing)) + String(repeating: "\\", count: trailing / 2)
        return (kept, trailing % 2 == 1)
    }

    /// 128 + the signal after SIGTERM or SIGHUP (the shell's convention); else 0, or 1 when
    /// input was a script and one of its tasks failed or one of its messages was too long to
    /// send, so a script can tell.
    var exitStatus: Int32 {
        if let signal = InterruptMonitor.shared.terminationSignal { return 128 + signal }
        let lost = state.failedTasks + StandardInputLines.skippedLines.load(ordering: .relaxed)
        return !reader.isInteractive && lost > 0 ? 1 : 0
    }

    var prompt: String {
        console.mode == .styled ? "\u{1}\u{1B}[1;36m\u{2}›\u{1}\u{1B}[0m\u{2} " : (console.mode == .plain && isInteractiveInput ? "› " : "")
    }

    var continuationPrompt: String { console.mode == .styled ? "… " : "" }

    nonisolated var isInteractiveInput: Bool { isatty(STDIN_FILENO) == 1 }

    // MARK: messages

    func send(_ text: String) async {
        // A script goes on reading while older queued messages are delivered: the new one
        // waits behind them in the queue, and its own commands run meanwhile.
        if !reader.isInteractive, hasMessagesToDeliver(), await Self.answers(session?.backend.descriptor.endpoint) {
            await queueBehindDelivery(text)
            if await deliverWhileReading().leave { isLeaving = true }
            return
        }
        // What waited in the offline queue goes before the new message, in order; while the
        // backend is still unreachable the new one joins them without another attempt.
        // Quiet: a backend still down says nothing more here than the new message's own
        // "queued" line (it joins the older ones without another word).
        let hold = await flushQueue(quiet: true)
        let request = stampedForLog(ReceptionRequest(text: text, conversation: state.turns, trustLevel: state.trustLevel, goal: state.goal,
                                                     sessionID: state.sessionID))
        var context = ReceptionContext(intentOverride: state.pendingOverride)
        if hold, let queue { context = queue.holding(context, behindDelivery: false) }
        state.pendingOverride = nil
        state.transcript.append(TranscriptEntry(speaker: .person, markdown: text))
        await execute(request, context: context)
    }

    /// Whether the backend numbers follow-up questions (task engines such as `local` and Loop
    /// Symphony): there a number alone is a choice among them, never a message. To a
    /// conversational backend (a language model, Friday) it is an ordinary reply ("how many
    /// guests?" "4").
    var backendSuggestsFollowups: Bool {
        session?.backend.descriptor.capabilities.contains(.interventions) ?? false
    }

    /// True when something takes connections at `endpoint` (nil: a backend with no server).
    static func answers(_ endpoint: String?) async -> Bool {
        guard let endpoint else { return true }
        return await EndpointProbe.accepts(endpoint, within: .seconds(5))
    }

    /// A number typed alone, of any size: "99999999999999999999" is no Int, and was sent as a
    /// message where every other number picks a follow-up (it picks none: there are not that many).
    static func typedNumber(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text) ?? (text.hasPrefix("-") ? Int.min : Int.max)
    }

    func sendFollowup(_ number: Int) async {
        guard !state.lastFollowups.isEmpty else {
            error("A number alone picks a follow-up question, and the last answer offered none: nothing was sent. /send \(number) sends it as a message.")
            return
        }
        guard let question = state.lastFollowups.element(numbered: number) else {
            let shown = number == Int.max ? "that large" : number == Int.min ? "that small" : "\(number)"
            error("There is no follow-up \(shown); /followups lists \(state.lastFollowups.count).")
            return
        }
        state.commandsUsed.insert("followup-number")
        if console.mode != .json { console.line(style(dim: "→ \(TerminalText.line(question, limit: 500))")) }
        await send(question)
    }

    /// Sends a request through the pipeline and shows its events until the stream ends,
    /// Ctrl-C is pressed (the backend is asked to cancel) or the backend fails.
    @discardableResult
    func execute(_ request: ReceptionRequest, context: ReceptionContext) async -> ExecuteOutcome {
        guard let session else { error("No backend is connected; /backend lists them."); return .failed }
        let pipeline = Pipeline(middleware: middleware, backend: session.backend)
        let running = RunningTask()
        let consumer = Task { try await self.consume(pipeline: pipeline, request: request, context: context, running: running) }
        let cancellable = session.backend.descriptor.capabilities.contains(.cancellation)
        let backend = session.backend
        let interrupted = Mutex(false)
        let previous = InterruptMonitor.shared.push {
            interrupted.withLock { $0 = true }
            consumer.cancel()
            if cancellable, let taskID = running.taskID {
                Task { try? await backend.cancel(taskID: taskID) }
            }
        }
        var outcome = ExecuteOutcome.answered
        var errorText: String?
        do {
            // Cancelled by its caller (leaving while queued messages are delivered): stop
            // following; the task goes on at the engine, which the next attempt asks about.
            try await withTaskCancellationHandler { try await consumer.value } onCancel: { consumer.cancel() }
        } catch is CancellationError {
            outcome = .cancelled
        } catch {
            state.failedTasks += 1
            // A half-streamed answer ends its line before the error, not beside it.
            if running.midText { console.write("\n"); running.midText = false }
            // A bare "HTTP 500: Internal Server Error" did not say which server said it.
            if case BackendError.http(let status, let detail)? = error as? BackendError {
                errorText = "The \(backendName) server answered HTTP \(status): \(detail)"
            } else {
                errorText = describe(error)
            }
            self.error(errorText!)
            outcome = .failed
        }
        InterruptMonitor.shared.restore(previous)
        if running.queued { outcome = .queued }
        if running.midText { console.write("\n") }
        let sent = state.lastRequest?.id == request.id ? state.lastRequest ?? request : request
        switch outcome {
        case .answered: state.recordMessage(sent, status: running.ending ?? "answered")
        case .queued: state.recordMessage(sent, status: "queued")
        case .failed: state.recordMessage(sent, status: "failed")
        case .cancelled: state.recordMessage(sent, status: "cancelled")
        }
        // An answer stopped half-way (Ctrl-C, a failure, a lost connection) was still seen:
        // history and /save keep what was shown, once.
        if let sent = state.lastRequest { recordPartial(running, request: sent) }
        logEnded(request, sent: sent, outcome: interrupted.withLock({ $0 }) ? .cancelled : outcome,
                 running: running, errorText: errorText)
        if interrupted.withLock({ $0 }) {
            console.stopSpinner(running.spinner)
            let taskNote = running.taskID.map { cancellable ? " (asked the backend to cancel \($0))" : " (\($0) may still run on the backend)" } ?? ""
            let signal = InterruptMonitor.shared.terminationSignal.map { $0 == SIGHUP ? "SIGHUP" : "SIGTERM" }
            if console.mode == .json {
                console.line(EventJSON.message("cancelled", "Cancelled by \(signal ?? "Ctrl-C")\(taskNote)").line)
            } else if let signal {
                console.line(style(yellow: "Stopped by \(signal)\(taskNote). Leaving."))
            } else {
                console.line(style(yellow: "Cancelled\(taskNote). Back at the prompt."))
            }
            outcome = .cancelled
        }
        return outcome
    }

    private func consume(pipeline: Pipeline, request: ReceptionRequest, context: ReceptionContext, running: RunningTask) async throws {
        let exchange = try await pipeline.send(request, context: context)
        if case .submit = request.action {
            state.lastAnswerInFull = nil
            state.lastRequest = exchange.request
            state.lastWirePayload = pipeline.backend.wirePayload(for: exchange.request)
            showClassification(exchange.request)
        }
        // On its way: now it is written to the log (a log that waits cannot hold the message up).
        logBegan(request, sent: exchange.request)
        running.spinner = console.startSpinner("working…")
        defer { console.stopSpinner(running.spinner) }
        var sawTerminal = false
        for try await event in exchange.events {
            try Task.checkCancellation()
            // A quiet retry of the queue speaks once the backend answers (see `flushQueue`).
            if case .queued = event.event {} else if console.isHolding { console.release() }
            if console.mode == .json { console.line(EventJSON(event).line) }
            if case .textDelta = event.event {} else if running.midText { console.write("\n"); running.midText = false }
            switch event.event {
            case .accepted(let taskID, let status):
                running.taskID = taskID
                state.lastTaskID = taskID
                console.updateSpinner("\(status.rawValue.replacingOccurrences(of: "_", with: " "))…")
            case .status(_, let status):
                console.updateSpinner("\(status.rawValue.replacingOccurrences(of: "_", with: " "))…")
            case .thinking(let text):
                console.updateSpinner(text)
            case .planAwaitingApproval(let plan):
                sawTerminal = true
                if let earlier = state.pendingPlan, earlier.request.id != exchange.request.id {
                    // One plan waits at a time: the earlier one will not run, and says so.
                    state.recordMessage(earlier.request, status: "plan replaced, not run")
                    logPlanClosed(earlier.request.id, .replaced)
                    note("The plan for “\(TerminalText.line(earlier.request.text, limit: 80))” was not approved and is replaced by this one; it will not run.")
                }
                state.pendingPlan = PendingPlan(plan: plan, request: exchange.request)
                running.ending = "plan waiting for /approve"
                running.logEnding = (.planWaiting, nil, nil)
                running.markShown()
                show(event, fallback: [DisplayBlock(role: .plan, title: "Plan", markdown: plan.summary)])
                running.final = (lastDisplayText, plan.summary)
                // Said once: a soul's rendering of the plan may already say how to approve it.
                let said = event.display.contains { $0.markdown.contains("/approve") || $0.items.contains { $0.contains("/approve") } }
                if console.mode != .json, !said {
                    console.line(style(dim: "Type /approve to run this plan, or /reject to drop it."))
                }
            case .progress(let progress):
                show(event, fallback: [DisplayBlock(role: .progress, markdown: progress.line)])
                console.updateSpinner(progress.line)
            case .textDelta(let text):
                console.stopSpinner(running.spinner)
                let rendered = TerminalText.clean(event.display.first?.markdown ?? text)
                let first = !running.hasStreamed
                running.stream(raw: text, shown: rendered)
                // A paragraph that resumes after a status line already starts on a line of
                // its own: its leading line breaks would only add blank lines on screen.
                let onScreen = running.midText || first ? rendered : String(rendered.drop { $0 == "\n" })
                // In the log before it is on screen: a kill now leaves what was shown there.
                logShown(request.id, shown: rendered, engineText: text)
                if !rendered.isEmpty { running.markShown() }
                if console.mode != .json, !onScreen.isEmpty { console.write(onScreen); running.midText = true }
            case .toolUse(let tool):
                show(event, fallback: [DisplayBlock(role: .progress, markdown: "using \(tool.name)")])
            case .permissionRequest(let permission):
                console.stopSpinner(running.spinner)
                try await askPermission(permission)
            case .result(let result):
                sawTerminal = true
                console.stopSpinner(running.spinner)
                running.markShown()
                show(event, fallback: result.textWasStreamed ? [] : [DisplayBlock(role: .summary, markdown: result.text)])
                state.lastAnswerInFull = event.displayInFull
                running.final = (record(result, request: exchange.request, streamed: running.takeStreamed().shown), result.text)
                running.result = result
                running.ending = result.outcome?.rawValue ?? "answered"
                running.logEnding = (.answered, result.outcome, nil)
                await askAfterTask(result)
            case .queued(let notice):
                sawTerminal = true
                running.queued = true
                lastQueuedCause = notice.cause ?? .unreachable
                console.stopSpinner(running.spinner)
                if console.mode != .json { console.line(style(yellow: TerminalText.clean(notice.message))) }
                state.transcript.append(TranscriptEntry(speaker: .system, markdown: notice.message))
            case .failure(let failure):
                sawTerminal = true
                if !failure.cancelled { state.failedTasks += 1 }
                running.ending = failure.cancelled ? "cancelled" : "failed"
                running.logEnding = (failure.cancelled ? .cancelled : .failed, nil, failure.message)
                console.stopSpinner(running.spinner)
                recordPartial(running, request: exchange.request)
                show(event, fallback: [DisplayBlock(role: .error, markdown: failure.message)])
                state.transcript.append(TranscriptEntry(speaker: .system, markdown: "Failed: \(failure.message)"))
            }
        }
        if running.midText { console.write("\n"); running.midText = false }
        if !sawTerminal {
            // A stream that ended because Ctrl-C (or SIGTERM) cancelled it broke no promise:
            // the cancel notice says what happened, not an error line before it.
            try Task.checkCancellation()
            // The contract promises a terminal event; a backend that broke it still must not
            // lose what it already said (`execute` records the partial answer).
            error("The \(backendName) backend ended its answer without a result.")
        }
    }

    /// What an answer stopped half-way had shown, into history and the transcript, once.
    private func recordPartial(_ running: RunningTask, request: ReceptionRequest) {
        guard let partial = running.unrecordedPartial() else { return }
        lastDisplay = []
        running.final = (record(BackendResult(text: partial.raw, textWasStreamed: true), request: request, streamed: partial.shown), partial.raw)
    }

    /// Keeps an answer in the conversation and the transcript; returns it as it was shown.
    @discardableResult
    private func record(_ result: BackendResult, request: ReceptionRequest, streamed: String) -> String {
        let followups = result.followups.gated(forTrustLevel: request.trustLevel)
        state.lastFollowups = followups.plainFollowups
        state.lastFindings = result.findings
        state.turns.append(ConversationTurn(asked: request, outcome: result.outcome, summary: result.text))
        var shown = streamed
        var markdown = streamed
        let blocks = lastDisplay.isEmpty && !result.textWasStreamed ? [DisplayBlock(role: .summary, markdown: result.text)] : lastDisplay
        if !blocks.isEmpty {
            shown += (shown.isEmpty ? "" : "\n\n") + BlockPrinter(styled: false).text(for: blocks)
            markdown += (markdown.isEmpty ? "" : "\n\n") + BlockPrinter.markdown(for: blocks)
        }
        // The transcript keeps the soul's Markdown (what /save writes); the log, what was shown.
        state.transcript.append(TranscriptEntry(speaker: .reception, markdown: markdown))
        if let soul = souls?.currentLabel, state.soulsHeard.last != soul { state.soulsHeard.append(soul) }
        lastDisplay = []
        return shown
    }

    private var lastDisplay: [DisplayBlock] = []

    /// The blocks just shown, as plain text (what the log keeps of a plan).
    private var lastDisplayText: String { BlockPrinter(styled: false).text(for: lastDisplay) }

    /// "tell me more" after an answer the soul cut short: the whole answer, which the engine
    /// already sent (asked, the local engine had nothing more and said so). Once: asked again,
    /// the engine is asked.
    private func showInFull(_ blocks: [DisplayBlock], asked: String) {
        state.lastAnswerInFull = nil
        state.transcript.append(TranscriptEntry(speaker: .person, markdown: asked))
        let preface = "The whole of the last answer, with what the soul left out; ask again and the \(backendName) backend is asked for more."
        let text = printer.text(for: blocks)
        state.transcript.append(TranscriptEntry(speaker: .reception, markdown: BlockPrinter.markdown(for: blocks)))
        if console.mode == .json {
            // Its own type: a script that reads "result" events must not take this for a new answer.
            var json = EventJSON.message("answer_in_full", TerminalText.clean(BlockPrinter(styled: false).text(for: blocks)))
            json.display = EventJSON.cleaned(blocks)
            console.line(json.line)
            return
        }
        console.line(style(dim: preface))
        console.line(text)
    }

    private func show(_ event: ResponseEvent, fallback: [DisplayBlock]) {
        let blocks = event.display.isEmpty ? fallback : event.display
        lastDisplay = blocks
        guard console.mode != .json, !blocks.isEmpty else { return }
        // A failure goes to standard error like every other error, so a script's output holds
        // only answers; the blocks keep their order.
        var start = 0
        while start < blocks.count {
            let isError = blocks[start].role == .error
            var end = start
            while end < blocks.count, (blocks[end].role == .error) == isError { end += 1 }
            let text = printer.text(for: Array(blocks[start..<end]))
            if isError { console.errorLine(text) } else { console.line(text) }
            start = end
        }
    }

    private func showClassification(_ request: ReceptionRequest) {
        guard let classification = request.classification else { return }
        if console.mode == .json {
            var json = EventJSON(type: "classification")
            json.classification = classification
            json.request = request
            json.wire = state.lastWirePayload
            console.line(json.line)
            return
        }
        console.line(style(dim: "→ " + ClassificationText.line(classification)))
    }

    private func askPermission(_ permission: PermissionRequest) async throws {
        guard let session else { return }
        let scope = await askPermissionScope(permission)
        try await session.backend.answer(PermissionAnswer(requestID: permission.id, approved: scope != nil, scope: scope ?? .once))
        // A script was already told why it was denied.
        if console.mode != .json, reader.isInteractive {
            note(scope == nil ? "Denied; the backend goes on without it." : scope == .session ? "Allowed for this session." : "Allowed once.")
        }
    }

    /// Asks whether a tool may be used: yes once, yes for the session, or no (nil). Anything
    /// but an answer that says yes is no. Input that is not a terminal is never asked (its
    /// next line is the next message, not an answer): the request is shown and denied, the
    /// safe default, since a script cannot take back what a tool did.
    func askPermissionScope(_ permission: PermissionRequest) async -> PermissionAnswer.Scope? {
        let tool = permission.tool.map { TerminalText.line($0, limit: 80) }
        var question = "The backend asks permission to \(tool.map { "use \($0)" } ?? "go on"): \(TerminalText.line(permission.description, limit: 300))"
        if let input = permission.input, let text = try? String(decoding: Wire.encode(TerminalText.cleanStrings(input)), as: UTF8.self) {
            question += "\n  input: \(TerminalText.line(text, limit: 300))"
        }
        guard reader.isInteractive else {
            if console.mode == .json {
                console.line(EventJSON.message("question_not_asked", TerminalText.clean(question)).line)
            } else {
                note("Not asked, because input is not a terminal: \(question)\nDenied: a script never grants a tool permission.")
            }
            return nil
        }
        if reader.discardTypedAhead() { note(Self.typedAheadDiscarded) }
        let choices = "Allow? [y] yes, once · [s] yes, for this session · [N] no"
        // The question goes above the prompt: line editing redraws a prompt of one line only.
        if console.mode == .json {
            console.line(EventJSON.message("question", TerminalText.clean(question) + "\n" + choices).line)
        } else {
            console.line(TerminalText.clean(question))
        }
        let input = await reader.readLine(prompt: console.mode == .styled ? "\(choices) " : "\(choices)\n")
        guard case .line(let answer) = input else { return nil }
        switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
        case "y", "yes", "once": return .once
        case "s", "session", "yes for the session", "always": return .session
        case "", "n", "no": return nil
        default:
            keepUnanswered(answer, takenAs: "no")
            return nil
        }
    }

    /// A line typed at a question that is not an answer to it: taken as no (never a silent
    /// yes), and not lost. A command is run next, as soon as the question is done (a person
    /// who types `/trust-metrics` there wants to see it, or `/quit` to leave); anything else
    /// is not sent (it may have been meant for the question) but kept in the line history,
    /// where the up arrow brings it back.
    func keepUnanswered(_ line: String, takenAs answer: String) {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("/") {
            note("“\(TerminalText.line(text, limit: 80))” is not an answer, so the question is taken as \(answer); \(CommandLineWords.split(text).first ?? text) runs now.")
            pendingInput = Task { .line(text) }
        } else {
            reader.remember(text.replacingOccurrences(of: "\n", with: " "))
            note("“\(TerminalText.line(text, limit: 80))” is not an answer, so the question is taken as \(answer). It was not sent; the up arrow brings it back.")
        }
    }

    private func askAfterTask(_ result: BackendResult) async {
        guard let afterTask = session?.afterTask, let question = await afterTask(result) else { return }
        // An offer of a level below the session's is no upgrade: a yes would lower it (issue
        // 21, point 3). One at the session's level still raises the server's record.
        if let level = question.trustLevel, level < state.trustLevel { return }
        // At the session's own level the question would read as if the mode were off: say
        // what a yes still does.
        let text = question.trustLevel == state.trustLevel
            ? question.text + " (This session already runs at that level; a yes makes the server remember it for your next sessions.)"
            : question.text
        guard await ask(text, answerCommand: question.answerCommand) else {
            if reader.isInteractive { note("Keeping the current setting.") }
            return
        }
        do {
            console.line(MarkdownText.render(try await question.onYes(), styled: console.mode == .styled))
            if let level = question.trustLevel {
                state.trustLevel = level
                state.trustChosenByPerson = true
                note("This session now sends requests at trust level \(level).")
            }
        } catch {
            self.error(describe(error))
        }
    }

    static let typedAheadDiscarded = "What you typed before this question was discarded, so that it cannot answer it."

    /// A yes/no question; anything but y/yes is no (never a silent yes). Input that is not a
    /// terminal is never asked: no scripted line is taken as an answer (it was meant as the
    /// next message); the question is shown as a notice, with the command that answers it.
    func ask(_ question: String, answerCommand: String?) async -> Bool {
        let question = TerminalText.clean(question, singleLine: true)
        guard reader.isInteractive else {
            let how = answerCommand.map { " To say yes, type: \($0)" } ?? " Taken as no."
            if console.mode == .json {
                var json = EventJSON.message("question_not_asked", question)
                json.text = answerCommand
                console.line(json.line)
            } else {
                note("Not asked, because input is not a terminal: \(question)\(how)")
            }
            return false
        }
        // The question is an ordinary (wrapped) line and the prompt only "[y/N]": a prompt wider
        // than the terminal wraps, and readline's redraw of a wrapped prompt left its tail on
        // screen after the answer.
        if reader.discardTypedAhead() { note(Self.typedAheadDiscarded) }
        if console.mode == .json { console.line(EventJSON.message("question", question).line) } else { console.line(question) }
        let input = await reader.readLine(prompt: console.mode == .styled ? "[y/N] " : "[y/N]\n")
        guard case .line(let answer) = input else { return false }
        switch answer.trimmingCharacters(in: .whitespaces).lowercased() {
        case "y", "yes": return true
        case "", "n", "no": return false
        default:
            keepUnanswered(answer, takenAs: "no" + (answerCommand.map { " (\($0) says yes later)" } ?? ""))
            return false
        }
    }

    // MARK: backends

    @discardableResult
    func connect(to name: String) async -> Bool {
        if configuration.leftOutBackends.contains(name) {
            error(Self.sentence("The profile \(name) has problems in the backend configuration (said when Reception started), so it is left out of this session; fix them and start again", then: stillOn))
            return false
        }
        // Connecting can take seconds (a server that is slow to answer, a large notes folder to
        // read): Ctrl-C, SIGTERM or SIGHUP stops it, where it was not heard until it was done.
        let catalog = self.catalog, console = self.console
        let connecting = Task { try await catalog.connect(name) }
        let listening = InterruptMonitor.shared.push { connecting.cancel() }
        defer { InterruptMonitor.shared.restore(listening) }
        // A start that takes more than a moment says it is working (the screen stayed blank
        // for seconds); a quick one draws nothing.
        let working = Task { () -> Task<Void, Never>? in
            try? await Task.sleep(for: .milliseconds(400))
            return Task.isCancelled ? nil : console.startSpinner("starting the \(name) backend…")
        }
        let connected = await connecting.result
        working.cancel()
        console.stopSpinner(await working.value)
        do {
            let newSession = try connected.get()
            if let old = session { await old.shutdown() }
            session = newSession
            backendName = name
            completionWords?.use(newSession.commands)
            if !state.trustChosenByPerson, let level = newSession.defaultTrustLevel, (0...2).contains(level) { state.trustLevel = level }
            state.pendingPlan = nil
            if let notice = newSession.notice { note(notice) }
            if let problem = newSession.warning { warning(problem) }
            if let disagreement = newSession.trustLevelDisagreement?(state.trustLevel, state.trustChosenByPerson) { note(disagreement) }
            return true
        } catch let error as BackendCatalogError {
            self.error(Self.sentence(error.description, then: stillOn))
            return false
        } catch where connecting.isCancelled {
            self.error("Stopped starting the \(name) backend." + stillOn)
            return false
        } catch {
            self.error(Self.sentence("Cannot start the \(name) backend: \(describe(error))", then: stillOn))
            return false
        }
    }

    /// After a switch that failed, which backend the next message goes to: said, or a person
    /// who scrolled past the error took the old backend's answer for the new one's.
    private var stillOn: String {
        session == nil ? "" : " Still on the \(backendName) backend."
    }

    /// `message`, ended as a sentence, then what follows it ("… refused (nothing listens there)"
    /// ran into "Still on the local backend.").
    static func sentence(_ message: String, then next: String) -> String {
        guard !next.isEmpty else { return message }
        let trimmed = message.trimmingCharacters(in: .whitespaces)
        return trimmed + (trimmed.last.map { ".!?".contains($0) } == true ? "" : ".") + next
    }

    func leave() async {
        isLeaving = true
        remindOfQueuedMessages()
        if let plan = state.pendingPlan {
            // The plan lives in this session only: say so rather than leave it to be wondered about.
            note("The plan for “\(TerminalText.line(plan.request.text, limit: 80))” was not approved; it will not run.")
            state.recordMessage(plan.request, status: "plan not approved, not run")
            logPlanClosed(plan.request.id, .unanswered)
            state.pendingPlan = nil
        }
        if let session { await session.shutdown() }
        session = nil
    }

    private func greet(notes: [String]) {
        guard console.mode != .json else {
            console.line(EventJSON.message("ready", "backend \(backendName), soul \(souls?.currentLabel ?? "none"), trust \(state.trustLevel)").line)
            return
        }
        guard console.mode == .styled || isInteractiveInput else { return }
        if let greeting = souls?.greeting { console.line(MarkdownText.render(greeting, styled: console.mode == .styled)) }
        // The name comes from the soul file: foreign text, cleaned like everything else it says.
        let soul = souls.map { " · soul \(TerminalText.clean($0.currentLabel, singleLine: true))" } ?? ""
        console.line(style(dim: "Reception · backend \(backendName)\(soul) · trust \(state.trustLevel) · /help for commands, Ctrl-D to leave"))
        for line in notes { note(line) }
    }

    // MARK: output helpers

    func note(_ text: String) {
        let text = TerminalText.clean(text)
        if console.mode == .json { console.line(EventJSON.message("note", text).line) } else { console.line(style(dim: text)) }
    }

    /// Something the person should know that stops nothing (a log not written): on standard
    /// error in a script, so its output holds only answers.
    func warning(_ text: String) {
        let text = TerminalText.clean(text)
        switch console.mode {
        case .json: console.line(EventJSON.message("warning", text).line)
        case .styled: console.errorLine(Style.yellow("! ") + text)
        case .plain: console.errorLine("warning: \(text)")
        }
    }

    func error(_ text: String) {
        // Error text often quotes a server; it is cleaned like any foreign text.
        let text = TerminalText.clean(text)
        if console.mode == .json {
            console.line(EventJSON.message("error", text).line)
        } else {
            console.errorLine(console.mode == .styled ? Style.red("✗ ") + text : "error: \(text)")
        }
    }

    /// Text shown as it is (a file, a list), not rendered as Markdown; cleaned, as it may come
    /// from a file.
    func verbatim(_ text: String) {
        let text = TerminalText.clean(text)
        if console.mode == .json { console.line(EventJSON.message("output", text).line) } else { console.line(text) }
    }

    func say(_ markdown: String) {
        if console.mode == .json { console.line(EventJSON.message("output", markdown).line) } else { console.line(MarkdownText.render(markdown, styled: console.mode == .styled, width: console.columns)) }
    }

    func style(dim text: String) -> String { console.mode == .styled ? Style.dim(text) : text }
    func style(yellow text: String) -> String { console.mode == .styled ? Style.yellow(text) : text }
}

/// The id of the task in flight and its spinner, shared with the Ctrl-C handler.
final class RunningTask: Sendable {
    private let state = Mutex<(taskID: String?, spinner: Task<Void, Never>?)>((nil, nil))
    /// When the message was sent, and when the first of its answer was on screen (the log's timings).
    let started = ContinuousClock.now
    private let shownAt = Mutex<ContinuousClock.Instant?>(nil)
    /// What the log keeps of the answer: as shown, the engine's own text, the result, how it ended.
    private let logged = Mutex<(final: (shown: String, engineText: String)?, result: BackendResult?,
                                ending: (ending: ExchangeRecord.Ending, outcome: Outcome?, detail: String?)?)>((nil, nil, nil))

    var firstShown: ContinuousClock.Instant? { shownAt.withLock { $0 } }
    /// Notes the first character of the answer on screen (once).
    func markShown() { shownAt.withLock { if $0 == nil { $0 = .now } } }
    var final: (shown: String, engineText: String)? {
        get { logged.withLock { $0.final } }
        set { logged.withLock { $0.final = newValue } }
    }
    var result: BackendResult? {
        get { logged.withLock { $0.result } }
        set { logged.withLock { $0.result = newValue } }
    }
    var logEnding: (ending: ExchangeRecord.Ending, outcome: Outcome?, detail: String?)? {
        get { logged.withLock { $0.ending } }
        set { logged.withLock { $0.ending = newValue } }
    }

    /// Streamed text as the engine sent it and as the soul rendered it: history keeps the
    /// first, the transcript the second, whether or not a `.result` follows.
    private let streamed = Mutex<(raw: String, shown: String)>(("", ""))
    private let cursorMidLine = Mutex(false)
    private let wasQueued = Mutex(false)
    private let end = Mutex<String?>(nil)

    /// How the answer ended, in `/history`'s words (`SentMessage.status`), once it did.
    var ending: String? {
        get { end.withLock { $0 } }
        set { end.withLock { $0 = newValue } }
    }

    /// True when the request was queued for later instead of sent.
    var queued: Bool {
        get { wasQueued.withLock { $0 } }
        set { wasQueued.withLock { $0 = newValue } }
    }

    /// True while the cursor sits after streamed text, not at the start of a line.
    var midText: Bool {
        get { cursorMidLine.withLock { $0 } }
        set { cursorMidLine.withLock { $0 = newValue } }
    }

    /// True once any text of this answer was streamed.
    var hasStreamed: Bool { streamed.withLock { !$0.raw.isEmpty } }

    func stream(raw: String, shown: String) {
        streamed.withLock { $0.raw += raw; $0.shown += shown }
    }

    /// The streamed text, now recorded with its result.
    func takeStreamed() -> (raw: String, shown: String) {
        streamed.withLock { value in defer { value = ("", "") }; return value }
    }

    /// Streamed text no result recorded (the answer stopped half-way), if any.
    func unrecordedPartial() -> (raw: String, shown: String)? {
        let partial = takeStreamed()
        return partial.raw.isEmpty ? nil : partial
    }
    var taskID: String? {
        get { state.withLock { $0.taskID } }
        set { state.withLock { $0.taskID = newValue } }
    }
    var spinner: Task<Void, Never>? {
        get { state.withLock { $0.spinner } }
        set { state.withLock { $0.spinner = newValue } }
    }
}

/// Errors as people should read them.
func describe(_ error: any Error) -> String {
    String(describing: error)
}
