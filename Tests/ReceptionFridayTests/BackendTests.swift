import Foundation
import ReceptionCore
import ReceptionFriday
import ReceptionReferenceServers
import ReceptionTesting
import ReceptionTestSupport
import Testing

@Suite("Friday backend against the reference server", .serialized)
struct BackendTests {
    @Test func conformance() async throws {
        try await withFridayServer { server in
            let backend = FridayBackend(configuration: FridayConfiguration(url: server.url, idleTimeout: .seconds(30)))
            let report = await BackendConformance(backend: backend, scenarios: .init(
                answered: ReceptionRequest(text: "hello", trustLevel: 1),
                slow: ReceptionRequest(text: "a slow answer please", trustLevel: 1),
                failing: ReceptionRequest(text: "please fail", trustLevel: 1),
                unusual: ReceptionRequest(text: "unusual frames", trustLevel: 1),
                dropped: ReceptionRequest(text: "drop the line", trustLevel: 1))).run()
            await backend.close()
            #expect(report.failures.isEmpty, "\(report)")
            #expect(report.passed.count >= 5, "\(report)")
        }
    }

    @Test func theServersSessionIsKeptAndResumed() async throws {
        try await withFridayServer { server in
            let backend = FridayBackend(configuration: FridayConfiguration(url: server.url))
            _ = try await events(of: backend.submit(ReceptionRequest(text: "hello")))
            let issued = try #require(backend.sessionID)
            let second = try await events(of: backend.submit(ReceptionRequest(text: "and again")))
            #expect(streamedText(second).contains("this is turn 2"), "\(second)")
            let queries = await received("query", by: server)
            #expect(queries.map { $0["session_id"] } == [.null, .string(issued)])
            await backend.close()
        }
    }

    @Test func intentAndUrgencyGoInTheMetadata() async throws {
        try await withFridayServer { server in
            let backend = FridayBackend(configuration: FridayConfiguration(url: server.url))
            let request = ReceptionRequest(text: "hello", classification: IntentClassification(
                intent: .decision, urgency: .immediate, intentConfidence: 0.9, urgencyConfidence: 0.9))
            _ = try await events(of: backend.submit(request))
            let query = try #require(await received("query", by: server).first)
            #expect(query["metadata"]?["intent"] == .string("decision") && query["metadata"]?["urgency"] == .string("immediate"))
            #expect(backend.wirePayload(for: request)?["metadata"]?["intent"] == .string("decision"))
            await backend.close()
        }
    }

    @Test func cancellingClosesTheSocketAndNothingOfItLeaksIntoTheNextAnswer() async throws {
        // 120 s between the slow answer's frames: left running, it would outlast the bound below
        // many times over, however loaded the machine.
        try await withFridayServer(FridayReferenceOptions(stepDelay: .milliseconds(5), slowDelay: .seconds(120))) { server in
            let backend = FridayBackend(configuration: FridayConfiguration(url: server.url))
            let slow = Task { try await events(of: backend.submit(ReceptionRequest(text: "slow one"))) }
            try await Task.sleep(for: .milliseconds(700))
            let started = ContinuousClock.now
            slow.cancel()
            _ = try? await slow.value
            #expect(started.duration(to: .now) < .seconds(30), "cancelled at once, not after the next frame")
            let next = try await events(of: backend.submit(ReceptionRequest(text: "hello")))
            #expect(streamedText(next).hasPrefix("Hi, I'm the Friday reference server."), "\(streamedText(next))")
            #expect(!streamedText(next).contains("slow one"))
            await backend.close()
        }
    }

    @Test func silenceAfterTheLastFrameIsAFailureThatSaysSo() async throws {
        try await withFridayServer { server in
            let backend = FridayBackend(configuration: FridayConfiguration(url: server.url, idleTimeout: .seconds(10)))
            let started = ContinuousClock.now
            let run = try await events(of: backend.submit(ReceptionRequest(text: "maxturns please")))
            // The server would stay silent for ever; 10 s (not less) so that a loaded machine's
            // slow first frame is not mistaken for the silence after it.
            #expect(started.duration(to: .now) < .seconds(60))
            #expect(streamedText(run) == "Let me keep looking.")
            guard case .failure(let failure)? = run.last else { Issue.record("\(run)"); return }
            #expect(failure.message.contains("sent nothing for 10 s"), "\(failure.message)")
            await backend.close()
        }
    }

