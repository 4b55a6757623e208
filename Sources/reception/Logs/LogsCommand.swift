import ArgumentParser
import Foundation
import ReceptionCore
import ReceptionLog
import ReceptionStorage

/// `reception logs`: the conversation log from the shell: list, search, show, export,
/// remove, and turn logging off or on.
struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "List, search, show, export or remove logged conversations; turn logging off or on.",
        discussion: """
        The REPL logs every exchange (the message as typed, its intent and urgency, the answer as shown \
        and the engine's own text, how it ended, timings and tokens) in \
        $XDG_DATA_HOME/reception/conversations.sqlite (default ~/.local/share/reception/, readable by \
        you only). Keys, tokens and passwords are never written to it. `reception -c` carries the last \
        conversation on, `reception --conversation ID` any other; `reception --no-log` keeps a session \
        out of the log, `reception logs off` stops logging until `reception logs on`.

        IDs are conversation ids as `reception logs` lists them: the first characters are enough.
        DATE is 2026-12-01, 2026-12-01T09:30, today, yesterday, or an age: 30m, 12h, 7d, 4w.
        """,
        subcommands: [LogsListCommand.self, LogsShowCommand.self, LogsExportCommand.self, LogsRemoveCommand.self,
                      LogsOffCommand.self, LogsOnCommand.self, LogsStatusCommand.self],
        defaultSubcommand: LogsListCommand.self)

    /// This user's log. `reception logs` waits up to 5 s for a REPL's write to finish.
    static func log(environment: PluginEnvironment = .standard()) -> ConversationLog {
        ConversationLog(path: ConversationLog.path(in: environment), busyTimeout: 5)
    }

    /// A problem found while running: said on stderr, exit status 1 (usage errors are 64).
    /// An id typed empty or blank (`reception logs rm "$ID"` with `ID` unset) is a usage error:
    /// as a prefix it matches every id, and with one conversation in the log it named that one.
    static func checkID(_ id: String?) throws {
        if let id, id.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("The conversation id is empty (reception logs lists them; `last` names the most recent).")
        }
    }

    static func fail(_ message: String) -> ExitCode {
        StandardStreams.writeError("error: \(TerminalText.clean(message))\n")
        return ExitCode(1)
    }

    /// Why the log could not be used, naming it.
    static func problem(_ error: any Error, log: ConversationLog) -> String {
        if let error = error as? ConversationLogError { return error.description }
        return "the conversation log \(log.path) cannot be used: \(PrivateDatabase.reason(error))"
    }

    /// Runs `body` on the log; its errors become one located line and exit status 1.
    /// What to do about a damaged file: Reception never changes one, so the way on is the
    /// person's to take, and they should know that what sessions logged meanwhile is not lost.
    static func nextStep(after error: any Error, log: ConversationLog) -> String? {
        guard PrivateDatabase.isDamaged(error) else { return nil }
        return "Move it aside (mv \(log.path) \(log.path).damaged) and the next session starts a new log; what sessions logged " +
            "since waits in \(log.pendingFolder) and moves into the new one (but for what they added to conversations begun in " +
            "the damaged file). sqlite3's .recover may read what is left of the old one."
    }

    static func using<T>(_ log: ConversationLog, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let exit as ExitCode { throw exit } catch {
            throw fail(problem(error, log: log) + (nextStep(after: error, log: log).map { "\n" + $0 } ?? ""))
        }
    }
}

