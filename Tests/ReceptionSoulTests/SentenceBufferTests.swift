import Testing
import ReceptionTestSupport
@testable import ReceptionSoul

/// Streamed text held until a sentence is complete (the rewrite stage's unit).
@Suite("Sentence buffer", .onTheCPULane)
struct SentenceBufferTests {
    /// Feeds `text` in chunks of `size` and returns what was released, in order.
    func released(_ text: String, chunk size: Int) -> [String] {
        var buffer = SentenceBuffer()
        var parts: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            if let part = buffer.feed(String(rest.prefix(size))) { parts.append(part) }
            rest = rest.dropFirst(size)
        }
        if let last = buffer.finish() { parts.append(last) }
        return parts
    }

    @Test func sentencesAreReleasedWhenTheNextOneBegins() {
        let text = "Okay. The 9:15 train costs 3.50 euros, e.g. on Dr. Smith's line. Is it late? No! See `a. b` now.\nDone"
        let sentences = ["Okay. ", "The 9:15 train costs 3.50 euros, e.g. on Dr. Smith's line. ", "Is it late? ", "No! ", "See `a. b` now.\n", "Done"]
        // One character at a time, each sentence comes out on its own.
        #expect(released(text, chunk: 1) == sentences)
        #expect(SentenceBuffer.split(text) == sentences)
        // In bigger chunks, sentences that completed in one chunk come out together.
        for size in [3, 7, 200] {
            let parts = released(text, chunk: size)
            #expect(parts.joined() == text, "chunk \(size)")
            #expect(parts.allSatisfy { part in sentences.contains { part.hasSuffix($0) } }, "chunk \(size): \(parts)")
        }
        // Fed at once, what is complete comes out together.
        #expect(released(text, chunk: 200) == [String(text.dropLast(4)), "Done"])
    }

    @Test func unspacedScriptsEndAtTheirOwnMarks() {
        #expect(SentenceBuffer.split("東京です。京都です。") == ["東京です。", "京都です。"])
    }

    @Test func anEndlessSentenceIsReleasedAtTheLimit() {
        var buffer = SentenceBuffer()
        var released = 0
        for _ in 0..<1_000 { if let part = buffer.feed("word ") { released += part.count } }
        #expect(released >= 1_500)
        #expect(buffer.held.count <= 1_500)
        #expect(SentenceBuffer.split(String(repeating: "a", count: 4_000)).map(\.count) == [1_500, 1_500, 1_000])
    }
}

