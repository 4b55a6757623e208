import Foundation
import ReceptionCore

/// A folder of Markdown files split into passages at headings, ranked with BM25.
public struct KnowledgeBase: Sendable {
    public struct Passage: Sendable, Hashable {
        /// Stable id: `file.md#Heading`.
        public var id: String
        /// The file, relative to the knowledge folder.
        public var file: String
        public var heading: String
        public var text: String
        /// The category, from the file name when it is one of Loop Symphony's knowledge files
        /// (capabilities, boundaries, patterns, changelog), else `patterns`.
        public var category: String
        /// False for a file's introduction (before its first `##`) and version headings:
        /// not good topics to suggest as follow-ups.
        public var isSection: Bool
        fileprivate var termCounts: [String: Int]
        fileprivate var length: Int
    }

    public struct Match: Sendable, Hashable {
        public var passage: Passage
        public var score: Double
        /// Share of the query's information (idf-weighted terms) this passage contains, 0...1.
        public var coverage: Double
        public var matchedTerms: Set<String>
    }

    public let root: URL
    /// Section headings (lowercased) that more than one file has ("Install"): a follow-up to
    /// one names its file.
    public private(set) var sharedHeadings: Set<String> = []
    public private(set) var passages: [Passage] = []
    private var documentFrequency: [String: Int] = [:]
    private var averageLength: Double = 1

    /// The files that could not be read, each with why ("notes/old.md: is not UTF-8 text …"):
    /// skipped, so one odd file does not stop the rest from answering.
    public private(set) var skipped: [String] = []

    /// The largest file read: notes, not data dumps (a 58 MB file took 2 GB to index).
    public static let fileSizeLimit = 4 << 20

    /// Loads every `.md` file under `directory` (recursively). A file that cannot be read (a
    /// FIFO, a device, a link to nothing, not UTF-8, over `fileSizeLimit`) is named in
    /// `skipped`; only when no file can be read is that an error.
    public init(directory: URL) throws {
        var isDirectory: ObjCBool = false
        let named = directory.standardizedFileURL.path
        guard FileManager.default.fileExists(atPath: named, isDirectory: &isDirectory) else {
            throw LocalBackendError.knowledgeFolderMissing(named)
        }
        guard isDirectory.boolValue else { throw LocalBackendError.knowledgeNotAFolder(named) }
        // The folder itself may be a link (~/notes → Dropbox/notes): its files are listed from
        // where it points, or none are found.
        root = directory.resolvingSymlinksInPath().standardizedFileURL
        let files = Self.noteFiles(under: root)
        var firstProblem: Error?
        for (file, relative) in files {
            // A folder of many large notes takes seconds: Ctrl-C (a cancelled start) stops between files.
            if Task.isCancelled { throw CancellationError() }
            // A FIFO, a device or a file that is not UTF-8 is named for what it is, with its path
            // (a FIFO would block; Foundation called it "permission denied").
            do {
                let text = try PlainFile.readText(file.path, limit: Self.fileSizeLimit)
                passages += Self.split(Self.readable(text), file: relative)
            } catch {
                firstProblem = firstProblem ?? error
                skipped.append(TerminalText.clean("\(error)", singleLine: true))
            }
        }
        guard !passages.isEmpty else {
            if let firstProblem, skipped.count == files.count { throw firstProblem }
            throw LocalBackendError.knowledgeFolderEmpty(root.path)
        }
        for passage in passages {
            for term in passage.termCounts.keys { documentFrequency[term, default: 0] += 1 }
        }
        averageLength = Double(passages.map(\.length).reduce(0, +)) / Double(passages.count)
        var filesByHeading: [String: Set<String>] = [:]
        for passage in passages where passage.isSection { filesByHeading[passage.heading.lowercased(), default: []].insert(passage.file) }
        sharedHeadings = Set(filesByHeading.filter { $0.value.count > 1 }.keys)
    }

    /// The knowledge about Reception itself that ships with it.
    public static func builtIn() throws -> KnowledgeBase {
        try KnowledgeBase(directory: try ResourceLocator.knowledgeDirectory())
    }

    /// Content terms of `text` as the index sees them.
    public static func terms(_ text: String) -> [String] {
        var stems: [String: String] = [:]
        return terms(text, stems: &stems)
    }

