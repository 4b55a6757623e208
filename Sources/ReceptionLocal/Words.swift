import Foundation

/// A text's words, lowercased: runs of letters and digits, each letter with the combining marks
/// that follow it ("é" written as e and an accent), as `Character.isLetter` and `isNumber`
/// read them. By Unicode scalar, ASCII first: by `Character`, the split took a fifth of
/// reading a large notes folder.
enum Words {
    static func lowercased(_ text: String) -> [String] {
        var words: [String] = []
        var word: [UInt8] = []
        word.reserveCapacity(64)
        func flush() {
            guard !word.isEmpty else { return }
            words.append(String(decoding: word, as: UTF8.self))
            word.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                if (value >= 0x61 && value <= 0x7A) || (value >= 0x30 && value <= 0x39) { word.append(UInt8(value)) }
                else if value >= 0x41 && value <= 0x5A { word.append(UInt8(value + 32)) }
                else { flush() }
                continue
            }
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                 .decimalNumber, .letterNumber, .otherNumber:
                word.append(contentsOf: scalar.properties.lowercaseMapping.utf8)
            // (A `where` on a case of several patterns would guard only the last.)
            case .nonspacingMark, .spacingMark, .enclosingMark:
                if word.isEmpty { flush() } else { word.append(contentsOf: String(scalar).utf8) }
            default:
                flush()
            }
        }
        flush()
        return words
    }
}

extension Words {
    /// Han, Hiragana and Katakana: scripts written without spaces between words.
    static func isUnspaced(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF66...0xFF9F, 0x20000...0x2FA1F: true
        default: false
        }
    }

    /// A word with characters of an unspaced script, as its overlapping pairs of characters
    /// (the other characters of the word kept in their runs: "2024年" is 2024 and 年); nil for
    /// any other word. One character alone is itself.
    static func pairs(_ word: String) -> [String]? {
        guard word.unicodeScalars.contains(where: { $0.value >= 0x3040 && isUnspaced($0) }) else { return nil }
        var pieces: [String] = []
        var run: [Character] = []
        var other = ""
        func flushRun() {
            if run.count == 1 { pieces.append(String(run)) }
            for index in run.indices.dropLast() { pieces.append(String(run[index...index + 1])) }
            run = []
        }
        for character in word {
            if let first = character.unicodeScalars.first, isUnspaced(first) {
                if !other.isEmpty { pieces.append(other); other = "" }
                run.append(character)
            } else {
                flushRun()
                other.append(character)
            }
        }
        flushRun()
        if !other.isEmpty { pieces.append(other) }
        return pieces
    }
}
