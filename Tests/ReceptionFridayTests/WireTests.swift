import Foundation
import ReceptionCore
@testable import ReceptionFriday
import Testing

/// The frames as the real `friday serve` sends them (docs/friday.md), and what is sent back.
@Suite("Friday wire format")
struct WireTests {
    /// A number no Int holds is no permission id (converting it trapped: found by fuzzing).
    @Test func aPermissionIdNoIntHoldsIsAnUnknownFrameNotACrash() {
        for id in ["1e30", "-1e300", "5.5", "9223372036854775808"] {
            #expect(FridayFrame(text: #"{"type":"permission_request","permission_id":\#(id),"tool_name":"Write"}"#)
                    == .other(type: "permission_request"), "\(id)")
        }
        #expect(JSONValue.number(42).intValue == 42 && JSONValue.number(-3).intValue == -3)
        #expect(Int(saturating: 1e300) == .max && Int(saturating: -.infinity) == .min && Int(saturating: .nan) == 0 && Int(saturating: 2.9) == 2)
    }

    @Test func framesAreReadAsTheRealServerWritesThem() {
        #expect(FridayFrame(text: #"{"type":"ready"}"#) == .ready)
        #expect(FridayFrame(text: #"{"type":"session","session_id":"25164916-aa"}"#) == .session(id: "25164916-aa"))
        #expect(FridayFrame(text: #"{"type":"chunk","text":"space first."}"#) == .chunk("space first."))
        #expect(FridayFrame(text: #"{"type":"thinking","thinking":{"steps":[{"label":"Searching files: *"}],"duration":"live"}}"#)
                == .thinking("Searching files: *"))
        #expect(FridayFrame(text: #"{"type":"thinking","content":"Weighing it"}"#) == .thinking("Weighing it"))
        #expect(FridayFrame(text: #"{"type":"tool_use","tool_name":"Glob","tool_use_id":"toolu_01","input":{"pattern":"*"}}"#)
                == .toolUse(name: "Glob", input: .object(["pattern": .string("*")])))
        #expect(FridayFrame(text: #"{"type":"permission_request","permission_id":0,"tool_name":"Write","tool_use_id":"t","tool_input":{"file_path":"/w/a.md"},"description":"Write on /w/a.md","cwd":"/w","suggestions":[]}"#)
                == .permissionRequest(id: 0, tool: "Write", description: "Write on /w/a.md", input: .object(["file_path": .string("/w/a.md")])))
        #expect(FridayFrame(text: #"{"type":"complete","result":"Done.","session_id":"s1","cost":{"estimated":0}}"#)
                == .complete(result: "Done.", sessionID: "s1", aborted: false))
        #expect(FridayFrame(text: #"{"type":"error","message":"Claude Code process exited with code 1"}"#)
                == .error("Claude Code process exited with code 1"))
        #expect(FridayFrame(text: #"{"type":"command_blocked","tool_name":"Bash","command":"sudo x","reason":"no sudo"}"#)
                == .commandBlocked(tool: "Bash", command: "sudo x", reason: "no sudo"))
    }

    @Test func unlistedTypesAreToleratedAndNonsenseIsSkipped() {
        for type in ["thinking_complete", "usage", "permission_cancelled", "skills_activated", "scheduled_agent:created", "brand_new"] {
            #expect(FridayFrame(text: #"{"type":"\#(type)","extra":1}"#) == .other(type: type))
        }
        // The seed's shape (`tool`, no id) matches no pending request: not a question to answer.
        #expect(FridayFrame(text: #"{"type":"permission_request","tool":"Write"}"#) == .other(type: "permission_request"))
        #expect(FridayFrame(text: "not json") == nil)
        #expect(FridayFrame(text: #"["type","chunk"]"#) == nil)
    }

    @Test func aDenialLetsTheRunGoOnAndIdsStayNumbers() throws {
        let deny = try JSONDecoder().decode(JSONValue.self, from: Data(FridayMessage.permissionResponse(id: 0, approved: false, level: .once).text.utf8))
        #expect(deny == .object(["type": .string("permission_response"), "permission_id": .number(0), "approved": .bool(false),
                                 "permission_level": .string("once"), "interrupt": .bool(false)]))
        #expect(FridayMessage.permissionResponse(id: 3, approved: true, level: .session).text.contains(#""permission_id":3,"#))
        let allow = try JSONDecoder().decode(JSONValue.self, from: Data(FridayMessage.permissionResponse(id: 3, approved: true, level: .session).text.utf8))
        #expect(allow["interrupt"] == nil && allow["permission_level"] == .string("session"))
    }

    @Test func intentTravelsInTheQueryMetadata() {
        let request = ReceptionRequest(text: "which laptop should I buy?", classification: IntentClassification(
            intent: .decision, urgency: .immediate, intentConfidence: 0.9, urgencyConfidence: 0.8))
        let query = FridayMessage.query(message: request.text, sessionID: nil, metadata: FridayMessage.metadata(for: request)).json
        #expect(query["session_id"] == .null)
        #expect(query["metadata"]?["intent"] == .string("decision"))
        #expect(query["metadata"]?["urgency"] == .string("immediate"))
        #expect(query["metadata"]?["intent_confidence"] == .number(0.8))
    }
}

