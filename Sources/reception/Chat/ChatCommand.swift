import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionIntent
import ReceptionLog
import ReceptionQueue
import ReceptionREPL
import ReceptionSoul

/// The interactive REPL (the default command).
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat with a backend through the intent and personality middleware (the default).",
        discussion: """
        On a terminal: readline editing, history in $XDG_STATE_HOME/reception/history, tab \
        completion, a spinner while a task runs, Ctrl-C to cancel it, Ctrl-D to leave.
        With standard input from a pipe or file: one message or /command per line, plain \
        text output without colours (or --json: one JSON object per event).
        Every exchange is kept in the conversation log ($XDG_DATA_HOME/reception/conversations.sqlite; \
        reception logs reads, searches and removes it): -c carries the last conversation on, \
        --no-log keeps this session out of it.
        """
    )

    @Option(name: .long, help: ArgumentHelp("Backend to start on: a kind or a profile name (reception backends lists them; default local, or the continued conversation's). Without it, at a terminal, Reception also says which model servers run on this machine (Ollama, llama.cpp, LM Studio, vLLM on their usual ports).", valueName: "name"))
    var backend: String?

    @Option(name: .long, help: ArgumentHelp("Model for a language-model backend (openai): overrides its profile's model.", valueName: "name"))
    var model: String?

    @Option(name: .long, help: ArgumentHelp("Soul name (reception soul list), a soul.md file, or a folder holding SOUL.md and its companions (default: default, or the continued conversation's).", valueName: "name|file|dir"))
    var soul: String?

    @Option(name: .long, help: ArgumentHelp("Rewrite answers in the soul's voice with this language-model profile (an openai profile), facts checked; `off` turns off a profile's \"rewrite\": true.", valueName: "profile"))
    var rewrite: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Longest wait for one rewrite, in seconds (default: the profile's rewrite_timeout_s, else 30).", valueName: "seconds"))
    var rewriteTimeout: Int?

    @Option(name: .long, help: ArgumentHelp("Folder of Markdown files for the local backend to answer from (default: Reception's built-in knowledge, which knows Reception itself).", valueName: "dir"))
    var knowledge: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Trust level: 0 plan first, 1 semi-autonomous, 2 autonomous (default: what the backend asks for: its profile's trust_level, a Loop Symphony server's own level, 1 for local; else 0).", valueName: "0|1|2"))
    var trust: Int?

    @Flag(name: .long, help: "Print one JSON object per event instead of text.")
    var json = false

    @Flag(name: .long, help: "Plain text without colours or spinner, even on a terminal.")
    var plain = false

    @Option(name: .long, help: ArgumentHelp("Where to keep input history.", valueName: "file"))
    var historyFile: String?

    @Flag(name: .long, help: "Keep no input history on disk.")
    var noHistory = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Pause between the local backend's steps, in milliseconds (default 120; demos, tests).", valueName: "ms"))
    var localStepMs: Int?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("While you are idle at the prompt, how often messages queued for an unreachable backend are tried again, in seconds.", valueName: "seconds"))
    var queueRetry: Int = 30

    @Flag(name: [.customShort("c"), .customLong("continue")], help: "Carry on the last conversation from the conversation log: its earlier turns go with your next message, on its backend and with its soul unless you name others.")
    var continueLast = false

    @Option(name: .long, help: ArgumentHelp("Carry on this conversation from the log (its id, or the first characters of it, as reception logs lists them).", valueName: "id"))
    var conversation: String?

    @Flag(name: .long, help: "Keep this session out of the conversation log (reception logs off stops logging for good).")
    var noLog = false

    @Option(name: .long, help: ArgumentHelp("Classify intents with this weights file (from `reception train`) instead of the built-in model (default: \"weights\" in $XDG_CONFIG_HOME/reception/intent.json, if set); built-in: the built-in model.", valueName: "file|built-in"))
    var intentWeights: String?

    @Flag(name: .long, help: "Do not verify servers' TLS certificates (your own development server with a self-signed certificate). Anyone on the network path could then read and change the session, API keys included.")
    var insecure = false

    func validate() throws {
        if let trust, !(0...2).contains(trust) { throw ValidationError("--trust must be 0, 1 or 2.") }
        if let localStepMs, !(0...60_000).contains(localStepMs) { throw ValidationError("--local-step-ms must be 0...60000.") }
        guard (1...3600).contains(queueRetry) else { throw ValidationError("--queue-retry must be 1...3600 seconds.") }
        if let rewriteTimeout, !(1...600).contains(rewriteTimeout) { throw ValidationError("--rewrite-timeout must be 1...600 seconds.") }
        // Both were taken and JSON won unsaid: a script asking for plain text got JSON.
        if json, plain { throw ValidationError("--json prints events as JSON, --plain as plain text: use one of them.") }
        if continueLast, conversation != nil { throw ValidationError("--continue carries on the last conversation, --conversation ID a given one: use one of them.") }
        if let conversation, conversation.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--conversation needs an id (reception logs lists them).") }
    }

    /// The backend `--model` applies to: the one named, else a continued conversation's (read
    /// from the log only in that case), else `local`.
    func modelBackend(environment: PluginEnvironment) -> String {
        if let backend { return backend }
        guard conversationStart != .new else { return "local" }
        let id: String? = if case .id(let id) = conversationStart { id } else { nil }
        let log = ConversationLog(path: ConversationLog.path(in: environment))
        return (try? log.conversation(id))?.backend ?? "local"
    }

    /// The conversation to start with: a new one, the last one, or a given one.
    var conversationStart: ConversationStart {
        if let conversation { return .id(conversation.trimmingCharacters(in: .whitespaces)) }
        return continueLast ? .last : .new
    }

    func run() async throws {
        // One person's session: its few threads (readline, the answer's task, the warm-up)
        // take turns, so one malloc arena serves them all. With glibc's default, an arena per
        // thread, a thread's first allocations could start a heap of its own: up to 0.6 MB
        // more resident after one answer in some runs, for contention a REPL never has.
        MallocArenas.limit(to: 1)
        let interactive = isatty(STDIN_FILENO) == 1
        let colour = interactive && isatty(STDOUT_FILENO) == 1 && !plain
            && ProcessInfo.processInfo.environment["NO_COLOR"] == nil && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        let mode: OutputMode = json ? .json : (colour ? .styled : .plain)
        let console = Console.standard(mode: mode)
        // Before any connection: every transport reads this one switch.
        TLSVerification.bootstrap(verifyingCertificates: !insecure)
        if insecure {
            console.errorLine("warning: --insecure: servers' TLS certificates are not verified; anyone on the network path could read and change this session, API keys included.")
        }
        let environment = PluginEnvironment.standard()
        // A new conversation on no chosen backend, at a terminal: beside the rest of start-up.
        let localServers = backend == nil && conversationStart == .new && interactive && mode != .json
            ? LocalServerNotice.start(environment) : nil

        let library: SoulLibrary
        do {
            library = try SoulLibrary(catalog: SoulCatalog(directories: SoulCatalog.standardDirectories()), initial: soul ?? "default")
        } catch let error as SoulParser.ParseError {
            // A file that is no soul is the file's problem, not the command line's: its
            // located diagnostics as `soul lint` prints them, and no usage line.
            StandardStreams.writeError(TerminalText.clean("\(error)\nerror: cannot start with soul \(soul ?? "default"); " +
                                                          "`reception soul lint` checks a soul file\n"))
            throw ExitCode(1)
        } catch {
            StandardStreams.writeError(TerminalText.clean("error: cannot use soul \(soul ?? "default"): \(error)\n"))
            throw ExitCode(1)
        }

        let (usableProfiles, usable) = BackendSetup.usableCatalog(environment: environment, localKnowledge: knowledge, localStepMilliseconds: localStepMs)
        // Looked up once, and only when asked for: with -c it reads the log for the continued
        // conversation's backend.
        lazy var starting = modelBackend(environment: environment)
        if let problems = usable.problems {
            // A broken configuration is shown where it is, never skipped silently. It stops the
            // REPL when the backend it starts on is touched (or nothing of the file can be read);
            // a mistake in a profile nobody asked for is said, and that profile left out.
            let touched = usable.brokenNames.contains(starting)
            guard !usable.isUnreadable, !touched else {
                StandardStreams.writeError("error: the backend configuration has problems:\n\(problems)\n")
                throw ExitCode(1)
            }
            let names = usable.brokenNames.sorted().joined(separator: ", ")
            StandardStreams.writeError("warning: the backend configuration has problems\(names.isEmpty ? "" : " (left out this session: \(names))"):\n\(problems)\n")
        }
        var catalog = usableProfiles
        for notice in catalog.replacedBuiltIns { console.errorLine("note: \(TerminalText.clean(notice, singleLine: true))") }
        if let model {
            do {
                catalog = try BackendSetup.applying(model: model, to: starting, in: catalog)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        // --knowledge is the local backend's: a session that starts elsewhere (--backend, or the
        // backend of a continued conversation) dropped it without a word.
        if knowledge != nil {
            if let (_, plugin) = try? catalog.entry(named: starting), plugin.kind != "local" {
                // The kind only where the profile's name does not say it ("loop-symphony (loop-symphony)").
                let kind = plugin.kind == starting ? "" : " (\(plugin.kind))"
                console.errorLine("note: --knowledge is for the local backend; this session starts on \(TerminalText.line(starting, limit: 60))" +
                                  "\(kind), and /backend local answers from it.")
            }
        }
        let completionWords = CompletionWords()
        let reader: any LineReader
        if interactive && !json {
            let history = noHistory ? nil : (historyFile ?? environment.stateDirectory + "/history")
            let backendNames = catalog.names
            let readline = ReadlineLineReader(historyPath: history) { line, _ in
                REPL.completions(line: line, backends: backendNames, souls: library.names(),
                                 extensions: completionWords.extensionCommands,
                                 extensionArguments: completionWords.arguments(for:_:))
            }
            if let problem = readline.historyProblem {
                console.errorLine("warning: \(problem); this session keeps no input history on disk.")
            }
            reader = readline
        } else {
            reader = PlainLineReader()
        }
        // The offline queue: messages for an unreachable backend wait on disk until it answers.
        // Innermost, so it keeps the request exactly as the backend would have received it.
        let classifier = ChatIntentModel.classifier(option: intentWeights, configDirectory: environment.configDirectory, warn: console.errorLine)
        var middleware: [any Middleware] = [IntentMiddleware(classifier: classifier), PersonalityMiddleware(store: library.store)]
        // The rewrite stage goes outside the personality middleware: it rewrites what that
        // rendered, and falls back to it.
        var rewriteStage: RewriteSetup.Stage?
        do {
            if let name = try RewriteSetup.profileName(requested: rewrite, in: catalog) {
                let stage = try await RewriteSetup.connect(name, in: catalog, timeoutSeconds: rewriteTimeout)
                if let notice = stage.connection.notice { console.errorLine("warning: rewrite profile \(name): \(notice)") }
                let log = RewriteLog(rewriter: name)
                middleware.insert(RewriteMiddleware(store: library.store, rewriter: stage.rewriter, log: log), at: 1)
                library.useRewriteLog(log)
                rewriteStage = stage
            }
        } catch {
            // Like an unknown --backend or --soul: a name the configuration lacks, or a server
            // that does not answer, is no mistake in how the command was typed (exit 1, no usage).
            StandardStreams.writeError(TerminalText.clean("error: cannot use the rewrite profile\(rewrite.map { " " + $0 } ?? ""): \(error)\n"))
            throw ExitCode(1)
        }
        var queueControl: OfflineQueueControl?
        let queuePath = OfflineQueueControl.path(environment: environment)
        do {
            let queue = try OfflineQueue(path: queuePath)
            middleware.append(OfflineQueueMiddleware(queue: queue))
            queueControl = OfflineQueueControl(queue: queue)
        } catch {
            console.errorLine("warning: the offline queue \(queuePath) cannot be opened (\(error)); messages sent while a backend is unreachable will not be queued.")
        }
        // The conversation log: nothing is opened here (the first message opens it), so the
        // prompt comes as fast as without one.
        let log = ConversationLogControl.standard(environment: environment, catalog: catalog)
        var configuration = REPL.Configuration(mode: mode, trustLevel: trust, initialBackend: backend ?? "local", queueRetryInterval: .seconds(queueRetry),
                                               conversation: conversationStart, logging: !noLog,
                                               backendChosenByPerson: backend != nil, soulChosenByPerson: soul != nil,
                                               startupNotes: { await localServers?.lines() ?? [] })
        configuration.leftOutBackends = usable.brokenNames
        let repl = REPL(
            configuration: configuration,
            reader: reader, console: console,
            middleware: middleware,
            catalog: catalog, souls: library, completionWords: completionWords, queue: queueControl, log: log)
        let status = await repl.run()
        if let rewriteStage { await rewriteStage.connection.shutdown() }
        if status != 0 { throw ExitCode(status) }
    }
}
