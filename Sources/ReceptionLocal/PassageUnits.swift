import ReceptionCore

/// A knowledge passage in the pieces an answer quotes: a sentence of prose, a list item, or a
/// fenced code block whole. Read as one run of sentences, a command in a code block came out
/// as "`sh apt-get install x frob --version" and a list as "- a - b".
struct PassageUnits {
    struct Unit: Hashable {
        enum Kind: Hashable { case sentence, listItem, code, table }

        /// A block shown on lines of its own, never run into a sentence.
        var isBlock: Bool { kind == .code || kind == .table }
        var text: String
        var kind: Kind
        /// The first unit after a blank line: joined with a paragraph break.
        var startsParagraph: Bool

        /// Longer than an answer quotes (`shown` cuts it).
        var isCut: Bool { text.utf8.count > PassageUnits.maxUnitCharacters && text.count > PassageUnits.maxUnitCharacters }

        /// The text as an answer quotes it: a unit over `maxUnitCharacters` is cut where a word
        /// (a block: a line) ends, and says how much more there is; a block keeps its closing
        /// fence, or what follows it would read as code.
        var shown: String {
            guard isCut else { return text }
            if isBlock {
                return MarkdownBlock.shortened(text, toFit: PassageUnits.maxUnitCharacters, keepsLastLine: kind == .code) ?? text
            }
            return PassageUnits.cutProse(text)
        }
    }

    /// Prose over `maxUnitCharacters` cut where a word ends, saying how much more there is.
    static func cutProse(_ text: String) -> String {
        let limit = maxUnitCharacters
        guard text.utf8.count > limit, text.count > limit else { return text }
        var cut = text.index(text.startIndex, offsetBy: limit)
        if let space = text[..<cut].lastIndex(where: \.isWhitespace), text.distance(from: text.startIndex, to: space) > limit / 2 { cut = space }
        let left = text.distance(from: cut, to: text.endIndex)
        // No "…" or full stop in the note: a soul would read it as a sentence of its own,
        // and cut it as one.
        return text[..<cut] + " (cut here: \(left) more characters)"
    }

    var units: [Unit]

    init(_ text: String) {
        var units: [Unit] = []
        var prose: [Substring] = []
        var paragraphStart = true
        func flushProse() {
            guard !prose.isEmpty else { return }
            for (index, sentence) in Sentences.split(prose.joined(separator: " ")).enumerated() {
                units.append(Unit(text: sentence, kind: .sentence, startsParagraph: index == 0 && paragraphStart))
            }
            prose = []
            paragraphStart = false
        }
        var fence: (marker: Substring, lines: [Substring])?
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if var open = fence {
                open.lines.append(line)
                if Self.closes(trimmed, open.marker) {
                    units.append(Unit(text: open.lines.joined(separator: "\n"), kind: .code, startsParagraph: true))
                    fence = nil
                    paragraphStart = true
                } else {
                    fence = open
                }
                continue
            }
            if let marker = Self.fenceMarker(trimmed) {
                flushProse()
                fence = (marker, [line])
            } else if trimmed.isEmpty {
                flushProse()
                paragraphStart = true
            } else if trimmed.first == "|" {
                // A table row: rows run together are one table.
                flushProse()
                if let last = units.last, last.kind == .table, !paragraphStart {
                    units[units.count - 1].text += "\n" + trimmed
                } else {
                    units.append(Unit(text: String(trimmed), kind: .table, startsParagraph: true))
                }
                paragraphStart = false
            } else if Self.isListItem(trimmed) {
                flushProse()
                // Its indentation kept: a step's sub-steps stay under it.
                let indent = String(line.prefix { $0 == " " || $0 == "\t" }).replacingOccurrences(of: "\t", with: "    ")
                units.append(Unit(text: indent + trimmed, kind: .listItem, startsParagraph: paragraphStart))
                paragraphStart = false
            } else if line.first == " " || line.first == "\t", prose.isEmpty, let last = units.last, last.kind == .listItem {
                // An item's continuation line, indented under it.
                units[units.count - 1].text += " " + trimmed
            } else {
                prose.append(trimmed)
            }
        }
        flushProse()
        // A fence never closed runs to the end of the passage, as Markdown reads it.
        if let open = fence { units.append(Unit(text: open.lines.joined(separator: "\n"), kind: .code, startsParagraph: true)) }
        self.units = units
    }

    /// "```" or "~~~" (three or more) opening a fenced block, with any info string after it.
    static func fenceMarker(_ line: Substring) -> Substring? {
        guard let first = line.first, first == "`" || first == "~" else { return nil }
        let marker = line.prefix { $0 == first }
        return marker.count >= 3 ? marker : nil
    }

    /// Whether `line` (its indent dropped) closes the block `marker` opened: the same
    /// character, at least as many, and nothing after.
    static func closes(_ line: Substring, _ marker: Substring) -> Bool {
        line.hasPrefix(marker) && line.drop { $0 == marker.first }.allSatisfy(\.isWhitespace)
    }

    /// "- item", "* item", "1. item", "1) item" (`MarkdownLiteral.listMarkerLength`).
    static func isListItem(_ line: Substring) -> Bool { MarkdownLiteral.listMarkerLength(line) != nil }

    /// The first `count` units; then the rest of a list or of an introduction's list when the
    /// cut falls inside one (at most `listLimit` items more), since a list cut after its second
    /// item reads as the whole list; and a code block or table right after the cut, since the
    /// command after "Install it with apt." is more of the answer than any sentence.
    func prefix(_ count: Int, listLimit: Int = 12) -> ArraySlice<Unit> {
        var end = min(count, units.count)
        guard end > 0 else { return [] }
        var extra = 0
        // A list run: items, and the code blocks between them (a step's command).
        func inList(_ k: Int) -> Bool { units[k].kind == .listItem || (units[k].kind == .code && k > 0 && inList(k - 1)) }
        while end < units.count, extra < listLimit, units[end].kind == .listItem || units[end].kind == .code,
              inList(end - 1) || (units[end].kind == .listItem && units[end - 1].text.hasSuffix(":")) {
            end += 1
            extra += 1
        }
        if end < units.count, units[end].isBlock, !units[end - 1].isBlock { end += 1 }
        return units[..<end]
    }

    /// Units as text: sentences of a paragraph by a space, list items a line each, code blocks,
    /// tables and new paragraphs after a blank line.
    static func join(_ units: some Sequence<Unit>) -> String {
        var text = ""
        var previous: Unit?
        for unit in units {
            if let previous {
                if unit.isBlock || previous.isBlock || (unit.startsParagraph && unit.kind != .listItem) {
                    text += "\n\n"
                } else if unit.kind == .listItem {
                    text += "\n"
                } else if previous.kind == .listItem {
                    text += "\n\n"
                } else {
                    text += " "
                }
            }
            text += unit.shown
            previous = unit
        }
        return text
    }

    /// The most of one sentence, list item or block an answer quotes: a note that is one long
    /// paragraph (a file just under the size limit, an export without full stops) or a log
    /// pasted in a code block was quoted whole, megabytes of it to the terminal.
    static let maxUnitCharacters = 4_000
}
