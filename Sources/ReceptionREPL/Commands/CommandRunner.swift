import Foundation
import ReceptionCore
import Synchronization

enum CommandResult { case proceed, quit }

enum CommandRunner {
    /// True for `/quit` and `/exit`.
    static func isQuit(_ line: String) -> Bool {
        ["/quit", "/exit"].contains(CommandLineWords.split(line).first?.lowercased() ?? "")
    }

    /// Commands that start a backend task or change the session: while queued messages are
    /// being delivered they wait for the delivery to end (two tasks would share one screen,
    /// or a backend switch would pull the session from under the message being sent).
    static func waitsForDelivery(_ line: String) -> Bool {
        let words = CommandLineWords.split(line).map { $0.lowercased() }
        switch words.first {
        case "/backend": return words.count > 1
        case "/approve", "/followups": return true
        case "/queue": return true
        default: return false
        }
    }
}

extension REPL {
    /// Runs one slash command line. Errors are printed, never thrown: a bad command
    /// must not end the session.
    func runCommand(_ line: String) async -> CommandResult {
        let words = CommandLineWords.split(line)
        guard let name = words.first?.lowercased() else { return .proceed }
        let arguments = Array(words.dropFirst())
        state.commandsUsed.insert(name)
        // "/new trip to Kyoto" started an empty conversation and dropped the words unsaid, as if
        // they had been sent: a command that takes no words says so and does nothing. `/quit`
        // still leaves with words after it, as IRC's `/quit reason` does.
        if !arguments.isEmpty, !["/quit", "/exit"].contains(name), let command = SlashCommand.named(name), command.arguments.isEmpty {
            error("\(name) takes no words: type \(name) alone.\(name == "/new" ? " Your first message then goes in the new conversation." : "")")
            return .proceed
        }
        switch name {
        case "/quit", "/exit": return .quit
        case "/help": help(arguments)
        case "/soul": soul(arguments)
        case "/backend": await backend(arguments)
        case "/intent": intent(arguments)
        case "/trust": trust(arguments)
        case "/approve": await approve()
        case "/reject": await reject()
        case "/cancel": await cancel(arguments)
        case "/followups": await followups(arguments)
        case "/send":
            // The text as typed, spaces and all: `/send 2` sends "2", `/send /etc/hosts?` a
            // line starting with a slash.
            let text = line.drop { $0 == " " }.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { error("Usage: /send TEXT"); break }
            await send(text)
        case "/goal": goal(arguments)
        case "/request": request()
        case "/raw": raw()
        case "/history": historyCommand()
        case "/new": await newConversation()
        case "/save": save(arguments)
        case "/queue": await queueCommand(arguments)
        default:
            if let extensionCommand = session?.commands.first(where: { $0.name == name }) {
                await runExtension(extensionCommand, arguments)
            } else {
                let known = SlashCommand.all.map(\.name) + (session?.commands.map(\.name) ?? [])
                // The same near-miss rule as every other did-you-mean: "/hepl" is /help, but
                // "/foo" is not /soul (three edits of four letters is another word).
                let suggestion = closest(name, among: known).map { " Did you mean \($0)?" } ?? ""
                error("Unknown command \(name).\(suggestion) /help lists the commands.")
            }
        }
        return .proceed
    }

    /// Runs a backend's command so that Ctrl-C cancels it (a slow server must not hold the
    /// prompt hostage), and says so instead of reporting the cancelled call as an error.
    private func runExtension(_ command: BackendCommand, _ arguments: [String]) async {
        let work: Task<String, any Error>
        if let live = command.live {
            // A live view prints as it goes, until it ends or Ctrl-C cancels it.
            let console = console
            let output = CommandOutput(interactive: reader.isInteractive, { markdown in
                if console.mode == .json {
                    console.line(EventJSON.message("output", TerminalText.clean(markdown)).line)
                } else {
                    console.line(MarkdownText.render(markdown, styled: console.mode == .styled, width: console.columns))
                }
            }, plain: { text in
                console.line(console.mode == .json ? EventJSON.message("output", TerminalText.clean(text)).line : TerminalText.clean(text))
            })
            work = Task { try await live(arguments, output) }
        } else {
            work = Task { try await command.run(arguments) }
        }
        let interrupted = Mutex(false)
        let previous = InterruptMonitor.shared.push {
            interrupted.withLock { $0 = true }
            work.cancel()
        }
        defer { InterruptMonitor.shared.restore(previous) }
        do {
            let text = try await work.value
            if command.live == nil || !text.isEmpty { say(text) }
            if command.inTranscript {
                // Typed as one line: kept as typed, then the answer as it was shown.
                state.transcript.append(TranscriptEntry(speaker: .person, markdown: ([command.name] + arguments).joined(separator: " ")))
                // As Markdown, like an answer's text, so that "/chat NAME …" and "ask NAME …" save
                // the same reply the same way.
                state.transcript.append(TranscriptEntry(speaker: .reception, markdown: text))
            }
            // A live view ends on Ctrl-C with its own summary; the person still hears where they are.
            if command.live != nil, interrupted.withLock({ $0 }) { note("Stopped \(command.name) (Ctrl-C). Back at the prompt.") }
        } catch {
            if interrupted.withLock({ $0 }) {
                note(command.live == nil ? "\(command.name) cancelled by Ctrl-C. Back at the prompt." : "Stopped \(command.name) (Ctrl-C). Back at the prompt.")
            } else {
                self.error(describe(error))
            }
        }
    }

