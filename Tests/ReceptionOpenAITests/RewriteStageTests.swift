import Foundation
import ReceptionCore
import ReceptionOpenAI
import ReceptionReferenceServers
import ReceptionSoul
import ReceptionTesting
import Testing

/// The soul's language-model rewrite stage against the OpenAI-compatible
/// reference server over loopback: a faithful rewrite is shown; one that changes a number,
/// drops a link, or adds a number or a name falls back to the deterministic rendering, and
/// `/soul why` (`RewriteLog.explanation()`) names the fact.
@Suite("Rewrite stage over loopback")
struct RewriteStageTests {
    static let soul: Soul = try! SoulParser.parse("""
    # SOUL.md - Harbour Pilot

    You speak like an old harbour pilot: calm, short sentences, a nautical word now and then.
    """, fileName: "SOUL.md")

    static let facts = "The 9:15 train to Kyoto costs ¥14,170; book at https://example.com/trains today."

    struct Run {
        var events: [ResponseEvent]
        var log: RewriteLog
        var server: RunningOpenAIServer
        /// From sending the message to the end of its events.
        var elapsed: Duration

        var texts: [String] { events.flatMap { $0.display.filter { $0.role == .text }.map(\.markdown) } }
        var summary: String? { events.lazy.compactMap { $0.display.first { $0.role == .summary }?.markdown }.first }
        var raw: String { events.compactMap { if case .textDelta(let text) = $0.event { text } else { nil } }.joined() }
    }

    /// Sends one message to a scripted engine that answers `steps`, through the rewrite stage
    /// (the reference server rewrites) and the personality middleware.
    func run(_ steps: [ScriptedBackend.Step], timeout: Duration = .seconds(120), slowChunkDelay: Duration = .milliseconds(300),
             _ check: (Run) async throws -> Void) async throws {
        try await withOpenAIServer(OpenAIReferenceOptions(port: 0, chunkDelay: .milliseconds(1), slowChunkDelay: slowChunkDelay)) { server, model in
            let store = SoulStore(Self.soul)
            let rewrite = RewriteMiddleware(store: store, rewriter: SoulRewriter(rewriter: BackendTextRewriter(backend: model, name: "reference"), timeout: timeout))
            let engine = ScriptedBackend { _ in steps }
            let pipeline = Pipeline(middleware: [rewrite, PersonalityMiddleware(store: store)], backend: engine)
            let clock = ContinuousClock()
            let start = clock.now
            let exchange = try await pipeline.send(ReceptionRequest(text: "when is the train?"), context: ReceptionContext())
            var events: [ResponseEvent] = []
            for try await event in exchange.events { events.append(event) }
            try await check(Run(events: events, log: rewrite.log, server: server, elapsed: clock.now - start))
        }
    }

    func answer(_ text: String) -> [ScriptedBackend.Step] {
        [.event(.accepted(taskID: "t1", status: .running)), .event(.result(BackendResult(taskID: "t1", text: text)))]
    }

    /// What the soul's renderer shows for a result with this text (the engine's, or a rewrite).
    func deterministic(_ text: String) -> String? {
        SoulRenderer(soul: Self.soul).render(BackendResult(taskID: "t1", text: text), trustLevel: 0).first { $0.role == .summary }?.markdown
    }

    /// Streamed text in the soul's deterministic style.
    func styled(_ text: String) -> String { SoulRenderer(soul: Self.soul).style(text) }

    @Test func aFaithfulRewriteIsShown() async throws {
        let text = "Okay. " + Self.facts
        try await run(answer(text)) { run in
            #expect(run.summary == deterministic("Very well. " + Self.facts))
            #expect(run.summary?.contains("Very well.") == true)
            #expect(run.summary != deterministic(text))
            let attempt = try #require(run.log.last?.attempts.first)
            #expect(attempt.accepted)
            #expect(run.log.explanation().contains("1 of 1 part rewritten."))
            // The model was asked with the persona's own words and the text.
            let bodies = await run.server.server.receivedBodies()
            guard case .array(let messages)? = bodies.last?["messages"] else { Issue.record("no messages"); return }
            let prompt = try #require(messages.last?["content"]?.stringValue)
            #expect(prompt.hasPrefix("Rewrite the text below in the voice of Harbour Pilot"))
            #expect(prompt.contains("You speak like an old harbour pilot"))
            #expect(prompt.hasSuffix("Text:\n" + text + "\n"))
        }
    }

    @Test func aRewriteThatChangesANumberFallsBackAndSaysWhich() async throws {
        let text = Self.facts + " changenumber"
        try await run(answer(text)) { run in
            #expect(run.summary == deterministic(text))
            #expect(run.log.last?.attempts.first?.accepted == false)
            let why = run.log.explanation()
            #expect(why.contains("0 of 1 part rewritten"))
            #expect(why.contains("it lost or changed the number 9:15; it added the number 0:15"), "\(why)")
        }
    }

    @Test func aRewriteThatDropsALinkFallsBackAndSaysWhich() async throws {
        let text = Self.facts + " dropurl"
        try await run(answer(text)) { run in
            #expect(run.summary == deterministic(text))
            let why = run.log.explanation()
            #expect(why.contains("it lost or changed the link https://example.com/trains"), "\(why)")
            #expect(!why.contains("it added"))
        }
    }

