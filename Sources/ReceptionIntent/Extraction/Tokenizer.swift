import Foundation

/// A normalised word of a message, as the feature extractor sees it.
///
/// Tokens are identified by a 64-bit hash of their lowercased UTF-8 bytes (`tokenHash`), so
/// matching a word or a phrase never allocates a `String`.
public struct Token: Sendable, Hashable {
    public var hash: UInt64
    /// The strongest punctuation between this token and the previous one (`Separator`).
    public var separator: UInt8
    public var flags: UInt8
    /// The value of a number token (capped), else 0.
    public var value: Int32
    /// Where the extractor's token table holds this token (-1, or the table's size: unknown),
    /// found while tokenizing so features need no second lookup.
    var slot: Int32 = -1

    public static let number: UInt8 = 1
    /// Ends in "ing" (a progressive verb, usually).
    public static let progressive: UInt8 = 2
    /// Produced by expanding a contraction or a rewrite ("what's" → "what is").
    public static let expanded: UInt8 = 4
    /// The word carried a possessive "'s" ("tomorrow's").
    public static let possessive: UInt8 = 8
    /// Ends in "ed" (a past participle, usually).
    public static let past: UInt8 = 16

    public var isNumber: Bool { flags & Token.number != 0 }
}

/// Punctuation kinds recorded between tokens, weakest first.
public enum Separator {
    public static let space: UInt8 = 0
    public static let hyphen: UInt8 = 1
    public static let slash: UInt8 = 2
    public static let colon: UInt8 = 3
    public static let comma: UInt8 = 4
    public static let stop: UInt8 = 5
    public static let exclamation: UInt8 = 6
    public static let question: UInt8 = 7
}

/// Text as the tokenizer sees it: lowercased ASCII bytes, or, when the message holds any
/// non-ASCII character, the Unicode-folded form (case, diacritics, width, curly quotes).
enum TextNormalizer {
    /// Calls `body` with the bytes the tokenizer reads: the string's own UTF-8 when it is all
    /// ASCII (no copy, no reference counting), else the folded form (`normalizedBytes`).
    static func withNormalizedBytes<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        // A span borrows the string: unlike a copy of its UTF-8 view, it costs no retain and release.
        let direct: R? = text.utf8Span.span.withUnsafeBufferPointer { buffer in
            isASCII(buffer) ? body(buffer) : nil
        }
        if let direct { return direct }
        let bytes = normalizedBytes(text) ?? Array(text.utf8)
        return bytes.withUnsafeBufferPointer(body)
    }

    /// Eight bytes at a time: no high bit set.
    @inline(__always)
    static func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buffer.baseAddress else { return true }
        let raw = UnsafeRawPointer(base), count = buffer.count
        var bits: UInt64 = 0
        var i = 0
        while i &+ 8 <= count {
            bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i &+= 8
        }
        while i < count {
            bits |= UInt64(base[i])
            i &+= 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    /// The normalised bytes of a message that is not plain ASCII, or nil when it is.
    static func normalizedBytes(_ text: String) -> [UInt8]? {
        var text = text
        let fast: [UInt8]?? = text.withUTF8 { buffer in
            if isASCII(buffer) { return .some(nil) }
            return map(buffer, keepingLetters: false).map { .some($0) }
        }
        if let fast { return fast }
        // Letters outside ASCII: fold case, diacritics and width ("Café" → "cafe"), then map punctuation.
        var folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        return folded.withUTF8 { map($0, keepingLetters: true) }
    }

    /// Maps curly quotes, dashes, ellipses and other punctuation to ASCII and symbols such as
    /// emoji to spaces. Returns nil at the first other non-ASCII character unless `keepingLetters`.
    private static func map(_ buffer: UnsafeBufferPointer<UInt8>, keepingLetters: Bool) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(buffer.count + 8)
        var i = 0
        let count = buffer.count
        while i < count {
            let byte = buffer[i]
            if byte < 0x80 { out.append(byte); i += 1; continue }
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            if byte == 0xE2 && i + 2 < count && buffer[i + 1] == 0x80 {
                switch buffer[i + 2] {
                case 0x98, 0x99, 0x9B, 0xB2: out.append(39)          // ‘ ’ ‛ ′
                case 0x9C, 0x9D, 0x9F, 0xB3: out.append(34)          // “ ” ‟ ″
                case 0x90, 0x91, 0x92, 0x93, 0x94, 0x95: out += [32, 45, 32]  // hyphens and dashes
                case 0xA6: out += [46, 46, 46]                        // …
                default: out.append(32)                               // spaces, bullets, other punctuation
                }
                i += 3
                continue
            }
            if byte == 0xEF && i + 2 < count && buffer[i + 1] == 0xBC && buffer[i + 2] == 0x9F { out.append(63); i += 3; continue } // ？
            if byte == 0xC2 && i + 1 < count && (buffer[i + 1] == 0xBF || buffer[i + 1] == 0xA1 || buffer[i + 1] == 0xA0) { out.append(32); i += 2; continue } // ¿ ¡ nbsp
            if byte >= 0xF0 || (byte == 0xE2 && i + 1 < count && buffer[i + 1] >= 0x86) || (byte == 0xEF && i + 1 < count && buffer[i + 1] == 0xB8) {
                out.append(32)                                        // emoji, arrows, symbols, variation selectors
                i += length
                continue
            }
            guard keepingLetters else { return nil }
            let end = min(count, i + length)
            while i < end { out.append(buffer[i]); i += 1 }
        }
        return out
    }
}

