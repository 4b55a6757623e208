import Foundation
import ReceptionCore
import ReceptionReferenceServers
import Testing

/// What a person sees: the REPL with the Friday plugin and the default soul, against the
/// reference server over loopback.
@Suite("Friday through the REPL", .serialized)
struct REPLTests {
    @Test func theAnswerStreamsInTheSoulsVoiceAndIsKeptOnce() async throws {
        try await withFridayServer { server in
            let (output, state, _, status) = await chat(["hello"], server: server)
            #expect(status == 0)
            // "util" + "ize" arrived in two chunks; the default soul says "use".
            #expect(output.contains("I use every chunk as it arrives."), "\(output)")
            #expect(!output.contains("utilize") && !output.contains("util"))
            #expect(output.components(separatedBy: "You asked: \"hello\"").count == 2, "shown once:\n\(output)")
            #expect(state.turns.first?.summary == "Hi, I'm the Friday reference server. You asked: \"hello\". I utilize every chunk as it arrives.")
        }
    }

    @Test func aScriptIsNeverAskedAndDeniesSoTheRunGoesOn() async throws {
        try await withFridayServer { server in
            let (output, _, reader, _) = await chat(["please write a note about our plan", "hello"], server: server)
            #expect(output.contains("Not asked, because input is not a terminal"), "\(output)")
            #expect(output.contains("use Write: Write on /reference/workspace/friday-notes.md"), "\(output)")
            #expect(output.contains("Understood: I did not write friday-notes.md"), "\(output)")
            // The next line was the next message, not an answer.
            #expect(output.contains("Before this you asked: \"please write a note about our plan\". I use what I remember."), "\(output)")
            #expect(reader.promptsShown.allSatisfy { !$0.contains("Allow?") })
            let answers = await received("permission_response", by: server)
            #expect(answers == [.object(["type": .string("permission_response"), "permission_id": .number(0), "approved": .bool(false),
                                         "permission_level": .string("once"), "interrupt": .bool(false)])])
        }
    }

    @Test func aPersonIsAskedWithToolDescriptionAndInputAndYesOnceRunsTheTool() async throws {
        try await withFridayServer { server in
            let (output, state, reader, _) = await chat(["save a note of this", "y"], server: server, interactive: true)
            #expect(reader.promptsShown.contains("Allow? [y] yes, once · [s] yes, for this session · [N] no\n"), "\(reader.promptsShown)")
            #expect(output.contains("""
                The backend asks permission to use Write: Write on /reference/workspace/friday-notes.md
                  input: {"content":"A short summary of the plan.\\n","file_path":"/reference/workspace/friday-notes.md"}
                """), "\(output)")
            #expect(output.contains("Done. I saved a short summary to friday-notes.md in your workspace."), "\(output)")
            #expect(output.contains("Allowed once.\nDone. I saved"), "a new paragraph after a status line, without blank lines:\n\(output)")
            #expect(output.contains("  · using Glob\nNow I'll write friday-notes.md."), "\(output)")
            // Text before and after the tools, in paragraphs, is the whole answer in history.
            let summary = state.turns.first?.summary ?? ""
            #expect(summary.hasPrefix("I'll look at your workspace first.\n\nNow I'll write friday-notes.md.\n\nDone."), "\(summary)")
            let answer = try #require(await received("permission_response", by: server).first)
            #expect(answer["approved"] == .bool(true) && answer["permission_level"] == .string("once") && answer["interrupt"] == nil)
        }
    }

    @Test func yesForTheSessionAndNoAreSentAsSuch() async throws {
        try await withFridayServer { server in
            let (output, _, _, _) = await chat(["write a note", "s", "write a note", "no"], server: server, interactive: true)
            #expect(output.contains("Allowed for this session."))
            #expect(output.contains("Denied; the backend goes on without it."))
            #expect(output.contains("Understood: I did not write friday-notes.md"), "\(output)")
            let answers = await received("permission_response", by: server)
            #expect(answers.map { $0["permission_level"] } == [.string("session"), .string("once")])
            #expect(answers.map { $0["approved"] } == [.bool(true), .bool(false)])
            #expect(answers.map { $0["interrupt"] } == [nil, .bool(false)])
        }
    }

    @Test func theConversationGoesOnAcrossQuestionsUntilNew() async throws {
        try await withFridayServer { server in
            let (output, _, _, _) = await chat(["hello", "what did I ask?", "/new", "hello again"], server: server)
            #expect(output.contains("Welcome back: this is turn 2 of our conversation."), "\(output)")
            #expect(output.contains("Before this you asked: \"hello\"."))
            #expect(output.contains("Started a new conversation"))
            #expect(output.contains("You asked: \"hello again\""), "a new conversation after /new:\n\(output)")
            let queries = await received("query", by: server)
            #expect(queries.count == 3)
            #expect(queries[1]["session_id"]?.stringValue != nil && queries[1]["session_id"] == queries[0...1].last?["session_id"])
            #expect(queries[2]["session_id"] == .null)
            #expect(await received("new_session", by: server).count == 1)
        }
    }

    @Test func aLostSocketIsSaidWhatArrivedStaysAndTheREPLGoesOn() async throws {
        try await withFridayServer { server in
            let (output, state, _, status) = await chat(["disconnect please", "hello"], server: server)
            #expect(output.contains("This answer will be cut short"), "\(output)")
            #expect(output.contains("The connection to Friday at ws://127.0.0.1:\(server.port)/ws was lost mid-answer"), "\(output)")
            // The REPL lives on, and so does the conversation on the server.
            #expect(output.contains("Before this you asked: \"disconnect please\". I use what I remember."), "\(output)")
            #expect(state.failedTasks == 1 && status == 1)
        }
    }

    @Test func anErrorIsShownOnceAndSilenceEndsInAClearFailure() async throws {
        try await withFridayServer { server in
            // 5 s, not 1: the limit holds for every turn, and a loaded machine can keep an
            // answer's next frame waiting a second or two.
            let (output, _, _, _) = await chat(["stubfail", "maxturns", "hello"], server: server, idleTimeout: 5)
            #expect(output.components(separatedBy: "Claude Code process exited with code 1").count == 2, "once:\n\(output)")
            #expect(output.contains("Let me keep looking."))
            #expect(output.contains("Friday sent nothing for 5 s after its last message"), "\(output)")
            #expect(output.contains("this is turn 3 of our conversation. Before this you asked: \"maxturns\"."), "\(output)")
        }
    }

    @Test func blockedCommandsAndToolsAreStatusLines() async throws {
        try await withFridayServer { server in
            let (output, _, _, _) = await chat(["use sudo to install it", "write a note"], server: server)
            #expect(output.contains("Friday blocked Bash `sudo apt-get install -y cowsay`: Elevated privileges (sudo) are not allowed"), "\(output)")
            #expect(output.contains("using Glob"), "\(output)")
        }
    }

    @Test func jsonModeEmitsOneEventPerChunk() async throws {
        try await withFridayServer { server in
            let (output, _, _, _) = await chat(["hello"], server: server, mode: .json)
            let textEvents = output.split(separator: "\n").filter { $0.contains(#""type":"text""#) || $0.contains(#""type":"text_delta""#) }
            #expect(textEvents.count >= 3, "\(output)")
        }
    }
}