    /// `terms`, with the stems already worked out: a folder's words repeat, and stemming each
    /// occurrence anew was a fifth of reading tens of megabytes of notes.
    static func terms(_ text: String, stems: inout [String: String]) -> [String] {
        var terms: [String] = []
        func add(_ word: String) {
            let stem: String
            if let known = stems[word] { stem = known } else { stem = Stemmer.stem(word); stems[word] = stem }
            // One letter says nothing; one digit does ("phase 3", "step 2").
            if (stem.count > 1 || stem.first?.isNumber == true) && !Stopwords.all.contains(stem) { terms.append(stem) }
        }
        for word in Words.lowercased(text) {
            // Japanese and Chinese write no spaces between words: a run of their characters is
            // read as its overlapping pairs ("東京タワー": 東京, 京タ, タワ, ワー), so a note is
            // found by a word inside it, where the whole run was one word no question matched.
            guard let pieces = Words.pairs(word) else { add(word); continue }
            for piece in pieces {
                if piece.unicodeScalars.first.map(Words.isUnspaced) == true { terms.append(piece) } else { add(piece) }
            }
        }
        return terms
    }

    /// The terms a query is searched by. In "how do souls work?" the closing "work" is part of
    /// the question, not its topic: kept, it matched "Ways of working with Reception" (a file's
    /// one-line introduction, short enough to outrank the section about souls). So it is left
    /// out after "how do/does …" or "how X work(s)" ("explain how trust works"), but not when it
    /// is all there is ("how do I get to work"), means more ("how does work-life balance work")
    /// or ends another question ("how long does it take to get to work").
    static func queryTerms(_ query: String) -> Set<String> { Set(orderedQueryTerms(query)) }

    /// `queryTerms` in the question's order, for the words that stand side by side.
    static func orderedQueryTerms(_ query: String) -> [String] {
        var terms = Self.terms(query)
        let words = query.lowercased().split { !($0.isLetter || $0.isNumber) }
        let auxiliaries: Set<Substring> = ["do", "does", "did", "will", "would", "should", "can", "could"]
        if let how = words.firstIndex(of: "how"), let last = words.last, ["work", "works"].contains(last),
           terms.last == "work", terms.dropLast().contains(where: { $0 != "work" }) {
            let rest = words[(how + 1)...].dropLast()
            let isFrame = rest.first.map(auxiliaries.contains) == true || (!rest.isEmpty && !rest.contains(where: auxiliaries.contains))
            if isFrame { terms.removeLast() }
        }
        return terms
    }

    /// Passages ranked by BM25 (k1 1.2, b 0.75), best first, at most `limit`.
    /// The section a follow-up of the engine's own asks for ("Tell me more about "Install" in
    /// README.md"), first, then what else the words find: searched as words, another file's
    /// section of the same name, or a short one naming them, came first.
    public func search(followingUp followup: (heading: String, file: String?), limit: Int = 5) -> [Match]? {
        let heading = followup.heading.lowercased()
        guard let section = passages.first(where: { $0.heading.lowercased() == heading && (followup.file == nil || $0.file == followup.file) })
        else { return nil }
        let asked = Match(passage: section, score: .greatestFiniteMagnitude, coverage: 1,
                          matchedTerms: Self.queryTerms(followup.heading).intersection(section.termCounts.keys))
        return [asked] + search(followup.heading, limit: limit).filter { $0.passage.id != section.id }.prefix(limit - 1)
    }