    /// A slow drip: every 0.5 s an empty chunk and the same thinking label, for ever, with the
    /// idle timeout at 10 s (twenty drips; 1.5 s, and at times 5 s, left a loaded machine too
    /// little room to show the first text and label). Each frame used to reset the idle clock, so the turn never
    /// ended; frames that show nothing new no longer count as news.
    @Test func framesThatShowNothingNewDoNotKeepATurnOpenForEver() async throws {
        try await withFridayServer { server in
            let backend = FridayBackend(configuration: FridayConfiguration(url: server.url, idleTimeout: .seconds(10)))
            // The drip never stops, so ending at all is the point (about 10.5 s on a quiet
            // machine: the first "Still working" is news, its repeats and the empty chunks are not).
            let run = try await events(of: backend.submit(ReceptionRequest(text: "drip please")), within: .seconds(30))
            #expect(streamedText(run) == "Let me look into that.")
            #expect(run.contains(.thinking("Still working")), "the first label is shown: \(run)")
            guard case .failure(let failure)? = run.last else { Issue.record("\(run)"); return }
            // "nothing new … (only 19 empty or repeated frames)"; on a loaded machine the frames
            // may come late, and then it is plain silence.
            #expect(failure.message.hasPrefix("Friday sent nothing new for 10 s (only ") || failure.message.hasPrefix("Friday sent nothing for 10 s"),
                    "\(failure.message)")
            #expect(failure.message.contains("so Reception stopped waiting"), "\(failure.message)")
            // The dripping socket is closed; the next question gets a fresh one and its answer.
            let next = try await events(of: backend.submit(ReceptionRequest(text: "hello")))
            guard case .result? = next.last else { Issue.record("\(next)"); return }
            await backend.close()
        }
    }

    @Test func anErrorSentTwiceEndsOneAnswerAndNotTheNext() async throws {
        try await withFridayServer { server in
            let backend = FridayBackend(configuration: FridayConfiguration(url: server.url))
            let failed = try await events(of: backend.submit(ReceptionRequest(text: "stubfail")))
            #expect(failed.filter(\.isTerminal).count == 1)
            guard case .failure(let failure)? = failed.last else { Issue.record("\(failed)"); return }
            #expect(failure.message == "Friday reported an error: Claude Code process exited with code 1")
            let next = try await events(of: backend.submit(ReceptionRequest(text: "hello")))
            guard case .result? = next.last else { Issue.record("the second error leaked: \(next)"); return }
            await backend.close()
        }
    }

    @Test func aLostSocketKeepsWhatArrivedAndTheNextQuestionReconnects() async throws {
        try await withFridayServer { server in
            let backend = FridayBackend(configuration: FridayConfiguration(url: server.url))
            let dropped = try await events(of: backend.submit(ReceptionRequest(text: "disconnect now")))
            #expect(streamedText(dropped) == "This answer will be cut short")
            guard case .failure(let failure)? = dropped.last else { Issue.record("\(dropped)"); return }
            #expect(failure.message.contains("was lost mid-answer"), "\(failure.message)")
            let next = try await events(of: backend.submit(ReceptionRequest(text: "hello")))
            guard case .result? = next.last else { Issue.record("\(next)"); return }
            await backend.close()
        }
    }

    /// Nothing listening: the session starts offline and says so (messages wait in the
    /// offline queue); each question tries again and is unreachable before any event, which
    /// is what the queue keeps.
    @Test func aServerThatIsNotThereStartsOfflineAndSaysSo() async throws {
        let catalog = BackendCatalog(plugins: [FridayPlugin.plugin],
                                     environment: .standard(["HOME": "/nonexistent", "FRIDAY_URL": refusingLoopbackURL(scheme: "ws") + "/ws"]))
        let connection = try await catalog.connect("friday")
        let notice = try #require(connection.notice)
        #expect(notice.hasPrefix("Friday at \(refusingLoopbackURL(scheme: "ws"))/ws cannot be reached (connection refused"), "\(notice)")
        #expect(notice.contains("Messages you send now are queued"))
        var sawEvent = false
        await #expect { for try await _ in connection.backend.submit(ReceptionRequest(text: "hello")) { sawEvent = true } } throws: { error in
            guard case BackendError.unreachable = error else { return false }
            return true
        }
        #expect(!sawEvent)
        await connection.shutdown()
    }

    /// Something answers there but not as Friday's WebSocket (a wrong path): waiting would
    /// never deliver a message, so it is an error at once, not an offline start.
    @Test func aURLThatIsNotAWebSocketIsAnErrorAtConnect() async throws {
        try await withFridayServer { server in
            let wrong = server.url.replacingOccurrences(of: "/ws", with: "/not-the-socket")
            let catalog = BackendCatalog(plugins: [FridayPlugin.plugin], environment: .standard(["HOME": "/nonexistent", "FRIDAY_URL": wrong]))
            await #expect { _ = try await catalog.connect("friday") } throws: { error in
                guard case BackendError.protocolViolation(let what) = error else { return false }
                return what.contains("did not accept a WebSocket connection")
            }
        }
    }

    @Test func theBuiltInProfileReadsFridayURLWithTheWsPathByDefault() throws {
        let plugin = FridayPlugin.plugin
        let unset = plugin.builtInProfile!(.standard(["HOME": "/nonexistent"]))
        #expect(try FridayPlugin.configuration(for: unset).url == "ws://127.0.0.1:8787/ws")
        let set = plugin.builtInProfile!(.standard(["HOME": "/nonexistent", "FRIDAY_URL": "wss://friday.example/ws", "FRIDAY_IDLE_TIMEOUT": "5"]))
        let configuration = try FridayPlugin.configuration(for: set)
        #expect(configuration.url == "wss://friday.example/ws" && configuration.idleTimeout == .seconds(5))
        #expect(throws: ProfileError.self) {
            try FridayPlugin.configuration(for: BackendProfile(name: "f", kind: "friday", values: ["url": .string("http://127.0.0.1:8787")]))
        }
    }
}
