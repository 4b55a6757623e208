import Foundation
import ReceptionCore
import ReceptionFriday
import ReceptionIntent
import ReceptionLoopSymphony
import ReceptionOpenAI
import ReceptionSoul
import ReceptionTransport

/// One fuzz target: a name for the command line, what it reads, and a function of arbitrary bytes
/// that must return (not trap, not hang, not grow without bound) whatever the bytes are.
struct FuzzTarget: Sendable {
    var name: String
    var summary: String
    var run: @Sendable ([UInt8]) -> Void
    /// Done once before the first input, so a one-time cost (loading the classifier's model)
    /// is not taken for a hang of the first input.
    var prepare: @Sendable () -> Void = {}
}

/// Every target. Each reads bytes that come from outside Reception: a server, a soul file, a corpus.
///
let fuzzTargets: [FuzzTarget] = [
    FuzzTarget(name: "sse", summary: "SSEParser: a byte stream cut into chunks at fuzzer-chosen points, then finish()", run: FuzzTargets.sse),
    FuzzTarget(name: "soul", summary: "SoulParser.parse (YAML front matter and the Markdown reader), then rendering a result with the soul", run: FuzzTargets.soul),
    FuzzTarget(name: "prose", summary: "the soul's prose styler on server text, streamed in chunks (SoulTextStream) and whole", run: FuzzTargets.prose,
               prepare: { _ = FuzzTargets.proseSoul }),
    FuzzTarget(name: "facts", summary: "the rewrite stage's fact extractor and check on server text (FactExtractor, FactCheck)", run: FuzzTargets.facts),
    FuzzTarget(name: "corpus", summary: "CorpusReader on JSONL, CSV and TSV bytes, lenient and strict", run: FuzzTargets.corpus),
    FuzzTarget(name: "intent", summary: "IntentClassifier.classify on arbitrary text (plain and explained)", run: FuzzTargets.intent,
               prepare: { _ = FuzzTargets.classifier.classify("warm up") }),
    FuzzTarget(name: "loop-symphony", summary: "Loop Symphony wire types (Wire.decode), stream events and the result mapping", run: FuzzTargets.loopSymphony),
    FuzzTarget(name: "openai", summary: "the OpenAI chunk decoder: an SSE stream read by AnswerReader, and /v1/models", run: FuzzTargets.openAI),
    FuzzTarget(name: "websocket", summary: "Friday's WebSocket messages: FridayFrame(text:) on each message, then the turn that turns frames into events", run: FuzzTargets.websocket),
    FuzzTarget(name: "error-detail", summary: "HTTPTransport.errorDetail on an error response body", run: FuzzTargets.errorDetail),
]

enum FuzzTargets {
    // MARK: SSE

    /// Feeding the stream whole and feeding it in chunks must give the same frames, the same
    /// failure and the same `lastEventID`: where a network splits the bytes must not matter.
    /// Small limits are chosen half the time so the limit paths are reached.
    @Sendable static func sse(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let small = input.bool()
        let maxLine = small ? input.int(in: 1...512) : 1 << 20
        let maxEvent = small ? input.int(in: 1...2048) : 1 << 20
        let chunks = input.chunks(maxCuts: 12)
        let stream = chunks.flatMap { $0 }

        var whole = SSEParser(maxLineBytes: maxLine, maxEventBytes: maxEvent)
        let wholeFrames = try? whole.feed(stream)
        let wholeIncomplete = whole.finish()

        var parser = SSEParser(maxLineBytes: maxLine, maxEventBytes: maxEvent)
        var frames: [SSEFrame] = []
        var failed = false
        for chunk in chunks {
            do { frames += try parser.feed(chunk) } catch { failed = true; break }
        }
        let incomplete = parser.finish()

        require(failed == (wholeFrames == nil), "chunking changed whether the stream fails")
        guard let wholeFrames else { return }
        require(frames == wholeFrames, "chunking changed the frames")
        require(incomplete == wholeIncomplete, "chunking changed finish()")
        require(parser.lastEventID == whole.lastEventID, "chunking changed lastEventID")
        for frame in frames {
            switch frame {
            case .event(let data, _, _): require(data.utf8.count <= maxEvent, "an event larger than maxEventBytes")
            case .comment(let text): require(text.utf8.count <= maxLine, "a comment longer than maxLineBytes")
            }
        }
        // After finish() the parser starts clean: a complete event is read as if first.
        var again = parser
        again.maxLineBytes = 1 << 20
        again.maxEventBytes = 1 << 20
        let next = try? again.feed(Array("data: x\n\n".utf8))
        require(next == [.event(data: "x", name: nil, id: parser.lastEventID)], "the parser is not clean after finish()")
    }