    @Test func aRewriteThatAddsANumberOrANameFallsBackAndSaysWhich() async throws {
        try await run(answer(Self.facts + " addnumber")) { run in
            #expect(run.summary == deterministic(Self.facts + " addnumber"))
            #expect(run.log.explanation().contains("it added the number 42"), "\(run.log.explanation())")
        }
        try await run(answer(Self.facts + " addname")) { run in
            #expect(run.summary == deterministic(Self.facts + " addname"))
            #expect(run.log.explanation().contains("it added the name Margaret Hamilton"), "\(run.log.explanation())")
        }
    }

    @Test func aStreamedAnswerIsRewrittenSentenceBySentence() async throws {
        let text = "Okay. The 9:15 train leaves from Kyoto changenumber. This is the last one, see https://example.com/t for more."
        var steps: [ScriptedBackend.Step] = [.event(.accepted(taskID: "t1", status: .running))]
        var chunk = ""
        for character in text {
            chunk.append(character)
            if chunk.count == 4 { steps.append(.event(.textDelta(chunk))); chunk = "" }
        }
        if !chunk.isEmpty { steps.append(.event(.textDelta(chunk))) }
        steps.append(.event(.result(BackendResult(taskID: "t1", text: text, textWasStreamed: true))))
        try await run(steps) { run in
            // The raw parts still make up the engine's text, one part per sentence.
            #expect(run.raw == text)
            #expect(run.texts.count == 3)
            #expect(run.texts[0] == styled("Very well. "))
            #expect(run.texts[1] == styled("The 9:15 train leaves from Kyoto changenumber. "))  // fell back: a number changed
            #expect(run.texts[2] == styled("Here we have the last one, see https://example.com/t for more."))
            let why = run.log.explanation()
            #expect(why.contains("2 of 3 parts rewritten"), "\(why)")
            #expect(why.contains("2. “The 9:15 train leaves from Kyoto changenumber.”: the rewrite was refused: it lost or changed the number 9:15"), "\(why)")
        }
    }

    @Test func aSlowModelTimesOutAndTheRestIsNotSent() async throws {
        // "slow" makes every chunk of the rewrite take 60 s, so a rewrite that was waited for
        // would hold the answer for minutes. The bound below is not a speed target: it only
        // separates "gave up at the 0.5 s limit" from "waited for the model", with a margin
        // that a loaded CI machine cannot eat (an earlier 3 s bound on 300 ms chunks could).
        let text = "The slow train leaves at 9:15. It arrives at 11:30. Then it rests."
        let steps: [ScriptedBackend.Step] = [.event(.textDelta(text)), .event(.result(BackendResult(text: text, textWasStreamed: true)))]
        try await run(steps, timeout: .milliseconds(500), slowChunkDelay: .seconds(60)) { run in
            #expect(run.elapsed < .seconds(30), "\(run.elapsed)")
            #expect(run.raw == text)
            #expect(run.texts == [styled("The slow train leaves at 9:15. It arrives at 11:30. "), styled("Then it rests.")])  // all deterministic
            let why = run.log.explanation()
            #expect(why.contains("reference did not answer within 0.5 s"), "\(why)")
            #expect(why.contains("the rest of the answer was not sent"), "\(why)")
            // At most the first part reached the model (on a loaded machine the limit can pass
            // before even that arrives); the parts after it were never asked for.
            #expect(await run.server.server.receivedBodies().count <= 1)
        }
    }

    @Test func aModelErrorFallsBackWithTheError() async throws {
        try await run(answer(Self.facts + " errorbody")) { run in
            #expect(run.summary == deterministic(Self.facts + " errorbody"))
            let why = run.log.explanation()
            #expect(why.contains("not rewritten: reference:"), "\(why)")
            #expect(why.contains("maximum context length"), "\(why)")
        }
    }
}

/// `soul preview` and `soul diff` with a rewrite profile: both renderings.
@Suite("Preview and diff with a rewriter over loopback")
struct RewritePreviewTests {
    @Test func previewAndDiffShowBothRenderings() async throws {
        // "slower" in the example says "slow" to the reference server: keep its chunks quick too.
        try await withOpenAIServer(OpenAIReferenceOptions(port: 0, chunkDelay: .milliseconds(1), slowChunkDelay: .milliseconds(1))) { _, model in
            // Nothing here is slow: the limit only has to outlast a loaded machine (CI starts
            // every suite at once on two cores).
            let rewriter = SoulRewriter(rewriter: BackendTextRewriter(backend: model, name: "reference"), timeout: .seconds(120))
            let butler = try SoulCatalog(directories: []).load("butler"), playful = try SoulCatalog(directories: []).load("playful")
            let preview = await SoulPreview.render(butler, outcome: .complete, rewriter: rewriter)
            #expect(preview.contains("deterministic:\n"))
            #expect(preview.contains("rewritten by reference — every fact kept:"), "\(preview)")
            // The reference model said "employ" where the engine said "utilize" (which the butler's own renderer keeps).
            #expect(preview.contains("employ the Hikari"), "\(preview)")
            let diff = await SoulDiff.report(butler, playful, outcome: .complete, rewriter: rewriter)
            #expect(diff.contains("The complete example rewritten by reference:"), "\(diff)")
            #expect(diff.contains("\(butler.name): every fact kept"), "\(diff)")
            #expect(diff.contains("\(playful.name): every fact kept"), "\(diff)")
        }
    }
}
