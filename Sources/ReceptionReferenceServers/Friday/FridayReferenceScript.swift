import Foundation
import ReceptionCore

/// What the reference Friday server answers, picked by words in the question (like the
/// scripted model behind the real server in `docs/friday.md`), in the frames the real
/// runtime sends (`upstream-contracts.md` §2.6): `info`, `session`, then for each text block
/// `thinking_complete` + `chunk`, for each tool `thinking` (steps) + `tool_use`, `complete` last.
///
/// | the question contains | the answer |
/// |---|---|
/// | anything else | four chunks; "util" + "ize" split across two (the default soul says "use") |
/// | (a resumed session) | "Welcome back: this is turn N …", what was asked before |
/// | `write`, `save`, `file`, `note` | text, `Glob`, text, `Write` with a permission question; then the answer depends on it |
/// | `sudo` | `command_blocked`, then the model goes on |
/// | `code` | as `write`, plus a `rule_prompt` before `complete` |
/// | `unusual` | frame types and fields this client does not know |
/// | `apierror` | the model API failure as Friday reports it: an ordinary chunk and `complete` starting "API Error:" |
/// | `maxturns` | one chunk, then nothing at all (a non-success result) |
/// | `stubfail`, `please fail` | one chunk, then the same `error` twice and no `complete` |
/// | `disconnect`, `drop` | one chunk, then the socket closes |
/// | `slow` | `slowDelay` between frames |
/// | `escapes` | every field the client maps wrapped in escape sequences (`HostileText`): info, thinking (both shapes), chunk, tool name and input, permission question (tool, description, input), command_blocked, rule_prompt, then `error` |
/// | `drip` | one chunk, then every `dripInterval` an empty `chunk` and the same `thinking` label, for ever (until the socket closes) |
struct FridayReferenceScript: Sendable {
    static let workspace = "/reference/workspace"

    /// How often `drip` sends a frame that shows nothing new.
    static let dripInterval = Duration.milliseconds(500)

    let question: String
    let connection: FridayReferenceConnection
    let delay: Duration

    func has(_ word: String) -> Bool {
        question.lowercased().split(whereSeparator: { !$0.isLetter }).contains { $0 == word }
    }

    func send(_ fields: [String: JSONValue]) async throws {
        try await Task.sleep(for: delay)
        try await connection.send(fields)
    }

    func text(_ text: String) async throws {
        try await send(["type": .string("thinking_complete")])
        try await send(["type": .string("chunk"), "text": .string(text)])
    }

    func tool(_ name: String, label: String, input: JSONValue) async throws {
        try await send(["type": .string("thinking"), "thinking": .object(["steps": .array([.object(["label": .string(label)])]),
                                                                          "duration": .string("live")])])
        try await send(["type": .string("tool_use"), "tool_name": .string(name), "tool_use_id": .string("toolu_ref_\(name)"),
                        "input": input])
    }

    func complete(_ result: String, session: String) async throws {
        try await send(["type": .string("thinking_complete")])
        try await send(["type": .string("complete"), "result": .string(result), "session_id": .string(session),
                        "cost": .object(["tokens": .object(["input": .number(0), "output": .number(0), "cacheCreation": .number(0), "cacheRead": .number(0)]),
                                         "estimated": .number(0)])])
    }

    /// Plays the answer. `earlier` holds the questions of a resumed session (nil: a new one).
    func run(session: String, earlier: [String]?) async throws {
        if has("maxturns") {
            try await text("Let me keep looking.")
            return  // a non-success result: the real runtime sends nothing more
        }
        if has("drip") {
            // A server that keeps the socket busy without saying anything: each frame used to
            // reset the client's idle clock, so the turn never ended.
            try await text("Let me look into that.")
            while !Task.isCancelled {
                try await Task.sleep(for: Self.dripInterval)
                try await connection.send(["type": .string("chunk"), "text": .string("")])
                try await connection.send(["type": .string("thinking"), "content": .string("Still working")])
            }
            return
        }
        if has("stubfail") || (has("please") && has("fail")) {
            try await text("Starting on th")
            let error: [String: JSONValue] = ["type": .string("error"), "message": .string("Claude Code process exited with code 1")]
            try await send(error)
            try await send(error)  // sent twice, as the real runtime does
            return
        }
        if has("escapes") {
            try await hostile()
            return
        }
        if has("disconnect") || has("drop") {
            try await text("This answer will be cut ")
            try await text("short")
            try await connection.close()
            return
        }
        if has("apierror") {
            let failure = #"API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            try await text(failure)
            try await complete(failure, session: session)
            return
        }
        if has("sudo") {
            try await text("I need to install a package for that.")
            try await send(["type": .string("command_blocked"), "tool_name": .string("Bash"), "command": .string("sudo apt-get install -y cowsay"),
                            "reason": .string("Elevated privileges (sudo) are not allowed for security reasons")])
            try await text("I could not install it: the server does not allow sudo.")
            try await complete("I could not install it: the server does not allow sudo.", session: session)
            return
        }
        if ["write", "save", "file", "note", "code"].contains(where: has) {
            try await writeFile(session: session, code: has("code"))
            return
        }
        if has("unusual") {
            try await send(["type": .string("skills_activated"), "skills": .array([.string("research")]), "brand_new": .bool(true)])
            try await send(["type": .string("thinking"), "content": .string("Weighing the unusual")])
            try await send(["type": .string("chunk"), "text": .string("Unusual frames, "), "delta_index": .number(0)])
            try await send(["type": .string("usage"), "usage": .object(["input_tokens": .number(12), "output_tokens": .number(3)])])
            try await send(["type": .string("tool_result"), "tool_name": .string("Glob"), "tool_use_id": .string("toolu_x"),
                            "tool_result": .string("a.md"), "is_error": .bool(false)])
            try await send(["type": .string("scheduled_agent:created"), "agent": .object(["id": .string("a1")])])
            try await send(["type": .string("chunk"), "text": .string("tolerated.")])
            try await send(["type": .string("complete"), "result": .string("tolerated."), "session_id": .string(session),
                            "cost": .object(["estimated": .number(0)]), "surprise": .string("a field nobody asked for")])
            return
        }
        if let earlier, !earlier.isEmpty {
            let last = earlier.last!.prefix(80)
            let parts = ["Welcome back: this is turn \(earlier.count + 1) of our conversation. ",
                         "Before this you asked: \"\(last)\". ", "I util", "ize what I remember."]
            for part in parts { try await text(part) }
            try await complete(parts.joined(), session: session)
            return
        }
        let parts = ["Hi, I'm the Friday reference server. ", "You asked: \"\(question.prefix(80))\". ",
                     "I util", "ize every chunk as it arrives."]
        for part in parts { try await text(part) }
        try await complete(parts.joined(), session: session)
    }