@Suite("Friday frames to events")
struct TurnTests {
    @Test func chunksOfOneTurnJoinAndANewTurnStartsAParagraph() {
        var turn = FridayTurn(taskID: "t", maxTextBytes: 1 << 20)
        let frames: [FridayFrame] = [.info("Friday is processing your request..."), .session(id: "s"), .other(type: "thinking_complete"),
                                     .chunk("I'll look at your work"), .chunk("space first."),
                                     .thinking("Searching files: *"), .toolUse(name: "Glob", input: nil),
                                     .chunk("Now I'll write it."), .complete(result: "Now I'll write it.", sessionID: "s", aborted: false)]
        let events = frames.flatMap { turn.take($0) }
        #expect(streamedText(events) == "I'll look at your workspace first.\n\nNow I'll write it.")
        guard case .result(let result)? = events.last else { Issue.record("no result: \(events)"); return }
        // The whole answer, not only `complete.result` (the last turn).
        #expect(result.text == "I'll look at your workspace first.\n\nNow I'll write it." && result.textWasStreamed)
        #expect(events.contains(.toolUse(ToolUse(name: "Glob"))))
        #expect(events.contains(.thinking("Searching files: *")))
    }

    @Test func failuresAndTheirWords() {
        var turn = FridayTurn(taskID: "t", maxTextBytes: 1 << 20)
        guard case .failure(let failure)? = turn.take(.error("Claude Code process exited with code 1")).last else { Issue.record(); return }
        #expect(failure.message.contains("Claude Code process exited with code 1") && !failure.cancelled)
        var api = FridayTurn(taskID: "t", maxTextBytes: 1 << 20)
        _ = api.take(.chunk("API Error: 529 overloaded"))
        guard case .failure(let apiFailure)? = api.take(.complete(result: "API Error: 529 overloaded", sessionID: nil, aborted: false)).last else { Issue.record(); return }
        #expect(apiFailure.message.contains("529"))
    }

    /// A model API failure arrives as a chunk and as `complete`, both "API Error: 529 {json}":
    /// it is said once, as a failure in words, not streamed as the answer and then repeated.
    @Test func aModelAPIFailureIsSaidOnceInWords() {
        let raw = #"API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
        var turn = FridayTurn(taskID: "t", maxTextBytes: 1 << 20)
        #expect(turn.take(.chunk(raw)).isEmpty, "not streamed as the answer")
        let events = turn.take(.complete(result: raw, sessionID: nil, aborted: false))
        guard case .failure(let failure)? = events.last, events.count == 1 else { Issue.record("\(events)"); return }
        #expect(failure.message == "Friday's model could not answer: Overloaded (HTTP 529). Try again in a moment.", "\(failure.message)")
        // An answer that only starts with those words is still the answer.
        var answer = FridayTurn(taskID: "t", maxTextBytes: 1 << 20)
        _ = answer.take(.chunk("API Error: is what you see when"))
        let more = answer.take(.chunk(" the model is busy."))
        #expect(more == [.textDelta("API Error: is what you see when the model is busy.")], "\(more)")
    }

    @Test func anAnswerBeyondTheCapStopsInsteadOfGrowing() {
        var turn = FridayTurn(taskID: "t", maxTextBytes: 10)
        #expect(turn.take(.chunk("12345")) == [.textDelta("12345")])
        guard case .failure(let failure)? = turn.take(.chunk("678901")).last else { Issue.record(); return }
        #expect(failure.message.contains("stopped reading"))
        #expect(turn.text == "12345")
    }

    @Test func statusLinesForBlockedCommandsAndToolResults() {
        var turn = FridayTurn(taskID: "t", maxTextBytes: 1 << 20)
        guard case .progress(let blocked)? = turn.take(.commandBlocked(tool: "Bash", command: "sudo rm -rf /", reason: "Elevated privileges are not allowed")).first,
              case .progress(let done)? = turn.take(.toolResult(name: "Write", isError: true)).first else { Issue.record(); return }
        #expect(blocked.message.contains("Friday blocked Bash") && blocked.message.contains("Elevated privileges"))
        #expect(done.message == "Write failed")
    }
}
