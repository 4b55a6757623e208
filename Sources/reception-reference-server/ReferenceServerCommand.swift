import ArgumentParser

/// The deterministic reference servers, in a program of their own so that the chat binary
/// links no server framework. `reception serve ...` runs this program.
@main
struct ReferenceServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reception-reference-server",
        abstract: "Run a deterministic reference server on 127.0.0.1 (for trying Reception and for tests).",
        subcommands: [ServeLoopSymphonyCommand.self, ServeOpenAICommand.self, ServeFridayCommand.self, ServeCodexCommand.self,
                      ServeLoomiCommand.self, ServeTimepointCommand.self])
}
