import Foundation
import ReceptionCodex
import ReceptionCore
import ReceptionIntent
import ReceptionReferenceServers
import ReceptionSoul
import ReceptionTestSupport
import ReceptionTesting
import Testing

@Suite("Codex backend and plugin")
struct BackendTests {
    @Test func theConformanceSuitePassesWhereItApplies() async throws {
        try await withCodexServer { _, client in
            let backend = CodexBackend(client: client)
            backend.select("wrk-hosted")
            let report = await BackendConformance(backend: backend, scenarios: .init(
                answered: ReceptionRequest(text: "hello", trustLevel: 1),
                slow: ReceptionRequest(text: "slow research", trustLevel: 1),
                failing: ReceptionRequest(text: "please fail", trustLevel: 1),
                unusual: ReceptionRequest(text: "something unusual", trustLevel: 1),
                dropped: ReceptionRequest(text: "drop the line", trustLevel: 1),
                notApplicable: ["planned": "a worker runs what it is sent; there is no plan to approve"]), deadline: .seconds(120)).run()
            #expect(report.failures.isEmpty, "\(report)")
        }
    }

    @Test func aMessageGoesToTheSelectedWorkerThroughIntentAndPersonality() async throws {
        try await withCodexServer { server, client in
            let backend = CodexBackend(client: client)
            let soul = try #require(SoulCatalog.builtIn("butler"))
            let pipeline = Pipeline(middleware: [IntentMiddleware(), PersonalityMiddleware(store: SoulStore(soul))], backend: backend)
            var context = ReceptionContext()
            context.backend = backend.descriptor

            // Nobody selected: said plainly, nothing sent.
            let unselected = try await pipeline.send(ReceptionRequest(text: "run the tests", trustLevel: 1), context: context)
            var failure: TaskFailure?
            for try await event in unselected.events { if case .failure(let f) = event.event { failure = f } }
            #expect(failure?.message.contains("No worker is selected") == true)

            backend.select("wrk-desktop")
            let exchange = try await pipeline.send(ReceptionRequest(text: "should I run the checks now or tomorrow?", trustLevel: 1), context: context)
            var result: BackendResult?
            var shown: [DisplayBlock] = []
            for try await event in exchange.events {
                if case .result(let r) = event.event { result = r; shown = event.display }
            }
            let sent = try #require(await server.server.postedEvents().last?["request"])
            #expect(sent["method"]?.stringValue == "turn/start")
            if case .array(let input)? = sent["params"]?["input"] {
                #expect(input.first?["text"]?.stringValue == "should I run the checks now or tomorrow?")
            } else { Issue.record("no input array") }
            #expect(sent["params"]?["metadata"]?["intent"]?.stringValue == exchange.request.classification?.intent.rawValue)
            #expect(exchange.request.classification != nil, "the intent middleware classified the message")
            #expect(result?.text.contains("Worker wrk-desktop took the request (turn/start") == true)
            #expect(!shown.isEmpty, "the personality middleware rendered the result")
        }
    }

    @Test func aRefusalIsAnErrorWithTheRequestIDNotAQueueEntry() async throws {
        try await withCodexServer { _, client in
            let backend = CodexBackend(client: client)
            backend.select("wrk-stopped")
            do {
                for try await _ in backend.submit(ReceptionRequest(text: "hello", trustLevel: 1)) {}
                Issue.record("a stopped worker refuses requests")
            } catch let error as BackendError {
                guard case .http(let status, let detail) = error else { Issue.record("\(error)"); return }
                #expect(status == 409)
                #expect(detail.contains("worker is stopped") && detail.contains("x-request-id"))
            }
        }
    }

    @Test func thePluginReadsTheTokenFromA0600FileAndRefusesAWrongOne() async throws {
        let server = try await RunningCodexServer.start()
        defer { Task { await server.stop() } }
        let directory = Scratch.root.appendingPathComponent("codex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token").path
        try "reception-dev-token\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let environment = PluginEnvironment.standard(["HOME": directory.path, "WRONG": "not-the-token"])
        let good = BackendProfile(name: "c", kind: "codex", values: ["url": .string(server.baseURL), "token": .secretFromFile(file)])
        let connection = try await CodexPlugin.plugin.connect(good, environment)
        #expect(connection.commands.map(\.name) == ["/workers", "/worker", "/handshake"])
        let listing = try await connection.commands[0].run([])
        #expect(listing.contains("wrk-desktop") && !listing.contains("wrk-other"))
        // Tab completion offers the ids listed, from memory.
        #expect(connection.commands[1].completions([]).contains("wrk-hosted"))
        #expect(connection.commands[1].completions(["stop"]).contains("wrk-stopped"))
        #expect(connection.commands[2].completions([]).contains("wrk-desktop"))
        await connection.shutdown()

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        await #expect(throws: ProfileError.self) { _ = try await CodexPlugin.plugin.connect(good, environment) }

        let wrong = BackendProfile(name: "c", kind: "codex", values: ["url": .string(server.baseURL), "token": .secretFromEnvironment("WRONG")])
        do {
            _ = try await CodexPlugin.plugin.connect(wrong, environment)
            Issue.record("a wrong token connects")
        } catch {
            let text = String(describing: error)
            #expect(text.contains("$WRONG") && text.contains("401") && !text.contains("not-the-token"))
        }
    }

    @Test func commandsSendRequestsAndStopWithPlainAnswers() async throws {
        try await withCodexServer { _, client in
            let connection = try await CodexPlugin.connect(client.configuration, name: "codex")
            let worker = try #require(connection.commands.first { $0.name == "/worker" })
            let answer = try await worker.run(["request", "wrk-hosted", "thread/list", #"{"limit":"#, "3}"])
            #expect(answer.contains("took `thread/list`"))
            // Refused before anything is sent, in words that say what is wrong and how to quote it.
            await #expect { _ = try await worker.run(["request", "wrk-hosted", "thread/list", "{limit:3}"]) } throws: {
                "\($0)".hasPrefix("The params are not JSON") && "\($0)".contains("{limit:3}")
            }
            await #expect { _ = try await worker.run(["request", "wrk-hosted", "thread/list", "[1,2]"]) } throws: {
                "\($0)".hasPrefix("The params must be a JSON object") && "\($0)".contains("[1,2]")
            }
            #expect(try await worker.run(["stop", "wrk-hosted", "end", "of", "day"]).contains("reason: end of day"))
            #expect(try await worker.run(["stop", "wrk-hosted"]).contains("already stopped"))
            // Not at a terminal: the snapshot and the recent events, then back.
            let recent = try await worker.run(["wrk-desktop"])
            #expect(recent.contains("recent events of **wrk-desktop**"))
            await connection.shutdown()
        }
    }
}
