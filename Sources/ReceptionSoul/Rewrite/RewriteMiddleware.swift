import ReceptionCore
import Synchronization

/// The language-model rewrite stage: the engine's text in the soul's voice, said by a model
/// (`SoulRewriter`), shown only when every fact survived; otherwise the deterministic
/// rendering is shown and `RewriteLog` keeps why (for `/soul why`).
///
/// It goes before (outside) `PersonalityMiddleware`, which has already rendered every event:
/// - a streamed answer is held until a sentence ends (`SentenceBuffer`) and each sentence
///   is rewritten as it completes; each `.textDelta` it releases carries the engine's raw
///   text for that sentence (the raw texts still concatenate to the answer) and one
///   `.text` block: the rewrite, or the soul's deterministic rendering;
/// - a result that was not streamed has its text rewritten, then is rendered again with
///   the rewrite as its text (framing, hedges, findings and follow-ups as before);
/// - the event itself is never changed: history, `/raw` and `--json`'s event keep the
///   engine's own text.
/// After a timeout or an error, the rest of that answer is not sent to the model: one slow
/// model must not hold up every sentence.
///
/// When the engine is the rewriter's own backend (the same profile name), the streamed answer
/// is held to its end and then rewritten sentence by sentence: a server such as llama.cpp's
/// cuts a stream when another request arrives, so a rewrite sent mid-answer would cut it.
public struct RewriteMiddleware: Middleware {
    public let store: SoulStore
    public let rewriter: SoulRewriter
    public let log: RewriteLog

    public init(store: SoulStore, rewriter: SoulRewriter, log: RewriteLog? = nil) {
        self.store = store
        self.rewriter = rewriter
        self.log = log ?? RewriteLog(rewriter: rewriter.name)
    }

    public func handle(_ request: ReceptionRequest, context: ReceptionContext, next: MiddlewareNext) async throws -> Exchange {
        let soul = store.current
        let exchange = try await next(request, context)
        let renderer = SoulRenderer(soul: soul)
        let trustLevel = exchange.request.trustLevel
        let rewriter = rewriter
        let log = log
        log.begin(soul: soul.name)
        let state = StreamState()
        let holdToTheEnd = context.backend?.name == rewriter.name

        @Sendable func say(_ text: String) async -> ResponseEvent {
            let attempt: RewriteAttempt
            if let stopped = state.withLock({ $0.stopped }) {
                attempt = RewriteAttempt(original: text, verdict: .skipped(stopped))
            } else {
                attempt = await rewriter.rewrite(text, soul: soul)
                if case .failed(let why) = attempt.verdict {
                    state.withLock { $0.stopped = "an earlier part was not rewritten (\(why)), so the rest of the answer was not sent" }
                }
            }
            // Parts without words (spacing, a bare number) are not worth a line in /soul why.
            if text.contains(where: \.isLetter) { log.record(attempt) }
            return ResponseEvent(.textDelta(text), display: [DisplayBlock(role: .text, markdown: renderer.style(attempt.text))])
        }
        @Sendable func release(_ text: String?) async -> [ResponseEvent] {
            guard let text, !text.isEmpty else { return [] }
            if holdToTheEnd {
                var events: [ResponseEvent] = []
                for sentence in SentenceBuffer.split(text) { events.append(await say(sentence)) }
                return events
            }
            return [await say(text)]
        }

        return exchange.mapEvents({ event in
            switch event.event {
            case .textDelta(let chunk):
                if holdToTheEnd {
                    return await release(state.withLock { $0.sentences.hold(chunk) })
                }
                return await release(state.withLock { $0.sentences.feed(chunk) })
            case .result(let result):
                var events = await release(state.withLock { $0.sentences.finish() })
                var event = event
                if !result.textWasStreamed, !result.text.trimmedWhitespace.isEmpty {
                    let attempt = await rewriter.rewrite(result.text, soul: soul)
                    log.record(attempt)
                    if attempt.accepted, let rewrite = attempt.rewrite {
                        var rewritten = result
                        rewritten.text = rewrite
                        event.display = renderer.render(rewritten, trustLevel: trustLevel)
                    }
                }
                events.append(event)
                return events
            case .failure:
                // Shown at once: what is held goes out as the engine wrote it.
                let held = state.withLock { $0.sentences.finish() }
                let plain = held.map { [ResponseEvent(.textDelta($0), display: [DisplayBlock(role: .text, markdown: renderer.style($0))])] } ?? []
                return plain + [event]
            default:
                return await release(state.withLock { $0.sentences.finish() }) + [event]
            }
        }, finish: {
            await release(state.withLock { $0.sentences.finish() })
        })
    }

    /// One exchange's held text, shared by its closures.
    final class StreamState: Sendable {
        struct Value {
            var sentences = SentenceBuffer()
            /// Set after a timeout or an error: why the rest of the answer is not rewritten.
            var stopped: String?
        }

        private let value = Mutex(Value())

        func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
            value.withLock { body(&$0) }
        }
    }
}
