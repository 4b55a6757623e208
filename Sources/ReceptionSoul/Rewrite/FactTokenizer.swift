/// A word, a number or a mark of a text, for the fact passes that work on words.
struct FactToken {
    enum Kind: Equatable {
        /// Letters (with inner apostrophes, hyphens, dots or slashes: "O'Brien", "km/h").
        case word
        /// Alphanumerics with a digit, separators inside ("1,200.50", "9:15", "v1.2.3", "3.2GB", "45%").
        case number
        /// One character that is neither: punctuation, a currency sign, an emoji.
        case mark(Character)
        case newline
        /// A span an earlier pass took (code, a link): content, but no word.
        case hidden
    }

    var kind: Kind
    var range: Range<Int>
    /// Whitespace (not a line break) comes right before it.
    var spaceBefore: Bool
}

/// Splits characters into `FactToken`s in one pass.
enum FactTokenizer {
    static func tokens(_ characters: [Character], hidden: [Bool]) -> [FactToken] {
        var tokens: [FactToken] = []
        tokens.reserveCapacity(characters.count / 4)
        let count = characters.count
        var index = 0
        var space = false
        func alphanumeric(_ position: Int) -> Bool {
            position < count && !hidden[position] && (characters[position].isLetter || characters[position].isNumber)
        }
        while index < count {
            let character = characters[index]
            if hidden[index] {
                let start = index
                while index < count, hidden[index] { index += 1 }
                tokens.append(FactToken(kind: .hidden, range: start..<index, spaceBefore: space))
                space = false
                continue
            }
            if character == "\n" || character == "\r\n" {
                tokens.append(FactToken(kind: .newline, range: index..<(index + 1), spaceBefore: space))
                space = false
                index += 1
                continue
            }
            if character.isWhitespace { space = true; index += 1; continue }
            // Scripts written without spaces (Chinese, Japanese, Korean): each character is a
            // word of its own, so "2時間15分" has the numbers 2 and 15.
            if isUnspaced(character) {
                tokens.append(FactToken(kind: .word, range: index..<(index + 1), spaceBefore: space))
                space = false
                index += 1
                continue
            }
            let signed = (character == "-" || character == "−" || character == "+") && alphanumeric(index + 1)
                && characters[index + 1].isNumber && (index == 0 || characters[index - 1].isWhitespace || "([".contains(characters[index - 1]))
            if character.isLetter || character.isNumber || signed {
                let start = index
                index += 1
                var digit = character.isNumber
                while index < count, !hidden[index] {
                    let current = characters[index]
                    if isUnspaced(current) { break }
                    if current.isLetter || current.isNumber {
                        digit = digit || current.isNumber
                        index += 1
                        continue
                    }
                    // A separator stays inside when an alphanumeric follows: digits for , and :
                    // (1,200 and 9:15), letters for apostrophes (O'Brien), either for . / - _
                    let previous = characters[index - 1]
                    guard alphanumeric(index + 1) else { break }
                    let next = characters[index + 1]
                    let inner: Bool = switch current {
                    case ",", ":": previous.isNumber && next.isNumber
                    case "'", "’": previous.isLetter && next.isLetter
                    case ".", "/", "-", "_", "‑": previous.isLetter || previous.isNumber
                    default: false
                    }
                    guard inner else { break }
                    index += 2
                    digit = digit || next.isNumber
                }
                if digit, index < count, !hidden[index], characters[index] == "%" || characters[index] == "‰" { index += 1 }
                tokens.append(FactToken(kind: digit ? .number : .word, range: start..<index, spaceBefore: space))
                space = false
                continue
            }
            // "°C" and "°F" are one unit word.
            if character == "°" {
                let start = index
                index += 1
                while index < count, !hidden[index], characters[index].isLetter, index - start < 3 { index += 1 }
                tokens.append(FactToken(kind: index - start > 1 ? .word : .mark(character), range: start..<index, spaceBefore: space))
                space = false
                continue
            }
            tokens.append(FactToken(kind: .mark(character), range: index..<(index + 1), spaceBefore: space))
            space = false
            index += 1
        }
        return tokens
    }

    /// A character of a script written without spaces between words.
    static func isUnspaced(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first, scalar.value >= 0x2E80 else { return false }
        switch scalar.value {
        case 0x2E80...0x2FDF, 0x3040...0x30FF, 0x3100...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF,
             0xF900...0xFAFF, 0x20000...0x2FA1F:
            return true
        default:
            return false
        }
    }
}
