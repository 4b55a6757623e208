import Foundation
import ReceptionCore

/// The REPL commands TIMEPOINT brings. None of them ever reads a line of input: a sign-in
/// takes its secret from the profile or a file (so it never lands in the shell history),
/// and account deletion takes its confirmation typed as an argument.
public struct TimepointCommands: Sendable {
    let backend: TimepointBackend
    var client: TimepointClient { backend.client }

    public init(backend: TimepointBackend) { self.backend = backend }

    public var all: [BackendCommand] {
        [
            BackendCommand(name: "/signin", arguments: "dev EMAIL | apple FILE", summary: "sign in (dev admin key, or an Apple identity token from a file)",
                           usage: "/signin dev EMAIL [DISPLAY NAME]   with the profile's admin key (X-Admin-Key)\n/signin apple FILE               exchange the Apple identity token held in FILE",
                           completions: { $0.isEmpty ? ["dev", "apple"] : [] }) { try await signIn($0) },
            BackendCommand(name: "/signout", summary: "sign out: revoke the refresh token and forget it",
                           usage: "/signout") { _ in await client.signOut() },
            BackendCommand(name: "/account", arguments: "[delete [CONFIRMATION]]", summary: "who is signed in; delete the account",
                           usage: "/account                    who is signed in\n/account delete             what deleting means and the confirmation to type\n/account delete CONFIRMATION  deactivate the account (CONFIRMATION: its email)",
                           completions: { $0.isEmpty ? ["delete"] : [] }) { try await account($0) },
            BackendCommand(name: "/credits", arguments: "[history [PAGE] | costs]", summary: "balance, history and the cost table",
                           usage: "/credits              balance and what things cost\n/credits history [PAGE]  the ledger, 20 rows a page\n/credits costs        the cost table",
                           completions: { $0.isEmpty ? ["history", "costs"] : [] }) { try await credits($0) },
            BackendCommand(name: "/scene", arguments: "[ID | new QUERY | list | …]", summary: "the scene in context; open, list, generate, make private or public",
                           usage: """
                           /scene                       the scene the conversation is about
                           /scene ID                    open a scene (it becomes the context)
                           /scene new QUERY             generate a scene (costs credits; said first)
                           /scene list [public|private] [PAGE]   scenes you can see
                           /scene private | public      change the current scene's visibility (owner only)
                           /scene image                 whether it has an image, and its size
                           """,
                           completions: { $0.isEmpty ? ["new", "list", "private", "public", "image"] : [] }) { try await scene($0) }
                .statingCostFirst { try await scene($0, before: $1) },
            BackendCommand(name: "/jump", arguments: "next | prior [N [UNIT]]", summary: "travel in time from the current scene (costs credits)",
                           usage: "/jump next|prior [N [UNIT]]   UNIT: second, minute, hour, day (default), week, month, year",
                           completions: { arguments in arguments.isEmpty ? ["next", "prior"] : arguments.count == 2 ? ["second", "minute", "hour", "day", "week", "month", "year"] : [] }) { try await jump($0) }
                .statingCostFirst { try await jump($0, before: $1) }
                .keptInTranscript(),
            BackendCommand(name: "/timeline", summary: "the scenes linked before and after the current one",
                           usage: "/timeline") { _ in try await timeline() },
            BackendCommand(name: "/chat", arguments: "NAME MESSAGE", summary: "say something to one character of the scene",
                           usage: "/chat NAME MESSAGE   (or just write “ask NAME …”)",
                           completions: { [backend] arguments in arguments.isEmpty ? (backend.scene?.cast.map { SceneText.shortName($0.name) } ?? []) : [] }) { try await chat($0) }
                .statingCostFirst { try await chat($0, before: $1) }
                .keptInTranscript(),
            BackendCommand(name: "/dialog", arguments: "[DIRECTION]", summary: "more dialog among the scene's characters",
                           usage: "/dialog [DIRECTION]") { try await dialog($0) }
                .keptInTranscript(),
            BackendCommand(name: "/survey", arguments: "QUESTION", summary: "ask every character the same question",
                           usage: "/survey QUESTION") { try await survey($0) }
                .keptInTranscript(),
        ]
    }

    /// The scene in context, or a message saying how to get one.
    func currentScene() throws -> Timepoint {
        guard let scene = backend.scene else {
            throw TimepointError.unavailable("There is no scene yet: type a moment in history, or /scene ID, or /scene list.")
        }
        return scene
    }

    /// "A jump in time costs 2 credits; you have 48." Said before the call where the front end
    /// prints while a command runs (`output`); otherwise the first line of the answer.
    /// Returns what the answer starts with.
    func stateCost(_ action: String, cost: Int, before output: CommandOutput?) async throws -> String {
        let notice = try await client.costNotice(action, cost: cost)
        guard let output else { return notice + "\n\n" }
        output(notice)
        return ""
    }
}

extension BackendCommand {
    /// The same command, run so that a front end that prints while commands run shows the
    /// cost before the call is made (the person sees what it costs while it happens).
    func statingCostFirst(_ run: @escaping @Sendable ([String], CommandOutput) async throws -> String) -> BackendCommand {
        var command = self
        command.live = run
        return command
    }
}

/// A command typed wrongly: said as an error (on stderr, `error: Usage: …`), like every
/// other backend's, not printed as if it were an answer (nor kept in a saved transcript).
struct CommandUsage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
