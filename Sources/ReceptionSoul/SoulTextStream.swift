import Synchronization

/// Styles text that arrives in chunks (WebSocket backends) exactly as if it had arrived
/// whole: a word to replace that is split across chunks ("util" + "ize") is still
/// replaced, and a quote or code span split across chunks is still left alone.
///
/// It holds back the last, possibly unfinished word (and, for phrase replacements, the
/// words before it), and anything inside a construct that is not closed yet; `finish()`
/// releases the rest. Concatenating the `raw` parts gives back the input exactly.
public struct SoulTextStream: Sendable {
    let styler: ProseStyler
    var pending: [Unicode.Scalar] = []
    var state = ProseStyler.State()
    /// Held text beyond this many scalars is released even inside an unclosed construct.
    public var maximumHold = 4096

    init(styler: ProseStyler) {
        self.styler = styler
    }

    public init(soul: Soul) {
        self.init(styler: ProseStyler(soul: soul))
    }

    /// A released part: the input it covers and how it reads in the soul's voice.
    public struct Output: Sendable, Hashable {
        public var raw: String
        public var styled: String
    }

    /// Takes a chunk; returns what can be shown now (nil if everything is held back).
    public mutating func feed(_ chunk: String) -> Output? {
        pending.append(contentsOf: chunk.unicodeScalars)
        if styler.isIdentity { return release(pending.count) }
        var cut = styler.safePrefixLength(pending, state: state)
        if cut == 0, pending.count > maximumHold { cut = pending.count }
        return cut > 0 ? release(cut) : nil
    }

    /// Releases whatever is held (the stream ended).
    public mutating func finish() -> Output? {
        defer { state = ProseStyler.State() }
        return pending.isEmpty ? nil : release(pending.count)
    }

    private mutating func release(_ count: Int) -> Output {
        let raw = String(String.UnicodeScalarView(pending[..<count]))
        pending.removeFirst(count)
        return Output(raw: raw, styled: styler.style(raw, state: &state))
    }
}

/// A `SoulTextStream` shared by the closures of one exchange.
final class SharedTextStream: Sendable {
    private let stream: Mutex<SoulTextStream>

    init(_ stream: SoulTextStream) {
        self.stream = Mutex(stream)
    }

    func feed(_ chunk: String) -> SoulTextStream.Output? { stream.withLock { $0.feed(chunk) } }
    func finish() -> SoulTextStream.Output? { stream.withLock { $0.finish() } }
}
