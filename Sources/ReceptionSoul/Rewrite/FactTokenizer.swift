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
            let signed = (character == "-" || character == "−" || character == "+") && alphanumeric(index + 1)
                && characters[index + 1].isNumber && (index == 0 || characters[index - 1].isWhitespace || "([".contains(characters[index - 1]))
            if character.isLetter || character.isNumber || signed {
                let start = index
                index += 1
                var digit = character.isNumber
                while index < count, !hidden[index] {
                    let current = characters[index]
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
}