/// Splits a message into whole-word tokens.
///
/// Words are runs of letters and digits (any non-ASCII byte counts as a letter, so other
/// scripts survive); an apostrophe inside a word is kept ("what's"); a change between
/// digits and letters splits ("3pm" → "3", "pm"; "15th" → "15", "th"). The strongest
/// punctuation seen between two words is recorded on the second.
public struct RawTokenizer {
    /// Calls `emit(start, end, separator, isNumber, hash, value, apostrophe)` for each raw word
    /// (hash: `tokenHash` of the lowercased bytes; value: of a number; apostrophe: the index of
    /// the last one inside the word, or -1), in one pass over the bytes; returns the last
    /// punctuation kind.
    @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (Int, Int, UInt8, Bool, UInt64, Int32, Int) -> Void) -> UInt8 {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return Separator.space }
        // Words are read eight bytes at a time, up to nine bytes past where they end: from a copy
        // with zero bytes after the text (a zero byte ends any word).
        let count = bytes.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count + Self.padding) { padded in
            let copy = padded.baseAddress!
            copy.initialize(from: p, count: count)
            (copy + count).initialize(repeating: 0, count: Self.padding)
            return scan(UnsafePointer(copy), count, byteTable, emit)
        }
    }

    /// Zero bytes after the copy of the text: a word's last chunk starts at most at `count` and
    /// reads nine bytes (the chunk and the byte after it).
    static let padding = 16

    /// What each byte is to the scanner, in one table lookup instead of a chain of range tests:
    /// a word byte maps to itself lowercased (`isWord`: 0x61 and up, including every byte of
    /// other scripts), a digit to itself (0x30–0x39), and any other byte to its punctuation
    /// kind (`Separator`, below 8; an apostrophe is a space here, as the word loop decides
    /// which apostrophes belong to a word).
    /// A plain pointer (allocated once, never freed) rather than an array: reading it costs no
    /// reference counting per message.
    nonisolated(unsafe) static let byteTable: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in 0..<256 { table[byte] = byteEntry(byte) }
        return UnsafePointer(table)
    }()

    private static func byteEntry(_ byte: Int) -> UInt8 {
        switch byte {
        case 65...90: UInt8(byte | 0x20)
        case 97...122, 128...255: UInt8(byte)
        case 48...57: UInt8(byte)
        case 63: Separator.question
        case 33: Separator.exclamation
        case 46, 59: Separator.stop
        case 44: Separator.comma
        case 58: Separator.colon
        case 47: Separator.slash
        case 45: Separator.hyphen
        default: Separator.space
        }
    }

    @inline(__always)
    static func isWord(_ entry: UInt8) -> Bool { entry >= 0x61 }

    @inline(__always)
    static func isDigit(_ entry: UInt8) -> Bool { (entry &- 48) < 10 }

    @inline(__always)
    private static func scan(_ p: UnsafePointer<UInt8>, _ count: Int, _ table: UnsafePointer<UInt8>,
                             _ emit: (Int, Int, UInt8, Bool, UInt64, Int32, Int) -> Void) -> UInt8 {
        var index = 0
        var separator = Separator.space
        var last = Separator.space
        while index < count {
            let entry = table[Int(p[index])]
            if isWord(entry) {
                // Eight bytes at a time, with masks: where a word ends depends on the text, and a
                // loop that branched on every byte mispredicted at the end of almost every word.
                let start = index
                var hash = WordHash.seed
                var apostrophe = -1
                while true {
                    let chunk = Bytes8.load(p + index)
                    let letters = Bytes8.letters(chunk)
                    let word = letters | (chunk & Bytes8.high)
                    // An apostrophe is part of the word when a word byte follows it ("what's"):
                    // for the chunk's last byte, the one after the chunk.
                    let after = UInt64(isWord(table[Int(p[index &+ 8])]) ? 1 : 0) << 63
                    let joins = Bytes8.equal(chunk, 0x27) & ((word >> 8) | after)
                    let ends = ~(word | joins) & Bytes8.high
                    let length = ends.trailingZeroBitCount >> 3          // 8 when the word goes on
                    let kept = Bytes8.first(length)
                    // Selected with masks, not branches: both depend on the word.
                    let inside = joins & kept
                    let found = index &+ (63 &- inside.leadingZeroBitCount) >> 3
                    apostrophe = Bytes8.select(inside != 0, found, apostrophe)
                    // Letters lowercased: 0x20 set on each (their mask's high bits, shifted).
                    let stepped = WordHash.step(hash, (chunk | letters >> 2) & kept)
                    hash = Bytes8.select(length > 0, stepped, hash)
                    index &+= length
                    if ends != 0 { break }
                }
                emit(start, index, separator, false, hash, 0, apostrophe)
                separator = Separator.space
                last = Separator.space
            } else if isDigit(entry) {
                let start = index
                var hash = WordHash.seed
                while true {
                    let chunk = Bytes8.load(p + index)
                    let ends = ~Bytes8.digits(chunk) & Bytes8.high
                    let length = ends.trailingZeroBitCount >> 3
                    hash = Bytes8.select(length > 0, WordHash.step(hash, chunk & Bytes8.first(length)), hash)
                    index &+= length
                    if ends != 0 { break }
                }
                var value: Int32 = 0
                for i in start..<index where value < 100_000 { value = value &* 10 &+ Int32(p[i] &- 48) }
                emit(start, index, separator, true, hash, value, -1)
                separator = Separator.space
                last = Separator.space
            } else {
                // Punctuation and spaces between words: the strongest kind is kept (an apostrophe
                // outside a word counts as a space).
                let kind = entry
                if kind > separator { separator = kind }
                if kind != Separator.space { last = kind }
                index &+= 1
            }
        }
        return last
    }
}