    /// Names for tab completion after the given command.
    /// `extensionArguments` answers for the backend's own commands (e.g. `/model` names).
    public nonisolated static func completions(line: String, backends: [String], souls: [String], extensions: [String],
                                               extensionArguments: (_ command: String, _ arguments: [String]) -> [String] = { _, _ in [] }) -> [String] {
        let words = CommandLineWords.split(line)
        let completingFirst = words.count <= 1 && !line.hasSuffix(" ")
        if completingFirst { return SlashCommand.all.map(\.name) + ["/exit"] + extensions }
        switch words.first?.lowercased() {
        case "/soul": return ["list", "show", "reload", "why"] + souls
        case "/backend": return backends
        case "/trust": return ["0", "1", "2"]
        case "/intent":
            if words.count >= 2 && words[1] == "set" {
                return (words.count == 2 || (words.count == 3 && !line.hasSuffix(" "))) ? IntentType.knownCases.map(\.rawValue) + ["-"]
                    : UrgencyLevel.knownCases.map(\.rawValue) + ["-"]
            }
            return ["set", "clear"]
        case "/help": return SlashCommand.all.map(\.name) + extensions
        case "/goal": return ["clear"]
        case "/queue": return ["list", "drop", "flush", "resend"]
        case let name? where extensions.contains(name):
            // The word being typed is not an argument yet.
            let typed = Array(words.dropFirst().dropLast(line.hasSuffix(" ") ? 0 : 1))
            return extensionArguments(name, typed)
        default: return []
        }
    }

    private func help(_ arguments: [String]) {
        if let topic = arguments.first {
            if let command = SlashCommand.named(topic) {
                say("**\(command.name)**\(command.arguments.isEmpty ? "" : " " + command.arguments)\n\n\(command.details)")
            } else if let extensionCommand = session?.commands.first(where: { $0.name == (topic.hasPrefix("/") ? topic : "/" + topic) }) {
                let arguments = extensionCommand.arguments.isEmpty ? "" : " " + extensionCommand.arguments
                say("**\(extensionCommand.name)**\(arguments): \(extensionCommand.summary)\n\n\(extensionCommand.usage)")
            } else {
                error("No command \(topic). /help lists them.")
            }
            return
        }
        // Only what this backend can do: no /approve without plans, no /cancel without cancelling.
        let capabilities = session?.backend.descriptor.capabilities
        let offered = SlashCommand.all.filter { command in
            guard let capabilities else { return true }
            switch command.name {
            case "/approve", "/reject": return capabilities.contains(.planApproval)
            case "/cancel": return capabilities.contains(.cancellation)
            default: return true
            }
        }
        let own = offered.map { (Self.helpLeft($0.name, $0.arguments), $0.summary) }
        let extras = (session?.commands ?? []).map { (Self.helpLeft($0.name, $0.arguments), $0.summary) }
        // Two columns: a summary that wraps goes on under the summaries, not under the commands.
        // A command whose arguments are longer than the column has its summary on the next line.
        let width = min(Self.helpColumnLimit, (own + extras).map(\.0.count).max() ?? 20)
        let column = width + 4
        func rows(_ entries: [(String, String)]) -> String {
            entries.map { left, summary in
                left.count > width
                    ? "  " + left + "\n" + String(repeating: " ", count: column) + summary
                    : "  " + left.padding(toLength: width + 2, withPad: " ", startingAt: 0) + summary
            }.joined(separator: "\n")
        }
        let closing = "Type a message to send it. End a line with \\ to continue on the next (\\\\ for a backslash that ends it). Ctrl-C cancels a running task; Ctrl-D leaves."
        // In JSON mode, one event like every other command's output: a script reads events.
        guard console.mode != .json else {
            let text = rows(own) + (extras.isEmpty ? "" : "\n\nFrom the \(backendName) backend:\n" + rows(extras)) + "\n\n" + closing
            return console.line(EventJSON.message("output", text).line)
        }
        console.line(rows(own), hanging: column)
        if !extras.isEmpty {
            console.line("\nFrom the \(backendName) backend:")
            console.line(rows(extras), hanging: column)
        }
        console.line("\n" + closing)
    }