    // MARK: Soul

    static let sampleResult = BackendResult(
        taskID: "t-1", outcome: .bounded,
        findings: [Finding(content: "Utilize the cache in order to fix it 🙂.", source: "https://example.invalid/a", confidence: 0.8),
                   Finding(content: "Second finding.", source: nil, confidence: 0.3)],
        text: "We basically utilize **three** steps. Then it works! Really? Yes.",
        confidence: 0.55, discrepancy: "Two sources disagree.",
        followups: [SuggestedFollowup(parsing: "Want the details?"), SuggestedFollowup(parsing: "[pushback] That is broad.")])

    /// A soul file from anywhere (`~/.reception/souls`, a path given on the command line). When it
    /// parses, it is used for what a soul does: greet, render a result at each trust level, style text.
    @Sendable static func soul(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let soul = try? SoulParser.parse(text, fileName: "fuzz.md") else { return }
        let renderer = SoulRenderer(soul: soul)
        _ = renderer.greeting()
        for trust in 0...2 { _ = renderer.render(sampleResult, trustLevel: trust) }
        _ = renderer.style("Basically, we utilize it in order to ship. Done 🎉")
    }

    /// The terse engineer from Souls/: lowercase, vocabulary replacements, no emoji: every
    /// rewriting path of the styler is on.
    static let proseSoul: Soul = {
        let text = """
        ---
        name: Ops
        language: en
        formality: casual
        verbosity: terse
        emoji: none
        capitalization: lowercase
        vocabulary:
          prefer: [use, fix, check]
          avoid: [basically, "just to be clear"]
          replace:
            utilize: use
            "in order to": to
            "e.g.": "for example"
        ---
        # Ops
        Facts first, no ceremony.
        """
        do { return try SoulParser.parse(text) } catch { fatalError("the prose target's soul does not parse: \(error)") }
    }()

    /// Server text (an answer, a finding) through the styler, streamed as the REPL streams it
    /// and whole. Streaming holds at most `maximumHold` scalars back, so output keeps flowing.
    @Sendable static func prose(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let chunks = input.chunks(maxCuts: 8).map { String(decoding: $0, as: UTF8.self) }
        let renderer = SoulRenderer(soul: proseSoul)
        _ = renderer.style(chunks.joined())
        var stream = renderer.makeTextStream()
        for chunk in chunks { _ = stream.feed(chunk) }
        _ = stream.finish()
    }

    /// Server text through the rewrite stage's fact check: a text always keeps its own facts,
    /// and a rewrite with one more number never passes.
    @Sendable static func facts(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let facts = FactExtractor.facts(in: text)
        require(facts.count <= FactExtractor.maximumFacts, "more facts than the limit")
        require(FactCheck.compare(original: text, rewrite: text).passed, "a text lost its own facts: \(FactCheck.compare(original: text, rewrite: text).reason)")
        if text.count < FactExtractor.maximumCharacters - 100 {
            let added = FactCheck.compare(original: text, rewrite: text + " 987654321")
            require(added.added.contains { $0.text.contains("987654321") } || text.contains("987654321"), "an added number went unseen")
        }
    }

    // MARK: Corpus and classifier

    @Sendable static func corpus(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let format = CorpusFormat.allCases[Int(input.byte()) % CorpusFormat.allCases.count]
        let data = Data(input.rest())
        let lenient = try? CorpusReader().read(data: data, name: "fuzz", format: format)
        let strict = try? CorpusReader(strict: true).read(data: data, name: "fuzz", format: format)
        if let strict, let lenient {
            require(lenient.issues.isEmpty, "strict reading passed where lenient reading found issues")
            require(strict.messages == lenient.messages, "strict and lenient reading disagree on a clean corpus")
        }
    }

    static let classifier = IntentClassifier()

    @Sendable static func intent(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let explain = input.bool()
        let withGoal = input.bool()
        let text = String(decoding: input.rest(), as: UTF8.self)
        let goal = withGoal ? String(text.prefix(40)) : nil
        let result = classifier.classify(text, goal: goal, explain: explain)
        if !explain {
            // The hot path and the explained path are one model: they must agree.
            let explained = classifier.classify(text, goal: goal, explain: true)
            require(result.intent == explained.intent && result.urgency == explained.urgency,
                    "classify and classify(explain:) disagree")
        }
    }

    // MARK: Response decoders

    /// Decodes `data` as `T`; what decodes must encode again (the REPL's `--json` and `/request`
    /// print decoded values back out).
    static func decode<T: Codable>(_ type: T.Type, _ data: Data) -> T? {
        guard let value = try? Wire.decode(type, from: data) else { return nil }
        _ = Wire.jsonString(value)
        return value
    }

