import Foundation

extension ExtractorTables {
    /// Calls `body` with the normalised tokens of `bytes` (from `TextNormalizer`) and its last
    /// punctuation kind; the tokens live in scratch memory for the duration of the call.
    @inline(__always)
    func withTokens<R>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<Token>, UInt8) -> R) -> R {
        // Most messages fit a buffer small enough for the stack; longer ones are retokenized
        // into one bounded by the input: at most one raw word per byte, each expanding to
        // at most `maxExpansion` tokens.
        let fits: R? = withScratch(of: Token.self, count: Self.stackTokens) { tokens in
            let last = tokenize(bytes, into: &tokens)
            return tokens.overflowed ? nil : body(tokens.elements, last)
        }
        if let fits { return fits }
        return withScratch(of: Token.self, count: bytes.count * maxExpansion + 1) { tokens in
            let last = tokenize(bytes, into: &tokens)
            precondition(!tokens.overflowed, "token bound")
            return body(tokens.elements, last)
        }
    }

    /// Raw words to tokens: rewrites ("whats" → "what is"), contractions and possessives the
    /// rewrites do not list, and the flags the features read (number, "-ing", "-ed").
    @inline(never)
    func tokenize(_ bytes: UnsafeBufferPointer<UInt8>, into tokens: inout FixedBuffer<Token>) -> UInt8 {
        // Where the last raw word ended and began, if it became one token of its own that a run
        // of digits or letters right after it may join ("401" + "k").
        var joinableEnd = -1, joinableStart = 0
        return RawTokenizer.scan(bytes) { start, end, separator, isNumber, hash, value, apostrophe in
            // Digits and letters with nothing between them are one word ("401k", "ps5", "eli5",
            // "co2"): split, "k" or "ps" alone would stand for the word. A time or an ordinal
            // stays two ("3pm", "15th", "5min"), for the time features. Rare, so one test a word.
            let followsItsNumber = start == joinableEnd
            if followsItsNumber {
                let info = table.info(at: table.slot(hash))
                let keepsApart = !isNumber && (info.classes & Self.timeSuffixes != 0 || info.rewrite >= 0)
                if !keepsApart && apostrophe < 0 {
                    let joined = tokenHash(UnsafeBufferPointer(rebasing: bytes[joinableStart..<end]).lazy.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 })
                    let last = tokens.count - 1
                    tokens[last] = Token(hash: joined, separator: tokens[last].separator, flags: 0, value: 0, slot: table.slot(joined))
                    joinableEnd = end
                    return
                }
            }
            joinableEnd = -1
            // "-ing" after two letters or more, "-ed" after two or more: read as a progressive verb
            // and a past participle. Compared as one integer, and combined as bits rather than
            // with `&&`, which compiles to branches that mispredicted on several words a message.
            @inline(__always) func lower(_ i: Int) -> UInt32 { UInt32(bytes[max(i, 0)] | 0x20) }
            @inline(__always) func bit(_ condition: Bool) -> UInt8 { condition ? 1 : 0 }
            let length = end - start
            let tail = lower(end - 3) << 16 | lower(end - 2) << 8 | lower(end - 1)
            let word = bit(!isNumber)
            let progressive = word & bit(length >= 5) & bit(tail == 0x69_6E_67)
            let past = word & bit(length >= 4) & bit(tail & 0xFFFF == 0x65_64)
            let flags = (Token.number &* (word ^ 1)) | (Token.progressive &* progressive) | (Token.past &* past)
            let slot = table.slot(hash)
            // A one-letter chat spelling with digits right after it is an id or a code ("r1200",
            // "U6", "#R1042"), not the word it stands for ("are", "you"): kept as typed, so the
            // digits join it below. Longer rewrites stay rewrites ("1hr30" is an hour and 30),
            // as does a letter after its own number. The padded copy the scanner reads ends in
            // zeros, but `bytes` does not, hence the bound.
            let isCode = length == 1 && !followsItsNumber && end < bytes.count && bytes[end] &- 48 < 10
            if !isCode && appendRewrite(slot, separator: separator, into: &tokens) { return }
            guard apostrophe >= 0 else {
                tokens.append(Token(hash: hash, separator: separator, flags: flags, value: value, slot: slot))
                joinableEnd = end
                joinableStart = start
                return
            }
            // A contraction or possessive the rewrites do not list.
            var stemEnd = apostrophe
            let suffixLength = end - apostrophe - 1
            var suffix: UInt64 = 0, suffixSlot: Int32 = -1
            let s0 = bytes[apostrophe + 1] | 0x20
            if suffixLength == 1 && s0 == 116 && apostrophe - start >= 2 && bytes[apostrophe - 1] | 0x20 == 110 {
                stemEnd = apostrophe - 1; suffix = suffixes.not.hash; suffixSlot = suffixes.not.slot                    // n't
            } else if suffixLength == 1 && s0 == 115 {
                suffix = 1                                                                            // 's
            } else if suffixLength == 2 && s0 == 114 { suffix = suffixes.are.hash; suffixSlot = suffixes.are.slot       // 're
            } else if suffixLength == 2 && s0 == 118 { suffix = suffixes.have.hash; suffixSlot = suffixes.have.slot     // 've
            } else if suffixLength == 2 && s0 == 108 { suffix = suffixes.will.hash; suffixSlot = suffixes.will.slot     // 'll
            } else if suffixLength == 1 && s0 == 100 { suffix = suffixes.would.hash; suffixSlot = suffixes.would.slot   // 'd
            } else if suffixLength == 1 && s0 == 109 { suffix = suffixes.am.hash; suffixSlot = suffixes.am.slot         // 'm
            } else {
                tokens.append(Token(hash: hash, separator: separator, flags: flags, value: value, slot: slot))
                return
            }
            // The stem's bytes, ASCII letters lowercased, as the scanner hashed them.
            let stem = tokenHash(UnsafeBufferPointer(rebasing: bytes[start..<stemEnd]).lazy.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 })
            let stemSlot = table.slot(stem)
            if !appendRewrite(stemSlot, separator: separator, into: &tokens) {
                tokens.append(Token(hash: stem, separator: separator, flags: Token.expanded, value: 0, slot: stemSlot))
            }
            if suffix == 1 {
                if pronounIs.get(stem) >= 0 {
                    tokens.append(Token(hash: suffixes.isToken.hash, separator: Separator.space, flags: Token.expanded, value: 0, slot: suffixes.isToken.slot))
                } else {
                    tokens[tokens.count - 1].flags |= Token.possessive
                }
            } else {
                tokens.append(Token(hash: suffix, separator: Separator.space, flags: Token.expanded, value: 0, slot: suffixSlot))
            }
        }
    }

    /// Classes of a run of letters that stays apart from the digits before it: "3pm", "15th",
    /// "5 minutes" written "5minutes".
    static let timeSuffixes: UInt32 = cClockSuffix | cOrdinal | cMinute | cHour | cDay | cWeek | cMonth | cMonthAmbiguous | cWeekday

    /// Appends the rewrite of the token in `slot`, if it has one.
    @inline(__always)
    private func appendRewrite(_ slot: Int32, separator: UInt8, into tokens: inout FixedBuffer<Token>) -> Bool {
        let rewrite = table.info(at: slot).rewrite
        guard rewrite >= 0 else { return false }
        let from = Int(rewriteStart[Int(rewrite)]), to = Int(rewriteStart[Int(rewrite) + 1])
        for i in from..<to {
            tokens.append(Token(hash: rewriteTokens[i], separator: i == from ? separator : Separator.space, flags: Token.expanded,
                                value: 0, slot: rewriteSlots[i]))
        }
        return true
    }
}
