/// The REPL's built-in slash commands: one table feeds `/help`, tab completion and
/// did-you-mean suggestions.
public struct SlashCommand: Sendable, Hashable {
    public var name: String
    public var arguments: String
    public var summary: String
    public var details: String

    public static let all: [SlashCommand] = [
        SlashCommand(name: "/help", arguments: "[COMMAND]", summary: "list commands, or explain one",
                     details: "Without an argument, lists every command. `/help /soul` explains one."),
        SlashCommand(name: "/soul", arguments: "[list | NAME | show | reload | why]", summary: "list, switch, show or reload personalities",
                     details: "`/soul` or `/soul list` lists the souls found; `/soul NAME` (or a path to a .md file) switches; `/soul show` prints the current soul.md; `/soul reload` re-reads it. Edits to the current file are picked up automatically; a broken edit keeps the last good soul and shows the errors. `/soul why` says what the language-model rewrite stage (`--rewrite PROFILE`) did with the last answer: which parts were rewritten, and for each that fell back to the deterministic rendering, the fact the rewrite lost, changed or added, or why there was no rewrite."),
        SlashCommand(name: "/backend", arguments: "[NAME]", summary: "list backends, or switch to one",
                     details: "`/backend` lists the configured backends and marks the current one; `/backend NAME` connects to another."),
        SlashCommand(name: "/intent", arguments: "[set INTENT [URGENCY] | clear]", summary: "explain the last classification, or set labels by hand",
                     details: "`/intent` shows the last message's intent and urgency with the features that decided them and the runner-up. `/intent set decision planning` uses those labels for the next message (either may be `-` to leave it to the classifier); `/intent clear` drops them.\nIntents: decision, research, action, curiosity, validation. Urgencies: immediate, soon, planning, exploratory."),
        SlashCommand(name: "/trust", arguments: "[0 | 1 | 2]", summary: "show or set the trust level",
                     details: "0 supervised: the backend shows a plan and waits for /approve. 1 semi-autonomous: runs at once with detailed results. 2 autonomous: runs at once with minimal output and fewer interventions. Reception never raises it on its own."),
        SlashCommand(name: "/approve", arguments: "", summary: "run the plan awaiting approval", details: "Runs the plan the backend proposed at trust level 0 and streams its progress."),
        SlashCommand(name: "/reject", arguments: "", summary: "drop the plan awaiting approval", details: "Discards the plan the backend proposed at trust level 0."),
        SlashCommand(name: "/cancel", arguments: "[TASK_ID]", summary: "ask the backend to cancel a task",
                     details: "Ctrl-C cancels the task that is running in front of you. `/cancel` asks the backend to stop the last task (or TASK_ID), e.g. one still running on a server after you stopped watching it."),
        SlashCommand(name: "/followups", arguments: "[N]", summary: "list suggested follow-ups, or send number N (typing N alone does too)",
                     details: "Lists the follow-up questions of the last result, numbered. `/followups N`, or typing just the number, sends that question."),
        SlashCommand(name: "/send", arguments: "TEXT", summary: "send TEXT as a message, exactly as typed",
                     details: "For a message the REPL would otherwise read another way: a number alone (which picks a follow-up where the backend suggests them) or a line starting with a slash."),
        SlashCommand(name: "/goal", arguments: "[TEXT | clear]", summary: "show or set the conversation goal",
                     details: "The goal travels as `context.goal` with every message and can shift how messages are classified."),
        SlashCommand(name: "/request", arguments: "", summary: "show the last request as sent (JSON)",
                     details: "Prints the last request exactly as the backend received it, after every middleware (intent, context)."),
        SlashCommand(name: "/raw", arguments: "", summary: "show the engine's own text and findings of the last answer",
                     details: "Prints the last answer as the engine wrote it, before the soul's rendering or rewrite (control characters removed)."),
        SlashCommand(name: "/history", arguments: "", summary: "list this conversation's messages",
                     details: "Each message of this conversation, as typed, with its classification and how it ended: an outcome (complete, bounded, …), cancelled, failed, queued, or a plan waiting for /approve or rejected. A conversation carried on from an earlier session (`reception -c`) lists its earlier messages too, read from the conversation log."),
        SlashCommand(name: "/new", arguments: "", summary: "start a new conversation",
                     details: "The next message goes without the conversation so far: the backend forgets it (Friday starts a new session), and /history and /save start empty. The conversation log keeps the last one; `reception --conversation ID` carries it on."),
        SlashCommand(name: "/save", arguments: "FILE [--force]", summary: "save the conversation as Markdown",
                     details: "Writes the transcript to FILE. An existing file is never overwritten unless you add --force."),
        SlashCommand(name: "/queue", arguments: "[list | drop N|all | flush | resend N]", summary: "messages queued while a backend was unreachable",
                     details: "A message sent while its backend cannot be reached is kept on disk and sent, in order and once, when the backend answers again: when Reception starts or switches to it, before your next message, or on `/queue flush`. `/queue` lists them (age, backend, first words); `/queue drop N` or `/queue drop all` forgets them. `/queue resend N` sends one that a crashed session may already have delivered to an engine that cannot check."),
        SlashCommand(name: "/quit", arguments: "", summary: "leave (Ctrl-D does too)", details: "Leaves the REPL; history is already saved. Words after it are ignored (`/quit bye` leaves too)."),
    ]

    public static func named(_ name: String) -> SlashCommand? {
        let wanted = name.hasPrefix("/") ? name : "/" + name
        if wanted == "/exit" { return all.first { $0.name == "/quit" } }
        return all.first { $0.name == wanted }
    }
}
