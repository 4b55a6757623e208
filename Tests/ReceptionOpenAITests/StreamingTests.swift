import Foundation
import ReceptionCore
import ReceptionOpenAI
import ReceptionReferenceServers
import ReceptionTesting
import ReceptionTestSupport
import Testing

@Suite("OpenAI-compatible streaming")
struct OpenAIStreamingTests {
    @Test func theAdapterKeepsTheEventContractAgainstTheReferenceServer() async throws {
        try await withOpenAIServer { _, backend in
            let report = await BackendConformance(backend: backend, scenarios: .init(
                answered: ReceptionRequest(text: "hello", trustLevel: 1),
                slow: ReceptionRequest(text: "slow answer please", trustLevel: 1),
                failing: ReceptionRequest(text: "errorbody", trustLevel: 1),
                unusual: ReceptionRequest(text: "reasoning first", trustLevel: 1),
                dropped: ReceptionRequest(text: "dropped connection", trustLevel: 1),
                notApplicable: ["planned": "a chat model answers at once; it has no plans to approve"])).run()
            #expect(report.failures.isEmpty, "\(report)")
            #expect(report.passed.count == report.outcomes.count - 1, "\(report)")
        }
    }

    @Test func anAnswerArrivesInManyChunksThatAddUpToTheResult() async throws {
        try await withOpenAIServer { _, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "hello", trustLevel: 1)))
            let answer = try #require(result(in: events))
            #expect(chunkCount(events) > 10, "streamed chunk by chunk, not buffered: \(events.count) events")
            #expect(answer.textWasStreamed)
            #expect(answer.text == streamedText(events))
            #expect(answer.text.hasPrefix("Okay. You said: hello."))
            #expect(answer.outcome == .complete)
            if case .accepted = events.first {} else { Issue.record("starts with .accepted: \(events)") }
        }
    }

    @Test func theFirstChunkArrivesLongBeforeTheAnswerEnds() async throws {
        // 250 ms apart (10 s in all), so a loaded machine that keeps the first chunk waiting a
        // second or two still has it long before the answer ends.
        try await withOpenAIServer(OpenAIReferenceOptions(port: 0, chunkDelay: .milliseconds(1), slowChunkDelay: .milliseconds(250))) { server, backend in
            var writtenAtFirstChunk: Int?
            var chunks = 0
            for try await event in backend.submit(ReceptionRequest(text: "slow hello", trustLevel: 1)) {
                guard case .textDelta = event else { continue }
                chunks += 1
                if writtenAtFirstChunk == nil { writtenAtFirstChunk = await server.server.eventsWritten() }
            }
            let written = try #require(writtenAtFirstChunk)
            // About 40 chunks: the first reaches the backend while the server is
            // still near the start, not after it wrote the rest.
            #expect(chunks > 30)
            #expect(written < chunks / 2, "the server had written \(written) events when the first chunk arrived")
        }
    }

    /// The offline queue keeps a message only when nothing reached the engine: an unreachable
    /// server must throw before any event, not after an `.accepted` of our own making.
    @Test func anUnreachableServerThrowsBeforeAnyEvent() async throws {
        let client = OpenAIClient(configuration: OpenAIConfiguration(baseURL: refusingLoopbackURL() + "/v1", model: "m"))
        var events: [BackendEvent] = []
        do {
            for try await event in OpenAIBackend(client: client, model: "m").submit(ReceptionRequest(text: "hi", trustLevel: 1)) {
                events.append(event)
            }
            Issue.record("no error from an unreachable server")
        } catch let error as BackendError {
            guard case .unreachable = error else { Issue.record("\(error)"); return }
        }
        #expect(events.isEmpty, "\(events)")
        await client.shutdown()
    }

    @Test func aStreamWithoutDoneStillEndsWithTheAnswer() async throws {
        try await withOpenAIServer { _, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "nodone please", trustLevel: 1)))
            let answer = try #require(result(in: events), "finish reason without [DONE] is a complete answer: \(events)")
            #expect(answer.text.contains("You said: nodone please"))
        }
    }

    @Test func doneWithoutAFinishReasonIsAnInterruptedAnswerNotACompleteOne() async throws {
        try await withOpenAIServer { _, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "cut please", trustLevel: 1)))
            #expect(result(in: events) == nil)
            let failed = try #require(failure(in: events))
            #expect(failed.message.contains("stopped this answer before it finished"))
            #expect(failed.message.contains("What was shown is kept"))
            #expect(!streamedText(events).isEmpty, "the part already streamed was delivered")
        }
    }

    @Test func anEmptyStreamSaysTheConversationNoLongerFits() async throws {
        try await withOpenAIServer { _, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "overflow", trustLevel: 1)))
            let failed = try #require(failure(in: events))
            #expect(failed.message.contains("no longer fits the model's context"))
        }
    }

    @Test func aConnectionLostMidAnswerKeepsWhatWasStreamedAndSaysSo() async throws {
        try await withOpenAIServer { _, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "dropped please", trustLevel: 1)))
            #expect(!streamedText(events).isEmpty)
            let failed = try #require(failure(in: events))
            #expect(failed.message.contains("closed before the model finished"))
        }
    }

    /// A model server that sends its headers and a first chunk, then nothing with the
    /// connection open (a stuck model, a dead worker behind a proxy): the answer ends at the
    /// chat idle timeout, the chunk that arrived is kept, and the silence is said.
    @Test func anAnswerThatGoesSilentEndsAtTheIdleTimeoutAndKeepsWhatArrived() async throws {
        try await withOpenAIServer(configure: { $0.idleTimeout = .seconds(10) }) { _, backend in
            // 10 s: long enough that a loaded machine still delivers the first chunk before it
            // (3 s was not, in a full run beside other builds).
            let started = ContinuousClock.now
            let stream = backend.submit(ReceptionRequest(text: "stalled please", trustLevel: 1))
            let (events, thrown) = try await withThrowingTaskGroup(of: ([BackendEvent], (any Error)?)?.self) { group in
                group.addTask {
                    var events: [BackendEvent] = []
                    do {
                        for try await event in stream { events.append(event) }
                        return (events, nil)
                    } catch {
                        return (events, error)
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(120))
                    return nil
                }
                let first = try await group.next()!
                group.cancelAll()
                return try #require(first, "the answer did not end within 120 s: the server stays silent for an hour")
            }
            let waited = started.duration(to: .now)
            #expect(waited >= .milliseconds(9_900), "not before the 10 s idle timeout: \(waited)")
            #expect(streamedText(events) == "Oka", "the chunk that arrived is kept: \(events)")
            #expect(result(in: events) == nil)
            let said = failure(in: events)?.message ?? thrown.map { String(describing: $0) } ?? ""
            #expect(said.contains("10 s") && said.contains("What was shown is kept"), "the silence is said: \(said)")
        }
    }

    @Test func aLengthFinishIsABoundedAnswer() async throws {
        try await withOpenAIServer { _, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "long answer", trustLevel: 1)))
            #expect(result(in: events)?.outcome == .bounded)
        }
    }

    @Test func reasoningShowsAsThinkingNeverAsTheAnswer() async throws {
        try await withOpenAIServer { _, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "reasoning", trustLevel: 1)))
            let thoughts = events.compactMap { if case .thinking(let text) = $0 { text } else { nil } }
            #expect(!thoughts.isEmpty)
            #expect(!streamedText(events).contains("Let me think"))
            #expect(result(in: events)?.text.hasPrefix("Okay.") == true)
        }
    }

    @Test func cancellingClosesTheRequestSoTheServerStopsGenerating() async throws {
        // Chunks 2 s apart: the third must not be on its way before the cancel, however long a
        // loaded machine keeps this loop waiting after the second.
        try await withOpenAIServer(OpenAIReferenceOptions(port: 0, slowChunkDelay: .seconds(2))) { server, backend in
            let request = ReceptionRequest(text: "slow answer", trustLevel: 1)
            var events: [BackendEvent] = []
            var cancelled = false
            for try await event in backend.submit(request) {
                events.append(event)
                if chunkCount(events) == 2, !cancelled {
                    cancelled = true
                    try await backend.cancel(taskID: request.id)
                }
            }
            #expect(chunkCount(events) == 2, "nothing more was shown after the cancel")
            await #expect(throws: BackendError.self) { try await backend.cancel(taskID: request.id) }
            let failed = try #require(failure(in: events))
            #expect(failed.cancelled)
            #expect(result(in: events) == nil)
            // The server's writer notices the closed connection at its next chunk.
            var abandoned = 0
            for _ in 0..<600 where abandoned == 0 {  // up to a minute, for a loaded machine
                try await Task.sleep(for: .milliseconds(100))
                abandoned = await server.server.abandonedStreams()
            }
            #expect(abandoned == 1, "the request was closed, not left running")
        }
    }

    /// llama.cpp answers 503 "Loading model" for a while after it starts: asked again, with
    /// the person told, and then answered.
    @Test func aServerStillLoadingItsModelIsAskedAgainUntilItAnswers() async throws {
        try await withOpenAIServer { _, backend in
            let events = try await collect(backend.submit(ReceptionRequest(text: "loading please", trustLevel: 1)))
            let notices = events.compactMap { if case .progress(let p) = $0 { p.message } else { nil } }
            #expect(notices.count == 2, "\(notices)")
            #expect(notices.allSatisfy { $0.contains("HTTP 503: Loading model") }, "\(notices)")
            #expect(result(in: events)?.text.contains("You said: loading please") == true, "\(events)")
        }
    }

    @Test func aBusyServerIsAskedAgainAfterItsRetryAfterAndThePersonIsTold() async throws {
        try await withOpenAIServer { _, backend in
            let start = ContinuousClock.now
            let events = try await collect(backend.submit(ReceptionRequest(text: "busy now", trustLevel: 1)))
            let notices = events.compactMap { if case .progress(let p) = $0 { p.message } else { nil } }
            #expect(notices.count == 1)
            #expect(notices.first?.contains("HTTP 429: Rate limit reached for requests") == true, "\(notices)")
            #expect(notices.first?.contains("trying again in 1.0 s (attempt 2 of 3)") == true, "\(notices)")
            #expect(start.duration(to: .now) >= .milliseconds(950), "Retry-After: 1 was honoured")
            #expect(result(in: events)?.text.contains("You said: busy now") == true)
        }
    }
}