    public func search(_ query: String, limit: Int = 5) -> [Match] {
        let ordered = Self.orderedQueryTerms(query)
        let queryTerms = Set(ordered).union(joinedTerms(query))
        guard !queryTerms.isEmpty else { return [] }
        let count = Double(passages.count)
        let idf = Dictionary(uniqueKeysWithValues: queryTerms.map { term in
            let df = Double(documentFrequency[term] ?? 0)
            return (term, log(1 + (count - df + 0.5) / (df + 0.5)))
        })
        let totalInformation = idf.values.reduce(0, +)
        // Two words of the question side by side in a heading ("phase 2", "sse streaming") are
        // the section's name, where each alone may be any section's passing mention ("Phase 0"
        // says what comes in phase 2): the pair counts as one more word, of the pair's weight.
        // Worked out only for a section that has both words: kept for every section, the pairs
        // took 8 % more memory on a large notes folder.
        let queryPairs = zip(ordered, ordered.dropFirst()).filter { $0 != $1 }.map { (first: $0, second: $1, weight: ((idf[$0] ?? 0) + (idf[$1] ?? 0)) / 2) }
        var matches: [Match] = []
        for passage in passages {
            var score = 0.0
            var matched = Set<String>()
            for term in queryTerms {
                guard let tf = passage.termCounts[term].map(Double.init) else { continue }
                matched.insert(term)
                let norm = 1.2 * (0.25 + 0.75 * Double(passage.length) / averageLength)
                score += idf[term]! * tf * 2.2 / (tf + norm)
            }
            guard score > 0 else { continue }
            var headingTerms: [String]?
            for pair in queryPairs where matched.contains(pair.first) && matched.contains(pair.second) {
                if headingTerms == nil { headingTerms = Self.terms(passage.heading) }
                if zip(headingTerms!, headingTerms!.dropFirst()).contains(where: { $0 == pair.first && $1 == pair.second }) { score += pair.weight }
            }
            let coverage = matched.reduce(0) { $0 + idf[$1]! } / max(totalInformation, .ulpOfOne)
            matches.append(Match(passage: passage, score: score, coverage: coverage, matchedTerms: matched))
        }
        return Array(matches.sorted { ($0.score, $1.passage.id) > ($1.score, $0.passage.id) }.prefix(limit))
    }

    /// Two words of a query written as one in the notes: "log out" finds "Logout", "set up"
    /// "Setup" (and "out" and "up", stopwords, found nothing alone).
    func joinedTerms(_ query: String) -> Set<String> {
        let words = Words.lowercased(query)
        var joined: Set<String> = []
        for (first, second) in zip(words, words.dropFirst()) {
            let term = Stemmer.stem(first + second)
            if documentFrequency[term] != nil { joined.insert(term) }
        }
        return joined
    }

