import ArgumentParser
import Foundation
import ReceptionCore

/// `reception serve SERVER ...`: runs the reference servers' program, which sits beside this
/// executable. The servers live there so that the chat binary carries no server framework.
struct ServeCommand: ParsableCommand {
    static let program = "reception-reference-server"
    /// The servers that program runs (its subcommands).
    static let servers = ["loop-symphony", "openai", "friday", "codex", "loomi", "timepoint"]

    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a deterministic reference server on 127.0.0.1 (for trying Reception and for tests).",
        discussion: """
        Servers: \(servers.joined(separator: ", ")). `reception serve NAME --help` lists its \
        options. This runs \
        the \(program) program built beside reception (swift build --product \(program), \
        with -c release for a release reception; scripts/install.sh installs both).
        """)

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The server and its options.", valueName: "server"))
    var arguments: [String] = []

    func validate() throws {
        if let server = arguments.first, !["--help", "-h", "help"].contains(server), !Self.servers.contains(server) {
            throw ValidationError("Unknown server '\(TerminalText.line(server, limit: 40))'. Servers: \(Self.servers.joined(separator: ", ")).")
        }
    }

    func run() throws {
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                             ?? CommandLine.arguments[0])
        let sibling = executable.deletingLastPathComponent().appendingPathComponent(Self.program).path
        guard FileManager.default.isExecutableFile(atPath: sibling) else {
            // Help still lists the servers (and says what is missing), with no error.
            if arguments.isEmpty || ["--help", "-h", "help"].contains(arguments[0]) {
                print(Reception.helpMessage(for: Self.self))
                print("\nNote: \(sibling) is missing. \(Self.howToBuild(besides: executable))")
                return
            }
            throw ValidationError("The reference servers are a program of their own, and \(sibling) is missing. \(Self.howToBuild(besides: executable))")
        }
        // Usage and mistakes are said here, as `reception serve`: the program's own name is
        // not one the person typed.
        guard let server = arguments.first, !["--help", "-h", "help"].contains(server) else {
            print(Reception.helpMessage(for: Self.self))
            return
        }
        let argv = [sibling] + arguments
        var cArguments = argv.map { strdup($0) } + [nil]
        execv(sibling, &cArguments)
        throw ValidationError("Cannot run \(sibling): \(String(cString: strerror(errno)))")
    }

    /// The command that puts the program where this executable looks for it: a build in the
    /// same configuration as this one (a debug build lands in `.build/debug`, which a release
    /// `reception` never looks in), or the install script for an installed `reception`.
    static func howToBuild(besides executable: URL) -> String {
        switch executable.deletingLastPathComponent().lastPathComponent {
        case "release": "Build it with: swift build -c release --product \(program)"
        case "debug": "Build it with: swift build --product \(program)"
        default: "scripts/install.sh installs it beside reception."
        }
    }
}