    /// The widest command-and-arguments column `/help` makes: longer ones take a line of their own.
    static let helpColumnLimit = 36

    static func helpLeft(_ name: String, _ arguments: String) -> String {
        arguments.isEmpty ? name : "\(name) \(arguments)"
    }

    private func soul(_ arguments: [String]) {
        guard let souls else { return error("No personality layer is configured.") }
        switch arguments.first {
        case nil, "list":
            let listing = souls.listing()
            let names = listing.map(\.id)
            let current = souls.currentID
            // A soul whose file has errors is listed with them: choosing it would fail.
            var listed = listing.map { id, errors in
                let marker = id == current ? "* \(id) (current)" : "  \(id)"
                return errors == 0 ? marker : marker + "  (\(errors) error\(errors == 1 ? "" : "s"): reception soul lint \(id))"
            }
            // A soul loaded from a file or folder is none of the known ones: still say which.
            if current.map({ !names.contains($0) }) ?? true { listed.append("* \(TerminalText.clean(souls.currentName, singleLine: true)) (current, not one of these)") }
            verbatim(listed.isEmpty ? "No soul files found. Using \(souls.currentName)." : listed.joined(separator: "\n"))
        // The file as it is on disk: rendered as Markdown, its headings lost their `#` and its
        // front matter its indentation, and what was shown could not be pasted back.
        case "show":
            // An edit not read yet is read first, so what is shown is said to be in use or not.
            if let message = souls.reloadIfChanged() { note(message) }
            verbatim(souls.show())
        case "reload": note(souls.reload())
        case "why": say(souls.why())
        case .some:
            // An unquoted path with spaces is one path, as /save takes it.
            do {
                note(try souls.use(arguments.joined(separator: " ")))
            } catch {
                // A located diagnostic says "error:" itself ("FILE:1:1: error: not UTF-8"); once is enough.
                let said = describe(error)
                self.error(said.replacingOccurrences(of: ": error: ", with: ": ", options: [], range: said.range(of: ": error: ")))
            }
        }
    }

    private func backend(_ arguments: [String]) async {
        guard let name = arguments.first else {
            let lines = catalog.entries.map { entry in
                // Printed as it is (not Markdown, where a leading "*" became a list bullet and
                // broke the column); the kind only where the profile's name is not the kind.
                let marker = entry.profile.name == backendName ? "→" : " "
                let kind = entry.profile.name == entry.plugin.kind ? "" : " (\(entry.plugin.kind))"
                let detail = entry.profile.values.isEmpty ? "" : " (\(entry.profile.summary))"
                return "\(marker) \(entry.profile.name)\(kind) — \(entry.profile.about ?? entry.plugin.summary)\(detail)"
            }
            let capabilities = session.map { "\ncurrent capabilities: \($0.backend.descriptor.capabilities.summary)" } ?? ""
            verbatim(lines.joined(separator: "\n") + "\n(→ the current one; /backend NAME switches)" + capabilities)
            return
        }
        if await connect(to: name) {
            note("Now using \(name): \(session?.backend.descriptor.summary ?? "").")
            await flushQueue()
        }
    }

