import ReceptionCore

/// Where a note's sections begin. Notes are written in both of Markdown's heading styles:
/// `## Install`, and a line underlined with `=` or `-`, as older READMEs and plain-text guides
/// are ("OVERVIEW" over a row of `=`): read as one passage, such a file answered every
/// question with its whole text.
extension KnowledgeBase {
    /// The level and text of an ATX heading: one to six `#`, then a space or nothing. A line
    /// like "#todo #work" is a note's tags, not a heading.
    static func atxHeading(_ line: Substring) -> (level: Int, text: String)? {
        let marks = line.prefix { $0 == "#" }.count
        guard (1...6).contains(marks) else { return nil }
        let rest = line.dropFirst(marks)
        guard rest.isEmpty || rest.first == " " || rest.first == "\t" else { return nil }
        // A closing run of `#` ("## Install ##") is decoration.
        var text = rest.trimmingHorizontalWhitespace
        let closing = text.reversed().prefix { $0 == "#" }.count
        if closing > 0, closing < text.count, text.dropLast(closing).last.map({ $0 == " " || $0 == "\t" }) == true {
            text = String(text.dropLast(closing)).trimmingHorizontalWhitespace
        } else if closing == text.count {
            text = ""
        }
        return (marks, text)
    }

    /// The level a setext underline gives the line above it: a row of `=` (two or more) is 1,
    /// of `-` (three or more, so that a lone "-" stays an empty list item) 2.
    static func setextUnderline(_ line: Substring) -> Int? {
        // Every line of every note passes here: most are ruled out by their first character.
        guard let first = line.first(where: { $0 != " " && $0 != "\t" }), first == "=" || first == "-" else { return nil }
        let body = line.trimmingHorizontalWhitespace
        if body.count >= 2, body.allSatisfy({ $0 == "=" }) { return 1 }
        if body.count >= 3, body.allSatisfy({ $0 == "-" }) { return 2 }
        return nil
    }

    /// Whether `line` can be the text of a setext heading: words, and not a list item, a quote,
    /// a table row, a fence or indented code, after which a row of `-` is a rule.
    static func canBeSetextText(_ line: String) -> Bool {
        guard line.prefix(while: { $0 == " " }).count < 4, !line.hasPrefix("\t") else { return false }
        let text = line.trimmingHorizontalWhitespace
        guard text.contains(where: { $0.isLetter || $0.isNumber }) else { return false }
        if let first = text.first, ">|#".contains(first) { return false }
        if ["- ", "* ", "+ "].contains(where: text.hasPrefix) { return false }
        let number = text.prefix { $0.isASCII && $0.isNumber }
        if !number.isEmpty, [". ", ") "].contains(where: text.dropFirst(number.count).hasPrefix) { return false }
        return PassageUnits.fenceMarker(Substring(text)) == nil
    }

    /// A plain-text note's label heading: a line of capitals that ends in a colon and holds
    /// nothing after it ("PAGING RULES:", "ESCALATION:"), as text files without Markdown name
    /// their parts. Not "Note:" or "Steps:" in prose (lowercase), and not a list item (it
    /// starts with a capital letter).
    static func isLabelHeading(_ line: Substring) -> Bool {
        guard line.count <= 60, line.last == ":" else { return false }
        let text = line.dropLast().trimmingHorizontalWhitespace
        guard let first = text.first, first.isLetter, first.isUppercase else { return false }
        return text.allSatisfy { !$0.isLowercase } && text.filter(\.isLetter).count >= 2 && !text.contains(":")
    }

    /// Whether a note's first line reads as its title: a few words, not a sentence (no closing
    /// full stop, question mark or colon), not a list item, a quote or a tag line.
    static func isTitleLine(_ line: String) -> Bool {
        let text = line.trimmingHorizontalWhitespace
        guard (2...60).contains(text.count), canBeSetextText(line), let last = text.last, !".?!:;,".contains(last) else { return false }
        return text.split(separator: " ").count <= 8
    }

    /// A heading's text as a follow-up names it: "SESSION LIFECYCLE:" is "SESSION LIFECYCLE".
    static func headingText(_ text: String) -> String {
        var text = text.trimmingHorizontalWhitespace
        while text.hasSuffix(":") { text = String(text.dropLast()).trimmingHorizontalWhitespace }
        return text
    }
}
