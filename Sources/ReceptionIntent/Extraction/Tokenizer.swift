import Foundation

/// A normalised word of a message, as the feature extractor sees it.
///
/// Tokens are identified by a 64-bit FNV-1a hash of their lowercased UTF-8 bytes, so
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

/// FNV-1a, 64 bit: the token identity used everywhere in the classifier.
@inline(__always)
public func tokenHash<S: Sequence>(_ bytes: S) -> UInt64 where S.Element == UInt8 {
    var hash = FNV.offset
    for byte in bytes { hash = FNV.step(hash, byte) }
    return hash
}

/// The two halves of FNV-1a, for the loops that hash a word while they find its end (the
/// scanner, contraction stems): they must agree with `tokenHash` byte for byte.
enum FNV {
    static let offset: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always)
    static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
}

@inline(__always)
public func tokenHash(_ word: String) -> UInt64 { tokenHash(Array(word.utf8)) }

/// Text as the tokenizer sees it: lowercased ASCII bytes, or, when the message holds any
/// non-ASCII character, the Unicode-folded form (case, diacritics, width, curly quotes).
enum TextNormalizer {
    /// Calls `body` with the bytes the tokenizer reads: the string's own UTF-8 when it is all
    /// ASCII (no copy, no reference counting), else the folded form (`normalizedBytes`).
    static func withNormalizedBytes<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let direct: R?? = text.utf8.withContiguousStorageIfAvailable { buffer in
            isASCII(buffer) ? .some(body(buffer)) : .none
        }
        if let direct, let result = direct { return result }
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
    /// (hash: FNV-1a of the lowercased bytes; value: of a number; apostrophe: its index or -1),
    /// in one pass over the bytes; returns the last punctuation kind.
    @inline(__always)
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (Int, Int, UInt8, Bool, UInt64, Int32, Int) -> Void) -> UInt8 {
        guard let p = bytes.baseAddress else { return Separator.space }
        return scan(p, bytes.count, byteTable, emit)
    }

    /// What each byte is to the scanner, in one table lookup instead of a chain of range tests:
    /// a word byte maps to itself lowercased (`isWord`: 0x61 and up, including every byte of
    /// other scripts), a digit to itself (0x30–0x39), an apostrophe to `apostrophe`, and any
    /// other byte to its punctuation kind (`Separator`, below 8).
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
        case 39: apostrophe
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
    static let apostrophe: UInt8 = 8

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
        // One tight loop per word kind, so the hash and the index stay in registers.
        while index < count {
            let entry = table[Int(p[index])]
            if isWord(entry) {
                let start = index
                var hash = FNV.offset
                var apostrophe = -1
                while index < count {
                    let byte = table[Int(p[index])]
                    if isWord(byte) {
                        hash = FNV.step(hash, byte)
                    } else if byte == Self.apostrophe && index &+ 1 < count && isWord(table[Int(p[index &+ 1])]) {
                        // An apostrophe inside a word ("what's") is part of it.
                        hash = FNV.step(hash, 39)
                        apostrophe = index
                    } else {
                        break
                    }
                    index &+= 1
                }
                emit(start, index, separator, false, hash, 0, apostrophe)
                separator = Separator.space
                last = Separator.space
            } else if isDigit(entry) {
                let start = index
                var hash = FNV.offset
                var value: Int32 = 0
                repeat {
                    let byte = p[index]
                    hash = FNV.step(hash, byte)
                    if value < 100_000 { value = value &* 10 &+ Int32(byte &- 48) }
                    index &+= 1
                } while index < count && (p[index] &- 48) < 10
                emit(start, index, separator, true, hash, value, -1)
                separator = Separator.space
                last = Separator.space
            } else {
                // Punctuation and spaces between words: the strongest kind is kept (an apostrophe
                // outside a word counts as a space).
                let kind = entry & 7
                if kind > separator { separator = kind }
                if kind != Separator.space { last = kind }
                index &+= 1
            }
        }
        return last
    }
}