    private func intent(_ arguments: [String]) {
        switch arguments.first?.lowercased() {
        case nil:
            var text = state.lastClassification.map(ClassificationText.explanation) ?? "No message has been classified yet."
            if let pending = state.pendingOverride {
                text += "\n\nNext message: intent \(pending.intent?.rawValue ?? "(classifier)"), urgency \(pending.urgency?.rawValue ?? "(classifier)")."
            }
            say(text)
        case "clear":
            guard arguments.count == 1 else { return error("Usage: /intent clear (it takes no more words)") }
            state.pendingOverride = nil
            note("The next message will be classified as usual.")
        case "set":
            let values = Array(arguments.dropFirst())
            guard !values.isEmpty, values.count <= 2 else { return error("Usage: /intent set INTENT [URGENCY] (use - to leave one to the classifier)") }
            var override = IntentOverride()
            if values[0] != "-" {
                guard let intent = IntentType(userInput: values[0]) else {
                    return error("Unknown intent \"\(values[0])\". Use one of: \(IntentType.knownCases.map(\.rawValue).joined(separator: ", ")).")
                }
                override.intent = intent
            }
            if values.count == 2, values[1] != "-" {
                guard let urgency = UrgencyLevel(userInput: values[1]) else {
                    return error("Unknown urgency \"\(values[1])\". Use one of: \(UrgencyLevel.knownCases.map(\.rawValue).joined(separator: ", ")).")
                }
                override.urgency = urgency
            }
            state.pendingOverride = override
            note("The next message goes out as intent \(override.intent?.rawValue ?? "(classifier)"), urgency \(override.urgency?.rawValue ?? "(classifier)").")
        default:
            error("Usage: /intent, /intent set INTENT [URGENCY], /intent clear")
        }
    }

    private func trust(_ arguments: [String]) {
        // A backend without plans runs every message at once: level 0 must not promise a plan.
        let plans = session?.backend.descriptor.capabilities.contains(.planApproval) ?? true
        let meanings = [plans ? "supervised: a plan first, /approve runs it"
                              : "supervised: the \(backendName) backend makes no plans, so messages still run at once",
                        "semi-autonomous: runs at once, detailed results",
                        "autonomous: runs at once, minimal output"]
        guard let value = arguments.first else {
            // The level is validated where it is set; a bad one must still never crash here.
            let meaning = meanings.indices.contains(state.trustLevel) ? meanings[state.trustLevel] : "not a level Reception knows (use 0, 1 or 2)"
            return say("Trust level \(state.trustLevel) — \(meaning).")
        }
        // "/trust 1 2" set 1 and dropped the 2 unsaid: one level, or none.
        guard arguments.count == 1, let level = Int(value), (0...2).contains(level) else {
            return error("Trust level must be 0, 1 or 2 (/trust LEVEL).")
        }
        state.trustLevel = level
        state.trustChosenByPerson = true
        note("Trust level \(level) — \(meanings[level]).")
    }

    private func approve() async {
        guard let pending = state.pendingPlan else { return error("No plan is waiting for approval.") }
        guard session?.backend.descriptor.capabilities.contains(.planApproval) == true else {
            return error("The \(backendName) backend has no plan approval.")
        }
        state.pendingPlan = nil
        var request = pending.request
        request.action = .approve(taskID: pending.plan.taskID)
        await execute(request, context: ReceptionContext())
    }

    private func reject() async {
        guard let pending = state.pendingPlan, let session else { return error("No plan is waiting for approval.") }
        state.pendingPlan = nil
        state.recordMessage(pending.request, status: "plan rejected")
        logPlanClosed(pending.request.id, .rejected)
        do {
            try await session.backend.reject(taskID: pending.plan.taskID)
            note("Plan dropped; nothing ran.")
        } catch {
            self.error(describe(error))
        }
    }

    private func cancel(_ arguments: [String]) async {
        guard let session else { return }
        guard let taskID = arguments.first ?? state.lastTaskID else {
            return error("No task to cancel. While a task runs, Ctrl-C cancels it.")
        }
        if state.pendingPlan?.plan.taskID == taskID {
            return error("\(taskID) is a plan waiting for approval, not a running task: /reject drops it.")
        }
        do {
            try await session.backend.cancel(taskID: taskID)
            note("Asked the backend to cancel \(taskID).")
        } catch BackendError.invalidTaskState(_, let reason) where arguments.isEmpty {
            // At the prompt the last task has usually finished: say so, not the backend's terse reply.
            let state = ["was ", "has ", "is being "].contains { reason.hasPrefix($0) } ? reason : "has finished"
            self.error("Nothing is running: the last task (\(taskID)) \(state). While a task runs, Ctrl-C cancels it.")
        } catch {
            self.error(describe(error))
        }
    }

