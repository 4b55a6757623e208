import Foundation
import ReceptionCore

/// Measures what the README promises: parsing a soul and rendering a typical result.
/// Medians over many runs, each run timed on its own with a monotonic clock. Meaningful
/// only in a release build (`reception soul bench` says so when it is not one).
public enum SoulBenchmark {
    public struct Figures: Sendable, CustomStringConvertible {
        public var iterations: Int
        /// Median time to parse the soul file (front matter and body).
        public var parseMedian: Duration
        /// Median time to render the typical result (the `complete` example) through the soul.
        public var renderMedian: Duration
        /// Median time to render every example (all outcomes), for comparison.
        public var renderAllMedian: Duration
        /// Median time to style a 1 kB text streamed in 16-byte chunks.
        public var streamMedian: Duration
        public var soulBytes: Int

        public var description: String {
            """
            soul parse (\(soulBytes) bytes):          median \(format(parseMedian)) over \(iterations) runs
            render typical result (complete):  median \(format(renderMedian)) over \(iterations) runs
            render all four example results:   median \(format(renderAllMedian)) over \(iterations) runs
            stream 1 kB in 16-byte chunks:     median \(format(streamMedian)) over \(iterations) runs
            """
        }
    }

    /// `soulText` defaults to the shipped default soul.
    public static func run(iterations: Int = 2000, soulText: String? = nil) -> Figures {
        let text = soulText ?? EmbeddedResources.souls["default.md"]!
        let soul = (try? SoulParser.parse(text, fileName: "default.md")) ?? .plain
        let renderer = SoulRenderer(soul: soul)
        let typical = SoulExamples.example(.complete)!.response
        let streamText = String(repeating: "We utilize the cache in order to answer faster; see `make bench` and https://example.com/x. ", count: 11)
        let chunks = stride(from: 0, to: streamText.utf8.count, by: 16).map { start -> String in
            let bytes = Array(streamText.utf8)
            return String(decoding: bytes[start..<min(start + 16, bytes.count)], as: UTF8.self)
        }

        var sink = 0
        let parse = median(iterations) { sink &+= ((try? SoulParser.parse(text, fileName: "default.md"))?.name.count ?? 0) }
        let render = median(iterations) { sink &+= renderer.render(typical, trustLevel: 0).count }
        let renderAll = median(iterations) {
            for example in SoulExamples.all { sink &+= renderer.render(example.response, trustLevel: 0).count }
        }
        let stream = median(iterations) {
            var stream = renderer.makeTextStream()
            for chunk in chunks { sink &+= stream.feed(chunk)?.styled.utf8.count ?? 0 }
            sink &+= stream.finish()?.styled.utf8.count ?? 0
        }
        precondition(sink != 42, "keeps the work from being optimised away")
        return Figures(iterations: iterations, parseMedian: parse, renderMedian: render, renderAllMedian: renderAll,
                       streamMedian: stream, soulBytes: text.utf8.count)
    }

    static func median(_ iterations: Int, _ body: () -> Void) -> Duration {
        let clock = ContinuousClock()
        for _ in 0..<min(50, iterations) { body() }  // warm up
        var samples: [Duration] = []
        samples.reserveCapacity(iterations)
        for _ in 0..<max(1, iterations) {
            let start = clock.now
            body()
            samples.append(clock.now - start)
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    static func format(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        if nanoseconds >= 1e6 { return String(format: "%.2f ms", nanoseconds / 1e6) }
        return String(format: "%.1f µs", nanoseconds / 1e3)
    }
}