    static let loopSymphonyDecoders: [@Sendable (Data) -> Void] = [
        { _ = decode(JSONValue.self, $0) },
        { if let response = decode(TaskResponse.self, $0) { _ = BackendResult(response) } },
        { _ = decode(TaskSubmitResponse.self, $0) },
        { _ = decode(TaskPendingResponse.self, $0) },
        { if let plan = decode(TaskPlan.self, $0) { _ = Plan(plan) } },
        { _ = decode(TaskFinding.self, $0) },
        { _ = decode(ManagedTask.self, $0) },
        { _ = decode(CancelResponse.self, $0) },
        { _ = decode(Checkpoint.self, $0) },
        { _ = decode(ArrangementProposal.self, $0) },
        { _ = decode(ArrangementValidation.self, $0) },
        { _ = decode(LoopProposal.self, $0) },
        { _ = decode(LoopProposalValidation.self, $0) },
        { _ = decode(LoopExecutionPlan.self, $0) },
        { _ = decode([SavedArrangement].self, $0) },
        { _ = decode([ArrangementSuggestion].self, $0) },
        { _ = decode(TrustMetrics.self, $0) },
        { _ = decode(TrustSuggestion.self, $0) },
        { _ = decode([KnowledgeEntry].self, $0) },
        { _ = decode([KnowledgeFile].self, $0) },
        { _ = decode(UserKnowledge.self, $0) },
        { _ = decode(KnowledgeRefreshResult.self, $0) },
        { _ = decode(LearningsAccepted.self, $0) },
        { _ = decode(AggregationResult.self, $0) },
        { _ = decode(KnowledgeSyncStatus.self, $0) },
        { _ = decode(RoomRegistered.self, $0) },
        { _ = decode(RoomHeartbeatResponse.self, $0) },
        { _ = decode(KnowledgeUpdates.self, $0) },
        { _ = decode(RoomDeregistered.self, $0) },
        { _ = decode(RoomList.self, $0) },
        { _ = decode([Heartbeat].self, $0) },
        { _ = decode(HeartbeatTickResult.self, $0) },
        { _ = decode(HeartbeatStatusList.self, $0) },
        { _ = decode(InterventionEvaluation.self, $0) },
        { _ = decode(InterventionEngineStatus.self, $0) },
        { _ = decode(SystemHealth.self, $0) },
        { _ = decode(TaskRequest.self, $0) },  // the reference server reads it
        { _ = try? LoopSymphonyStreamEvent(data: String(decoding: $0, as: UTF8.self), fallbackTaskID: "t-1") },
    ]

    /// The first byte picks the wire type (or the stream-event decoder), the rest is the body.
    @Sendable static func loopSymphony(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let pick = Int(input.byte()) % loopSymphonyDecoders.count
        loopSymphonyDecoders[pick](Data(input.rest()))
    }

    /// A streamed chat completion as the adapter reads it: SSE frames, each `data:` to the
    /// AnswerReader, then its verdict on how the stream ended. The first byte may instead pick
    /// the `/v1/models` list.
    @Sendable static func openAI(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        if input.byte() % 8 == 0 {
            _ = try? Wire.decode(ModelList.self, from: Data(input.rest()))
            return
        }
        var parser = SSEParser(maxLineBytes: 1 << 16, maxEventBytes: 1 << 16)
        var reader = AnswerReader(taskID: "t-1")
        do {
            reading: for chunk in input.chunks(maxCuts: 4) {
                for case .event(let data, _, _) in try parser.feed(chunk) {
                    _ = try reader.read(data)
                    if reader.isDone { break reading }
                }
            }
        } catch { return }
        _ = parser.finish()
        _ = reader.ending()
    }

    /// Each line is one WebSocket text message from a Friday server; the frames go through the
    /// turn that makes events of them, with a small answer limit half the time so that path
    /// is reached. A terminal event must be the last of its frame's events.
    @Sendable static func websocket(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let limit = input.bool() ? input.int(in: 1...256) : 1 << 20
        var turn = FridayTurn(taskID: "t-1", maxTextBytes: limit)
        for line in String(decoding: input.rest(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            guard let frame = FridayFrame(text: String(line)) else { continue }
            let events = turn.take(frame)
            if let terminal = events.firstIndex(where: \.isTerminal), terminal != events.count - 1 {
                fatalError("a terminal event was followed by \(events[(terminal + 1)...])")
            }
            if events.last?.isTerminal == true { return }
        }
    }

    @Sendable static func errorDetail(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let status = input.int(in: 100...599)
        let contentType: String? = input.bool() ? "application/json" : nil
        let detail = HTTPTransport.errorDetail(status: status, body: Data(input.rest()), contentType: contentType)
        _ = detail.count
    }
}