    private func followups(_ arguments: [String]) async {
        // A mistyped argument is said as one, before whether there are follow-ups at all
        // ("/followups x" answered "No answer yet, so no follow-ups").
        if !arguments.isEmpty, arguments.count != 1 || REPL.typedNumber(arguments[0]) == nil { return error("Usage: /followups [N]") }
        guard !state.lastFollowups.isEmpty else {
            return note(state.lastRequest == nil ? "No answer yet, so no follow-ups: they come with an answer."
                                                 : "The last result had no follow-up suggestions.")
        }
        if let first = arguments.first {
            // `/followups 2` does what typing 2 does, rather than ignoring the number.
            return await sendFollowup(REPL.typedNumber(first)!)
        }
        let lines = state.lastFollowups.enumerated().map { "  \($0.offset + 1). \($0.element)" }
        say((lines + ["", "Type a number to send that question."]).joined(separator: "\n"))
    }

    private func goal(_ arguments: [String]) {
        if arguments.isEmpty { return say(state.goal.map { "Goal: \($0)" } ?? "No goal set. /goal TEXT sets one.") }
        if arguments == ["clear"] {
            guard state.goal != nil else { return note("No goal was set; nothing to clear.") }
            state.goal = nil
            return note("Goal cleared.")
        }
        state.goal = arguments.joined(separator: " ")
        note("Goal set: \(state.goal!)")
    }

    private func request() {
        guard let request = state.lastRequest else { return note("Nothing has been sent yet.") }
        // The engine's own wire body when the backend has one: that is what went out.
        if let wire = state.lastWirePayload {
            console.line(Wire.jsonString(wire, pretty: console.mode != .json))
        } else {
            console.line(Wire.jsonString(request, pretty: console.mode != .json))
        }
    }

    /// The engine's own words of the last answer: what history keeps and engines are sent back.
    private func raw() {
        guard var text = state.turns.last?.summary, !text.isEmpty else { return note("No answer yet.") }
        // The findings too: a terse soul leaves them out, and its note sends the reader here.
        if !state.lastFindings.isEmpty {
            text += "\n\nFindings:\n" + state.lastFindings.map { finding in
                "- " + finding.content + (finding.source.map { $0.isEmpty ? "" : " (\($0))" } ?? "")
            }.joined(separator: "\n")
        }
        if console.mode == .json { console.line(EventJSON.message("output", text).line) } else { console.line(TerminalText.clean(text)) }
    }

    private func save(_ arguments: [String]) {
        let force = arguments.contains("--force")
        let words = arguments.filter { $0 != "--force" }
        // An unquoted name with spaces is one file name, not a name and ignored words.
        guard !words.isEmpty else { return error("Usage: /save FILE [--force]") }
        let path = words.joined(separator: " ")
        let url = URL(fileURLWithPath: UserPath.expand(path))
        // What the name itself is (lstat: a link is not followed, a dangling one is not "missing").
        var info = stat()
        if lstat(url.path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return error("\(url.path) is a folder; /save takes a file name, such as \(url.appendingPathComponent("session.md").path).") }
            // --force replaces a file, never a device, a FIFO or a link: the rename would put the
            // transcript where /dev/null or the link was.
            if let kind = PrivateFile.irregularKind(of: url.path) {
                return error("\(url.path) is \(kind), not a regular file; /save replaces only a regular file, so it is left as it is. Choose another name.")
            }
            if !force { return error("\(url.path) already exists; /save \(path) --force replaces it.") }
        }
        // Every soul the answers were said in ("Reception (default), then Ambrose (butler)").
        let souls = state.soulsHeard.isEmpty ? self.souls?.currentLabel : state.soulsHeard.joined(separator: ", then ")
        let markdown = TranscriptWriter.markdown(state.transcript, sessionID: state.sessionID, backend: backendName, soul: souls)
        do {
            // The looks above choose the message; the write itself keeps the promise (never
            // replacing without --force, never through a link), whatever appears meanwhile.
            try PrivateFile.write(Data(markdown.utf8), to: url, existing: force ? .replaceRegularFile : .refuse)
            note("Saved \(Counted.phrase(state.transcript.count, "entry", plural: "entries")) to \(url.path).")
        } catch let failure as PrivateFile.Failure where failure.alreadyExists {
            self.error("\(url.path) already exists; /save \(path) --force replaces it.")
        } catch {
            self.error("Cannot write \(url.path): \(error)")
        }
    }
}

/// Splits a command line into words; double or single quotes group words.
enum CommandLineWords {
    static func split(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character.isWhitespace {
                if inWord { words.append(current); current = ""; inWord = false }
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }
}
