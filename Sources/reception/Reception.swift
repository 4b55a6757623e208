import ArgumentParser

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
        subcommands: [ChatCommand.self, ClassifyCommand.self, EvalCommand.self, TrainCommand.self,
                      SoulCommand.self, BackendsCommand.self, QueueCommand.self, ServeCommand.self, BenchCommand.self],
        defaultSubcommand: ChatCommand.self
    )
}
