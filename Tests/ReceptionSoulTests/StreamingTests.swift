import Foundation
import Testing
import ReceptionCore
@testable import ReceptionSoul

@Suite("Streamed text")
struct StreamingTests {
    static let soul: Soul = {
        var soul = Soul(name: "s")
        soul.vocabulary.replace = [
            VocabularyReplacement(avoid: "utilize", prefer: "use"),
            VocabularyReplacement(avoid: "in order to", prefer: "to"),
            VocabularyReplacement(avoid: "leverage", prefer: "lean on"),
        ]
        soul.capitalization = .lowercase
        return soul
    }()

    static let text = """
    We utilize caches in order to leverage locality. Utilize `utilize()` only if "utilize" is quoted; \
    see https://example.com/utilize. The 12 km route.

    ```
    utilize in order to
    ```
    The end: leverage it in order to win.
    """

    func stream(_ chunks: [String], soul: Soul = StreamingTests.soul) -> (raw: String, styled: String) {
        var stream = SoulTextStream(soul: soul)
        var raw = "", styled = ""
        for chunk in chunks {
            if let output = stream.feed(chunk) { raw += output.raw; styled += output.styled }
        }
        if let output = stream.finish() { raw += output.raw; styled += output.styled }
        return (raw, styled)
    }

    @Test func aWordSplitAcrossChunksIsStillReplaced() {
        let (_, styled) = stream(["We util", "ize caches in or", "der to lever", "age locality."])
        #expect(styled == "we use caches to lean on locality.")
    }

    @Test func everySplitPointGivesTheSameTextAsTheWholeText() {
        let whole = SoulRenderer(soul: Self.soul).style(Self.text)
        #expect(whole.contains("we use caches to lean on locality"))
        let scalars = Array(Self.text.unicodeScalars)
        for split in 1..<scalars.count {
            let chunks = [String(String.UnicodeScalarView(scalars[..<split])), String(String.UnicodeScalarView(scalars[split...]))]
            let (raw, styled) = stream(chunks)
            #expect(raw == Self.text)
            #expect(styled == whole, "split at \(split)")
            if styled != whole { break }
        }
    }

    @Test func randomChunkingsGiveTheSameTextAsTheWholeText() {
        let whole = SoulRenderer(soul: Self.soul).style(Self.text)
        let scalars = Array(Self.text.unicodeScalars)
        var generator = SplitMix(seed: 42)
        for _ in 0..<300 {
            var chunks: [String] = []
            var index = 0
            while index < scalars.count {
                let size = Int(generator.next() % 7) + 1
                let end = min(scalars.count, index + size)
                chunks.append(String(String.UnicodeScalarView(scalars[index..<end])))
                index = end
            }
            let (raw, styled) = stream(chunks)
            #expect(raw == Self.text)
            #expect(styled == whole)
            if styled != whole { break }
        }
    }

    @Test func middlewareBuffersAcrossTextDeltasAndFlushesAtTheEnd() async throws {
        let store = SoulStore(Self.soul)
        let middleware = PersonalityMiddleware(store: store)
        let chunks = ["Please util", "ize the ", "cache in order", " to win"]
        let request = ReceptionRequest(text: "q")
        let exchange = try await middleware.handle(request, context: ReceptionContext()) { request, _ in
            Exchange(request: request, events: ResponseStream { continuation in
                for chunk in chunks { continuation.yield(ResponseEvent(.textDelta(chunk))) }
                continuation.finish()
            })
        }
        var raw = "", shown = ""
        for try await event in exchange.events {
            guard case .textDelta(let text) = event.event else { continue }
            raw += text
            #expect(event.display.count == 1)
            shown += event.display.map(\.markdown).joined()
        }
        #expect(raw == chunks.joined())
        #expect(shown == "please use the cache to win")
    }

    @Test func heldTextIsReleasedBeforeTheResult() async throws {
        let middleware = PersonalityMiddleware(store: SoulStore(Self.soul))
        let response = BackendResult(taskID: "r", outcome: .complete, text: "we utilize", confidence: 0.9, textWasStreamed: true)
        let exchange = try await middleware.handle(ReceptionRequest(text: "q"), context: ReceptionContext()) { request, _ in
            Exchange(request: request, events: ResponseStream { continuation in
                continuation.yield(ResponseEvent(.textDelta("we utilize")))
                continuation.yield(ResponseEvent(.result(response)))
                continuation.finish()
            })
        }
        var kinds: [String] = []
        for try await event in exchange.events {
            switch event.event {
            case .textDelta: kinds.append("text:" + event.display.map(\.markdown).joined())
            case .result:
                kinds.append("result")
                // The answer was streamed: the result adds no second copy of it.
                #expect(!event.display.contains { $0.role == .summary }, "\(event.display)")
            default: break
            }
        }
        #expect(kinds == ["text:we use", "result"])
    }