    /// Whether `text` holds "<!--", searched as bytes: `contains` on a String goes through
    /// Foundation, and the generic `firstRange(of:)` was slower still, on every file read.
    static func hasComment(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var index = 0
            while index + 3 < bytes.count {
                if bytes[index] == 0x3C, bytes[index + 1] == 0x21, bytes[index + 2] == 0x2D, bytes[index + 3] == 0x2D { return true }
                index += 1
            }
            return false
        }
    }

    /// The text a reader sees: without YAML front matter (`---` lines at the top) and HTML
    /// comments (`<!-- … -->`, drafts and notes to self), outside fenced code.
    static func readable(_ text: String) -> String {
        guard text.hasPrefix("---") || hasComment(text) else { return text }
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        if lines.first?.trimmingCharacters(in: .whitespaces) == "---",
           let close = lines.dropFirst().prefix(200).firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "---" || $0.trimmingCharacters(in: .whitespaces) == "..." }) {
            lines.removeSubrange(0...close)
        }
        var output: [Substring] = []
        var fence: Substring?
        var inComment = false
        for line in lines {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if let open = fence {
                if PassageUnits.closes(trimmed, open) { fence = nil }
                output.append(line)
                continue
            }
            if !inComment, let marker = PassageUnits.fenceMarker(trimmed) {
                fence = marker
                output.append(line)
                continue
            }
            var kept = ""
            var rest = line[...]
            while !rest.isEmpty {
                if inComment {
                    guard let end = rest.range(of: "-->") else { rest = ""; break }
                    rest = rest[end.upperBound...]
                    inComment = false
                } else if let start = rest.range(of: "<!--") {
                    kept += rest[..<start.lowerBound]
                    rest = rest[start.upperBound...]
                    inComment = true
                } else {
                    kept += rest
                    rest = ""
                }
            }
            // A line that was only a comment goes; a blank line the writer left stays.
            if kept.allSatisfy(\.isWhitespace), !line.allSatisfy(\.isWhitespace) { continue }
            output.append(Substring(kept))
        }
        return output.joined(separator: "\n")
    }

    private static func split(_ text: String, file: String) -> [Passage] {
        let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
        let category = ["capabilities", "boundaries", "patterns", "changelog"].contains(stem) ? stem : "patterns"
        var passages: [Passage] = []
        var heading = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        var lines: [String] = []
        var level = 0
        // The headings above a section name what it is about: "Install" under "# Tidepool"
        // answers "how do I install tidepool?", not another tool's Install; "### Alice" under
        // "## Contacts" is found by "contacts" (a heading with no text of its own was found by
        // nothing). By level: the document's title, then each heading above this one.
        var above: [(level: Int, heading: String, isLabel: Bool)] = []
        // So does the file's name, and its folder's: notes under a generic title ("iOS
        // Integration Guide") are about what the file is called (timepoint.md, work/standups.md).
        let fileName = (file as NSString).deletingPathExtension
        func flush() {
            let body = lines.joined(separator: "\n").trimmingWhitespaceAndNewlines
            lines = []
            guard !body.isEmpty else { return }
            let context = ([fileName] + above.filter { $0.level < level }.map(\.heading)).joined(separator: " ")
            // A section's own heading counts twice: it says what the section is about, where a
            // word of its body may be a passing mention ("Cancel a Task" over a line of JSON lost
            // to a longer list that named "cancel" once).
            // Counted in place: joining the lists copied every section's words once more.
            var counts: [String: Int] = [:]
            var length = 0
            for (terms, times) in [(Self.terms(context + " " + body, stems: &stems), 1), (Self.terms(heading, stems: &stems), 2)] {
                for term in terms { counts[term, default: 0] += times }
                length += terms.count * times
            }
            let isSection = level >= 2 && heading.contains { $0.isLetter }
            passages.append(Passage(id: "\(file)#\(heading)", file: file, heading: heading, text: body,
                                    category: category, isSection: isSection, termCounts: counts, length: length))
        }
        // Split in Swift: `components(separatedBy:)` goes through NSString on Linux and was most
        // of the local backend's start-up.
        // A "#" line inside a fenced code block is a comment of the code ("# install"), no heading.
        var fence: Substring?
        var stems: [String: String] = [:]
        /// The last line read may be a label heading ("PAGING RULES:"), told by the next line.
        var pendingLabel = false
        func begin(_ newLevel: Int, _ text: String, isLabel: Bool = false) {
            // A plain note's first line, over its first heading of a lower rank, is the note's
            // title ("Weekly sync" over "Agenda" underlined with `-`): it names the sections
            // below it, as a `#` title would, where it was only the text of the note's opening.
            if above.isEmpty, newLevel >= 2, let first = lines.firstIndex(where: { !$0.allSatisfy(\.isWhitespace) }),
               Self.isTitleLine(lines[first]) {
                level = 1
                heading = Self.headingText(lines.remove(at: first))
                above = [(1, heading, false)]
            }
            flush()
            level = newLevel
            heading = Self.headingText(text)
            above.removeAll { $0.level >= level }
            above.append((level, heading, isLabel))
        }
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if pendingLabel {
                pendingLabel = false
                if Self.setextUnderline(trimmed) == nil, let label = lines.popLast() {
                    begin(min(6, (above.last { !$0.isLabel }?.level ?? 1) + 1), label.trimmingHorizontalWhitespace, isLabel: true)
                }
            }
            let wasInFence = fence != nil
            if let open = fence {
                if PassageUnits.closes(trimmed, open) { fence = nil }
            } else if let marker = PassageUnits.fenceMarker(trimmed) {
                fence = marker
            }
            guard !wasInFence, fence == nil else { lines.append(line); continue }
            // By bytes: every line of every note passes here, and few start with "#".
            let indent = line.utf8.prefix { $0 == 0x20 }.count
            let underline = Self.setextUnderline(trimmed)
            if indent < 4, line.utf8.dropFirst(indent).first == UInt8(ascii: "#"), let atx = Self.atxHeading(line.dropFirst(indent)) {
                begin(atx.level, atx.text)
            } else if let underline, let text = lines.last, Self.canBeSetextText(text),
                      lines.count == 1 || lines[lines.count - 2].allSatisfy(\.isWhitespace)
                        || Self.setextUnderline(Substring(lines[lines.count - 2])) == 1 {
                // One line of text over the underline, after a blank line (or a row of `=` above
                // it, as a banner): a paragraph's last line over a row of `-` is more often a
                // rule than a heading of several lines.
                lines.removeLast()
                if let banner = lines.last, Self.setextUnderline(Substring(banner)) == 1 { lines.removeLast() }
                begin(underline, text)
            } else if underline == 1, trimmed.count >= 3 {
                // A row of `=` that underlines nothing frames a banner: decoration, not text to quote.
                continue
            } else if line.utf8.last == UInt8(ascii: ":"), indent < 4, lines.last?.allSatisfy(\.isWhitespace) ?? true, Self.isLabelHeading(trimmed) {
                // "PAGING RULES:" on a line of its own after a blank line, in a plain-text note:
                // a section under the heading above it (the on-call handbook's paging rules
                // were the whole handbook's text), unless the next line underlines it.
                lines.append(line)
                pendingLabel = true
            } else {
                lines.append(line)
            }
        }
        flush()
        return passages
    }
}