/// The filters every listing takes.
struct LogFilterOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Only exchanges with this backend profile.", valueName: "name"))
    var backend: String?

    @Option(name: .long, help: ArgumentHelp("Only exchanges with this soul.", valueName: "name"))
    var soul: String?

    @Option(name: .long, help: ArgumentHelp("Only messages of this intent (decision, research, action, curiosity, validation).", valueName: "intent"))
    var intent: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Only what was sent since DATE (2026-12-01, today, 12h, 7d …).", valueName: "date"))
    var since: String?

    func validate() throws {
        if let intent, IntentType(userInput: intent) == nil {
            throw ValidationError("Unknown intent \(TerminalText.line(intent, limit: 40)): use one of \(IntentType.knownCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if let since, LogDate.parse(since) == nil { throw ValidationError(LogDate.usage(since, option: "--since")) }
    }

    var filter: LogFilter {
        LogFilter(backend: backend, soul: soul, intent: intent.flatMap(IntentType.init(userInput:)), since: since.flatMap { LogDate.parse($0) })
    }
}

/// Dates as people type them after `--since` and `--before`.
enum LogDate {
    static func parse(_ text: String, now: Date = Date()) -> Date? {
        let typed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let calendar = Calendar.current
        switch typed {
        case "now": return now
        case "today": return calendar.startOfDay(for: now)
        case "yesterday": return calendar.date(byAdding: .day, value: -1, to: calendar.startOfDay(for: now))
        default: break
        }
        // "1M" reads as a month to many and as a minute to `m`: neither is guessed.
        if text.trimmingCharacters(in: .whitespaces).hasSuffix("M") { return nil }
        if let unit = typed.last, let amount = Double(typed.dropLast()), amount >= 0 {
            let seconds: Double? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86_400
            case "w": 604_800
            default: nil
            }
            if let seconds { return now.addingTimeInterval(-amount * seconds) }
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        return ISO8601DateFormatter().date(from: trimmed)
    }

    static func usage(_ text: String, option: String) -> String {
        "\(option) \(TerminalText.line(text, limit: 40)) is not a date: use 2026-12-01, 2026-12-01T09:30, today, yesterday, or an age such as 30m (minutes), 12h, 7d, 4w."
    }
}

/// How listings print: highlighted on a terminal, plain in a pipe, JSON on request.
enum LogsOutput {
    static var styled: Bool {
        isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// A snippet with its matching words highlighted (bold yellow on a terminal, as they
    /// are elsewhere), everything from the log cleaned of escape sequences first, on one line.
    static func highlighted(_ snippet: String, styled: Bool) -> String {
        let cleaned = TerminalText.clean(snippet, singleLine: true)
        var output = ""
        var inMatch = false
        for character in cleaned {
            switch character {
            case LogSearch.open:
                if styled, !inMatch { output += "\u{1B}[1;33m" }
                inMatch = true
            case LogSearch.close:
                if styled, inMatch { output += "\u{1B}[22;39m" }
                inMatch = false
            default: output.append(character)
            }
        }
        if styled, inMatch { output += "\u{1B}[22;39m" }
        return output
    }

    static func dim(_ text: String, styled: Bool) -> String { styled ? "\u{1B}[2m\(text)\u{1B}[22m" : text }

    /// `1a2b3c4d  2026-12-06 10:47  oai · default · 3 exchanges  first message…`; filtered
    /// (`--soul butler`), the backend and soul of the last exchange kept and `2 of 3 exchanges`.
    static func line(_ conversation: ConversationRecord, styled: Bool) -> String {
        let matching = conversation.matching
        // A soul read from a file is logged by its path: the listing names the file.
        let soul = (matching.map(\.soul) ?? conversation.soul).map { $0.contains("/") ? String($0.split(separator: "/").last ?? "") : $0 }
        let place = [matching?.backend ?? conversation.backend, soul].compactMap { $0.map { TerminalText.line($0, limit: 40) } }
            .joined(separator: " · ")
        let count = matching.map { $0.exchanges < conversation.exchangeCount } == true
            ? "\(matching!.exchanges) of " + Counted.phrase(conversation.exchangeCount, "exchange")
            : Counted.phrase(conversation.exchangeCount, "exchange")
        return "\(conversation.id.prefix(8))  " + dim(ConversationExport.timestamp(conversation.lastAt).prefix(16) + "  \(place) · "
                                                     + count, styled: styled)
            + "  " + TerminalText.line(conversation.title, limit: 100)
    }

    /// JSON for `--json`: dates in ISO 8601, safe to print.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = Wire.encoder(pretty: true)
        encoder.dateEncodingStrategy = .iso8601
        return TerminalText.jsonSafe(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
