import ArgumentParser
import Foundation
import ReceptionCore

/// `reception`: the REPL by default, plus tools for intent corpora, souls and servers.
@main
struct Reception: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reception",
        abstract: "A personality and intent layer between you and problem-solving backends.",
        discussion: """
        With no subcommand, starts the interactive REPL on the embedded `local` backend with \
        the `default` soul: no server, no API key. Type /help inside it for its commands; \
        `reception chat --help` lists its options (--backend, --soul, --trust, --knowledge, …).
        """,
        version: "0.1.0",
        subcommands: [ChatCommand.self, ClassifyCommand.self, EvalCommand.self, TrainCommand.self, LabelCommand.self,
                      SoulCommand.self, BackendsCommand.self, QueueCommand.self, LogsCommand.self, ServeCommand.self, BenchCommand.self],
        defaultSubcommand: ChatCommand.self
    )

    /// ArgumentParser's own entry point, with one change: its messages quote what was typed
    /// (an unknown option, a soul name, a path), so they are cleaned of escape sequences
    /// before they reach the terminal. Help goes to standard output, errors to standard error,
    /// with ArgumentParser's exit codes, as before.
    static func main() async {
        keepStandardDescriptorsTaken()
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if let refusal = unknownSubcommand(arguments) { throw ValidationError(refusal) }
            var command = try parseChatOptionsBeforeChat(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = TerminalText.clean(fullMessage(for: error))
            if !message.isEmpty {
                if code == .success {
                    print(message)
                } else {
                    FileHandle.standardError.write(Data((message + "\n").utf8))
                }
            }
            Foundation.exit(code.rawValue)
        }
    }

    /// Run with a standard descriptor closed (`reception 2>&-`, `<&-`), the next file opened
    /// takes its number: a warning meant for standard error would be written into a pending
    /// log file, and a read of standard input would read whatever took descriptor 0. Each
    /// closed one is given /dev/null, opened the other way round, so that using it fails
    /// ("bad file descriptor") as using a closed one does, and no file ever takes its number.
    static func keepStandardDescriptorsTaken() {
        for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", (descriptor == 0 ? O_WRONLY : O_RDONLY) | O_CLOEXEC)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
    }

    /// The REPL's options work without `chat` (it is the default subcommand), so people put
    /// them first and then add the word: `reception --no-log chat`. ArgumentParser reads the
    /// options as the default subcommand's and then refuses "chat" as an unexpected argument.
    /// When that parse fails and "chat" is among the words, it is read once more with "chat"
    /// first; if that fails too, the error said is the one about what is really wrong (below).
    static func parseChatOptionsBeforeChat(_ arguments: [String]) throws -> any ParsableCommand {
        do {
            return try parseAsRoot(arguments)
        } catch {
            let chat = ChatCommand.configuration.commandName ?? "chat"
            guard arguments.first?.hasPrefix("-") == true, let index = arguments.firstIndex(of: chat) else { throw error }
            do {
                return try parseAsRoot([chat] + arguments[..<index] + arguments[(index + 1)...])
            } catch let retried {
                // The first parse refused the word "chat"; the second says what else is wrong
                // ("--trust 9 chat"). When the first refused something else, "chat" was some
                // option's value, and the first error stands.
                throw message(for: error).contains("'\(chat)'") ? retried : error
            }
        }
    }

    /// `reception bogus` was read as the chat command's, and answered with its usage and
    /// "Unexpected argument": the REPL takes no words, so a first word that is no subcommand
    /// is a mistyped one. Names the subcommands, and the closest.
    /// `reception help bogus` printed the root help and exited 0, as if nothing were wrong:
    /// the word after `help` is checked the same way.
    static func unknownSubcommand(_ arguments: [String]) -> String? {
        guard var first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        if first == "help", arguments.count > 1, !arguments[1].hasPrefix("-") { first = arguments[1] }
        guard !names.contains(first) else { return nil }
        let hint = closest(first, among: names).map { " Did you mean '\($0)'?" } ?? ""
        return "unknown subcommand '\(first)'.\(hint)\nSubcommands: \(names.dropLast().joined(separator: ", ")) " +
            "(reception --help says what each does; with none, reception starts the REPL)."
    }
}