/// A light suffix stripper: enough that "plans" finds "plan", and "classified", "classifier" and
/// "classification" find "classify".
enum Stemmer {
    static func stem(_ word: String) -> String {
        if word.count == 4, word.hasSuffix("s"), !["ss", "us", "is", "as", "os"].contains(where: word.hasSuffix) {
            // Short plurals and third persons too: "when do the bins go out" finds "the garden
            // bin goes out" ("bins" → bin, "goes" → go).
            return String(word.dropLast(word.hasSuffix("oes") ? 2 : 1))
        }
        guard word.count > 4 else { return word }
        // "configuration" meets "configure", "installation" "install": "-ation" is the verb's,
        // when what is left is a word of its own (five letters or more: not "nation", "station").
        for suffix in ["ations", "ation"] where word.hasSuffix(suffix) && word.count - suffix.count >= 5 && !word.hasSuffix("ication" + suffix.dropFirst(5)) {
            return withoutFinalE(String(word.dropLast(suffix.count)) + "e")
        }
        // "databases" is "database" and "cases" "case": "-ses" after a vowel is a plural of "-se"
        // ("classes", "-sses", is "class").
        if word.hasSuffix("ses"), let before = word.dropLast(3).last, "aeiou".contains(before) {
            return withoutFinalE(String(word.dropLast()))
        }
        for (suffix, replacement) in [("ications", "y"), ("ication", "y"), ("iers", "y"), ("ier", "y"),
                                      ("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")] where word.hasSuffix(suffix) {
            if suffix == "s" && (word.hasSuffix("ss") || word.hasSuffix("us")) { return word }
            // "-es" is a suffix of its own only after a hissing sound ("boxes", "wishes",
            // "classes"); elsewhere the e is the word's ("notes" → note, not the stopword "not").
            if suffix == "es", !["s", "x", "z", "ch", "sh"].contains(where: word.dropLast(2).hasSuffix) { continue }
            var base = String(word.dropLast(suffix.count))
            // "running" is "run" and "stopped" "stop": a consonant doubled before -ing or -ed is
            // one. Not in a word that ends doubled of its own ("added", "falling", "missed",
            // "stuffed"), short or with such a consonant.
            if suffix == "ing" || suffix == "ed", base.count >= 4, let last = base.last, base.dropLast().last == last,
               "bdgmnprt".contains(last) {
                base.removeLast()
            }
            return withoutFinalE(base + replacement)
        }
        return withoutFinalE(word)
    }

    /// A silent final e goes, so "change", "changes" and "changed" meet at "chang", and
    /// "message" and "messages" at "messag"; it stays in short words and after a short
    /// consonant-vowel-consonant ending, where it changes the word ("plane" is not "plan",
    /// "note" is not "not").
    private static func withoutFinalE(_ word: String) -> String {
        guard word.count >= 5, word.hasSuffix("e") else { return word }
        // The three letters before the e (every file's words pass here while the index loads).
        let ending = Array(word.dropLast().suffix(3))
        func isVowel(_ c: Character) -> Bool { "aeiou".contains(c) }
        let shortSyllable = !isVowel(ending[0]) && isVowel(ending[1]) && !isVowel(ending[2]) && !"wxy".contains(ending[2])
        return shortSyllable ? word : String(word.dropLast())
    }
}

enum Stopwords {
    static let all: Set<String> = [
        "the", "an", "and", "or", "but", "if", "then", "of", "to", "in", "on", "at", "by", "for", "with", "about", "as",
        "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "have", "has", "had", "it", "its",
        "this", "that", "these", "those", "there", "here", "what", "which", "who", "whom", "how", "why", "when", "where",
        "can", "could", "should", "would", "will", "shall", "may", "might", "must", "me", "my", "mine", "you", "your",
        "we", "our", "they", "them", "their", "he", "she", "his", "her", "from", "into", "so", "not", "no", "yes", "just",
        "some", "any", "all", "more", "most", "very", "too", "also", "than", "up", "out", "get", "tell", "know", "want",
        "need", "like", "please", "thank", "thanks", "hi", "hello", "hey", "ok", "okay", "really", "much", "many", "one",
    ]
}