    /// An answer the soul's length limit cut (this soul writes in lower case) carries the whole of it beside (what "tell me
    /// more" shows, since the engine already sent it); an answer shown whole carries nothing.
    @Test func aCutAnswerCarriesTheWholeOfItBeside() async throws {
        var soul = Self.soul
        soul.length = LengthLimits(maxSentences: 1, maxFindings: 1)
        let middleware = PersonalityMiddleware(store: SoulStore(soul))
        func result(_ response: BackendResult) async throws -> ResponseEvent? {
            let exchange = try await middleware.handle(ReceptionRequest(text: "q"), context: ReceptionContext()) { request, _ in
                Exchange(request: request, events: ResponseStream { continuation in
                    continuation.yield(ResponseEvent(.result(response)))
                    continuation.finish()
                })
            }
            for try await event in exchange.events { if case .result = event.event { return event } }
            return nil
        }
        let long = BackendResult(taskID: "r", outcome: .complete, findings: [Finding(content: "finding one"), Finding(content: "finding two")],
                                 text: "First point. Second point. Third point.", confidence: 0.9)
        let cut = try #require(try await result(long))
        let shown = cut.display.map(\.markdown).joined(separator: "\n")
        #expect(!shown.contains("third point") && !shown.contains("finding two"), "\(shown)")
        let whole = try #require(cut.displayInFull).map(\.markdown).joined(separator: "\n")
        #expect(whole.contains("second point. third point.") && whole.contains("finding one") && whole.contains("finding two"), "\(whole)")
        #expect(!whole.lowercased().contains("left out"), "the whole answer has no note of what was left out: \(whole)")
        let short = try #require(try await result(BackendResult(taskID: "r", outcome: .complete, text: "One point.", confidence: 0.9)))
        #expect(short.displayInFull == nil)
    }

    @Test func aSystemPromptGoesOnlyToBackendsThatReadOne() async throws {
        let middleware = PersonalityMiddleware(store: SoulStore(Self.soul))
        func sent(capabilities: BackendCapabilities) async throws -> ReceptionRequest {
            var context = ReceptionContext()
            context.backend = BackendDescriptor(name: "b", summary: "", capabilities: capabilities)
            return try await middleware.handle(ReceptionRequest(text: "q"), context: context) { request, _ in
                Exchange(request: request, events: ResponseStream { $0.finish() })
            }.request
        }
        let prompted = try await sent(capabilities: [.systemPrompt, .textStreaming])
        #expect(prompted.systemPrompt?.contains(Self.soul.name) == true, "\(prompted.systemPrompt ?? "nil")")
        #expect(try await sent(capabilities: [.planApproval]).systemPrompt == nil)
    }

    /// A lead introduces the words that follow it; after an answer already streamed on screen
    /// it would read backwards ("Here is what I found." under the answer), so it is left out,
    /// while the note that closes a bounded answer still comes.
    @Test func aStreamedAnswerGetsNoLeadAfterItButKeepsTheClosingNote() {
        var soul = Soul(name: "s")
        soul.outcomes["complete"] = OutcomeStyle(lead: "Here is the answer.", note: nil)
        soul.outcomes["bounded"] = OutcomeStyle(lead: "So far:", note: "I stopped at a limit.")
        let renderer = SoulRenderer(soul: soul)
        let streamed = renderer.render(BackendResult(outcome: .complete, text: "words", textWasStreamed: true), trustLevel: 1)
        #expect(!streamed.map(\.markdown).joined().contains("Here is the answer."), "\(streamed)")
        let whole = renderer.render(BackendResult(outcome: .complete, text: "words"), trustLevel: 1)
        #expect(whole.first?.markdown.hasPrefix("Here is the answer.") == true, "\(whole)")
        let bounded = renderer.render(BackendResult(outcome: .bounded, text: "words", textWasStreamed: true), trustLevel: 1)
        let text = bounded.map(\.markdown).joined(separator: " ")
        #expect(text.contains("I stopped at a limit.") && !text.contains("So far:"), "\(bounded)")
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