    /// A hostile runtime: each field the client maps carries its own words between escape
    /// sequences, so a test can check the words arrive and the sequences do not.
    func hostile() async throws {
        func h(_ words: String) -> JSONValue { .string(HostileText.around(words)) }
        try await send(["type": .string("info"), "message": h("Infowords")])
        try await send(["type": .string("thinking"), "content": h("Thinkingwords")])
        try await text(HostileText.around("Chunkwords arrive."))
        try await send(["type": .string("thinking"), "thinking": .object(["steps": .array([.object(["label": h("Steplabelwords")])])])])
        try await send(["type": .string("tool_use"), "tool_name": h("Toolnamewords"), "tool_use_id": .string("toolu_ref_hostile"),
                        "input": .object(["file_path": h("Toolinputwords")])])
        try await send(["type": .string("command_blocked"), "tool_name": h("Blockedtoolwords"), "command": h("Blockedcommandwords"),
                        "reason": h("Blockedreasonwords")])
        try await send(["type": .string("rule_prompt"), "prompt_id": .string("hostile-1"), "rule_id": .string("hostile"),
                        "title": h("Ruletitlewords"), "message": h("Rulemessagewords"), "actions": .array([])])
        try await Task.sleep(for: delay)
        _ = try await connection.ask(tool: HostileText.around("Asktoolwords"),
                                     input: .object(["file_path": h("Askinputwords")]),
                                     description: HostileText.around("Askdescriptionwords"), workspace: Self.workspace)
        let error: [String: JSONValue] = ["type": .string("error"), "message": h("Errorwords")]
        try await send(error)
        try await send(error)
    }

    /// Looks around (no permission needed), then asks to write a file.
    func writeFile(session: String, code: Bool) async throws {
        let file = code ? "app.js" : "friday-notes.md"
        let path = "\(Self.workspace)/\(file)"
        try await text("I'll look at your work")
        try await text("space first.")
        try await tool("Glob", label: "Searching files: *", input: .object(["pattern": .string("*")]))
        try await text("Now I'll write \(file).")
        let input: JSONValue = .object(["file_path": .string(path), "content": .string("A short summary of the plan.\n")])
        try await tool("Write", label: "Writing file: \(file)", input: input)
        try await Task.sleep(for: delay)
        switch try await connection.ask(tool: "Write", input: input, description: "Write on \(path)", workspace: Self.workspace) {
        case .allowed:
            try await text("Done. I saved a short sum")
            try await text("mary to \(file) in your workspace.")
            if code {
                try await send(["type": .string("rule_prompt"), "prompt_id": .string("offer_run_generated_code-1"),
                                "rule_id": .string("offer_run_generated_code"), "title": .string("Run the generated code?"),
                                "message": .string("Friday can run \(file) for you."),
                                "actions": .array([.object(["id": .string("run"), "label": .string("Run it"), "style": .string("primary"),
                                                            "type": .string("run")])])])
            }
            try await complete("Done. I saved a short summary to \(file) in your workspace.", session: session)
        case .denied(interrupt: false):
            try await text("Understood: I did not write \(file), and left your workspace as it was.")
            try await complete("Understood: I did not write \(file), and left your workspace as it was.", session: session)
        case .denied(interrupt: true):
            return  // the runtime stops the run: no `complete`, no `error`
        }
    }
}
