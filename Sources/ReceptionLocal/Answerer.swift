import Foundation
import ReceptionCore

/// Turns ranked passages into an outcome, a summary and findings.
///
/// - complete: a strong match answers the question;
/// - saturated: the strong matches were all given earlier in this session;
/// - saturated, unanswered: nothing relevant in any file (said plainly, with a pointer to a
///   real backend). Not bounded: that says a limit cut the search short and invites "continue",
///   and the default soul then read "as far as I could get … double-check it … keep going?"
///   over an answer that had searched everything;
/// - complete, unsure: only weak matches. The closest passage is the answer, named as the
///   closest and given a low confidence (the soul says to double-check it). Saying "I found
///   nothing" and then showing the passage that answers the question under "What I found"
///   contradicted itself;
/// - inconclusive: strong matches from different files disagree (one negates what the other states).
enum Answerer {
    struct Composed {
        /// Nil for small talk: a reply to "hello" is not a task's outcome, and a soul's
        /// "Here is the answer." lead or a confidence hedge in front of it reads wrong.
        var outcome: Outcome?
        var summary: String
        var findings: [Finding]
        var confidence: Double?
        var discrepancy: String?
        var followups: [String]
        var usedPassages: [String]
        /// False when nothing in the knowledge answers the question.
        var answered = true
    }

    /// The follow-up that asks for a section: its heading quoted as written. Lowercased into
    /// the sentence, a heading read as broken English ("Tell me more about decisions stay
    /// yours"); quoted, it reads as the title it is, and souls copy quoted text unchanged.
    static func moreAbout(_ heading: String) -> String {
        "Tell me more about \"\(heading)\""
    }

    /// The follow-up for a section; with its file when another file has a section of that
    /// name ("Tell me more about "Install" in README.md"), so it is that one that comes back.
    static func moreAbout(_ passage: KnowledgeBase.Passage, shared: Set<String>) -> String {
        moreAbout(passage.heading) + (shared.contains(passage.heading.lowercased()) ? " in \(passage.file)" : "")
    }

    /// The heading (and file) of a follow-up `moreAbout` wrote, sent back as it was offered.
    static func followedUp(_ query: String) -> (heading: String, file: String?)? {
        let prefix = "Tell me more about \""
        guard query.hasPrefix(prefix) else { return nil }
        let rest = query.dropFirst(prefix.count)
        guard let close = rest.lastIndex(of: "\"") else { return nil }
        let heading = String(rest[..<close])
        let after = rest[rest.index(after: close)...]
        if after.isEmpty { return heading.isEmpty ? nil : (heading, nil) }
        guard after.hasPrefix(" in "), !heading.isEmpty else { return nil }
        return (heading, String(after.dropFirst(4)))
    }

    /// The passage an answer quotes, and whether it answers (strong) or is only the closest:
    /// the first match that holds half the query's information, else the first that holds a
    /// quarter. One choice for the answer and for the progress line that names it.
    static func quoted(in matches: [KnowledgeBase.Match]) -> (match: KnowledgeBase.Match, strong: Bool)? {
        if let strong = matches.first(where: { $0.coverage >= strongCoverage }) { return (strong, true) }
        return matches.first { $0.coverage >= relevantCoverage }.map { ($0, false) }
    }

    /// A passage answers when it holds at least half of the query's information.
    static let strongCoverage = 0.5
    static let relevantCoverage = 0.25

    /// "hello", "hi there", "good morning", "thanks!", "bye": a greeting, thanks or goodbye
    /// alone, nothing to look up. A search for it would find nothing and say so, in answer to
    /// what is often a newcomer's first message.
    static func greeting(_ query: String) -> Greeting? {
        let words = query.lowercased().split { !$0.isLetter }.map(String.init)
        guard !words.isEmpty, words.count <= 4, words.allSatisfy(smallTalk.contains) else { return nil }
        if words.contains(where: farewells.contains) { return .farewell }
        if words.contains(where: thanks.contains) { return .thanks }
        return words.contains(where: hellos.contains) ? .hello : nil
    }

    enum Greeting { case hello, thanks, farewell }

    private static let hellos: Set<String> = ["hi", "hello", "hey", "hiya", "howdy", "yo", "hola", "morning", "evening", "afternoon", "greetings", "sup"]
    private static let thanks: Set<String> = ["thanks", "thank", "thx", "cheers", "ty"]
    private static let farewells: Set<String> = ["bye", "goodbye", "night", "later", "cya"]
    /// Every word a greeting, thanks or goodbye alone may hold: those three, and the words
    /// around them ("good", "there", "a lot", "see you", "for now").
    private static let smallTalk = hellos.union(thanks).union(farewells).union([
        "good", "there", "all", "everyone", "again", "you", "a", "lot", "so", "much", "very", "oh", "ok", "okay", "see", "for", "now",
    ])

    /// The answer to a greeting: what this backend knows and what to ask it, no search result.
    static func greet(_ greeting: Greeting, builtInKnowledge: Bool, suggestions: [String]) -> Composed {
        let knows = builtInKnowledge
            ? "I am the local backend: I answer from Reception's built-in notes about itself, with no server and no model."
            : "I am the local backend: I answer from the Markdown files of your knowledge folder, with no server and no model."
        let summary = switch greeting {
        case .thanks: "You're welcome."
        // The REPL goes on after a goodbye: say how to leave it.
        case .farewell: "Goodbye. /quit (or Ctrl-D) leaves Reception."
        case .hello: "Hello. \(knows) For questions about anything else, connect a real backend with /backend."
        }
        return Composed(outcome: nil, summary: summary, findings: [], confidence: nil, discrepancy: nil,
                        followups: suggestions, usedPassages: [])
    }

    /// The answer to "continue" after an answer that found nothing: the search covered every
    /// file already, so there is no more to give (saturated, not another bounded answer that
    /// invites "continue" again).
    /// `suggestions`: questions the knowledge in use can answer, offered when this one found
    /// nothing (about Reception for the built-in knowledge, topics of the person's own folder
    /// for theirs: never a question about Reception to someone asking their notes).
    static func nothingMore(suggestions: [String]) -> Composed {
        Composed(outcome: .saturated,
                 summary: "There is nothing more on that in my knowledge: I searched all of it. The local backend only knows " +
                     "its Markdown knowledge files; connect a real backend with /backend for questions like that one.",
                 findings: [], confidence: 0.9, discrepancy: nil, followups: suggestions, usedPassages: [])
    }

    static func compose(query: String, matches: [KnowledgeBase.Match], alreadySaid: Set<String>,
                        suggestions: [String] = [], sections: (String) -> [String] = { _ in [] },
                        sharedHeadings: Set<String> = [], unreadFiles: Int = 0) -> Composed {
        let strong = matches.filter { $0.coverage >= strongCoverage }
        let others = matches.filter { $0.coverage < strongCoverage && $0.coverage >= relevantCoverage }
        let followups = (strong.dropFirst(2) + others.dropFirst(strong.isEmpty ? 1 : 0)).filter(\.passage.isSection)
            .map { moreAbout($0.passage, shared: sharedHeadings) }
            .reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            .prefix(2).map { $0 }

        let quoted = quoted(in: matches)
        guard let answering = quoted, answering.strong else {
            if let closest = quoted?.match {
                // Not sure, but not nothing: the closest passage, said to be the closest, with a
                // confidence under the souls' "low" threshold so the reader is told to check it.
                let units = PassageUnits(closest.passage.text)
                let lead = PassageUnits.join(units.prefix(3))
                // A code block, table or list opens on a line of its own, or it is none.
                let opensWithABlock = units.units.first.map { $0.kind != .sentence } ?? false
                let summary = "The closest I have is \(closest.passage.file) (\(closest.passage.heading)):" +
                    (opensWithABlock ? "\n\n" : " ") + lead
                return Composed(outcome: .complete, summary: summary, findings: findings(others.prefix(2), summarised: 3),
                                confidence: 0.3 + 0.4 * closest.coverage, discrepancy: nil, followups: followups,
                                usedPassages: [closest.passage.id])
            }
            var summary = "I found nothing in my knowledge that answers this. The local backend only knows its Markdown " +
                "knowledge files, not the wider world; connect a real backend with /backend for questions like this one."
            // Sure of it when every file was searched; not when some could not be read.
            if unreadFiles > 0 {
                summary += " \(unreadFiles == 1 ? "One file" : "\(unreadFiles) files") of the knowledge folder could not be read (named when it started), and may hold it."
            }
            // Not "saturated" then: a soul would say it looked through everything.
            return Composed(outcome: unreadFiles > 0 ? .complete : .saturated, summary: summary, findings: [],
                            confidence: unreadFiles > 0 ? 0.5 : 0.9, discrepancy: nil, followups: suggestions, usedPassages: [], answered: false)
        }
        let best = answering.match
        if let (a, b) = disagreement(in: strong) {
            let discrepancy = "\(a.passage.file) (\(a.passage.heading)) says: \"\(bestSentence(a))\" — " +
                "but \(b.passage.file) (\(b.passage.heading)) says: \"\(bestSentence(b))\""
            return Composed(outcome: .inconclusive, summary: "My sources disagree on this.", findings: [finding(a), finding(b)],
                            confidence: 0.5, discrepancy: discrepancy,
                            followups: ["Which of these sources is more recent?"] + followups, usedPassages: [a.passage.id, b.passage.id])
        }
        let used = Array(strong.prefix(2))
        let confidence = min(0.95, 0.5 + 0.45 * best.coverage)
        // A file's introduction answers "what is in here" questions: list what the file covers
        // (given again too: without it the introduction alone says nothing).
        let covered = best.passage.isSection ? [] : sections(best.passage.file)
        func withCovered(_ summary: String) -> String {
            covered.isEmpty ? summary : summary + "\n\n" + covered.map { "- \($0)" }.joined(separator: "\n")
        }
        if used.allSatisfy({ alreadySaid.contains($0.passage.id) }) {
            return Composed(outcome: .saturated, summary: withCovered(leadSentences(best.passage.text, count: 2)),
                            findings: findings(used, summarised: 2),
                            confidence: confidence, discrepancy: nil, followups: followups, usedPassages: used.map(\.passage.id))
        }
        let summary = withCovered(leadSentences(best.passage.text, count: 3))
        return Composed(outcome: .complete, summary: summary, findings: findings(used, summarised: 3),
                        confidence: confidence, discrepancy: nil, followups: followups, usedPassages: used.map(\.passage.id))
    }

    /// The evidence under an answer whose summary is the first `summarised` sentences of the
    /// first match. That passage's finding holds what the summary left out; when it left
    /// nothing, the finding says so ("What I found" repeating the answer word for word read as
    /// padding). Either way it carries the passage as its source.
    static func findings(_ used: some Collection<KnowledgeBase.Match>, summarised: Int) -> [Finding] {
        guard let first = used.first else { return [] }
        let passage = PassageUnits(first.passage.text)
        let quoted = passage.prefix(summarised)
        let rest = passage.units.dropFirst(quoted.count)
        // The rest, and when a long section is cut, how much more it holds: a finding cut short
        // without a word read as the whole passage. An answer that quotes a unit in part (a
        // paragraph of megabytes) is not the whole section either.
        let shown = rest.prefix(maxFindingSentences)
        let whole = quoted.contains(where: \.isCut) ? quotedInPart : wholeSectionAbove
        let content = rest.isEmpty ? whole : PassageUnits.join(shown) + moreInTheSection(Array(rest.dropFirst(shown.count)), after: shown)
        return [Finding(content: content, source: first.passage.id, confidence: finding(first).confidence)] + used.dropFirst().map(finding)
    }

    /// The most of a passage's rest one finding quotes.
    static let maxFindingSentences = 8

    /// The finding of a passage the answer above quoted whole.
    static let wholeSectionAbove = Finding.answerIsWhole

    /// The finding of a passage the answer above quoted all of, one part of it too long to show whole.
    static let quotedInPart = "The answer above is all of this section, one part of it cut short where it says so; the file has the rest."


    /// Another passage's finding: its first sentences (a list or code block they lead into,
    /// whole), and how much more the section holds: cut without a word, it read as the whole.
    static func finding(_ match: KnowledgeBase.Match) -> Finding {
        let passage = PassageUnits(match.passage.text)
        let shown = passage.prefix(2)
        return Finding(content: PassageUnits.join(shown) + moreInTheSection(Array(passage.units.dropFirst(shown.count)), after: shown),
                       source: match.passage.id, confidence: (min(1, match.coverage) * 100).rounded() / 100)
    }

    /// " (3 more sentences in the section.)", or with other parts "(6 more in the section: 2
    /// sentences, 3 list items and 1 code block.)"; below a shown block, on a line of its own
    /// (after a closing fence it would leave the block open).
    static func moreInTheSection(_ left: [PassageUnits.Unit], after shown: some BidirectionalCollection<PassageUnits.Unit>) -> String {
        guard !left.isEmpty else { return "" }
        let separator = shown.last?.isBlock == true ? "\n\n" : " "
        let sentences = left.filter { $0.kind == .sentence }.count
        if sentences == left.count { return separator + "(\(sentences) more sentence\(sentences == 1 ? "" : "s") in the section.)" }
        func count(_ kind: PassageUnits.Unit.Kind, _ name: String) -> String? {
            let n = left.filter { $0.kind == kind }.count
            return n == 0 ? nil : "\(n) \(name)\(n == 1 ? "" : "s")"
        }
        let parts = [count(.sentence, "sentence"), count(.listItem, "list item"), count(.code, "code block"), count(.table, "table")].compactMap { $0 }
        let phrase = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
        return separator + "(\(left.count) more in the section: \(phrase).)"
    }

    /// Two strong matches from different files whose most relevant sentences make the same
    /// claim with opposite polarity: at least two shared terms, most of the shorter
    /// sentence's terms shared (negation words aside), exactly one of them negated, and the
    /// negation about something the other sentence says ("does not open" against "opens";
    /// "needs no server" does not contradict "only knows its files").
    static func disagreement(in strong: [KnowledgeBase.Match]) -> (KnowledgeBase.Match, KnowledgeBase.Match)? {
        for (index, a) in strong.enumerated() {
            for b in strong.dropFirst(index + 1) where b.passage.file != a.passage.file {
                let sentenceA = bestSentence(a), sentenceB = bestSentence(b)
                guard isNegated(sentenceA) != isNegated(sentenceB) else { continue }
                let termsA = Set(KnowledgeBase.terms(sentenceA)).subtracting(negations)
                let termsB = Set(KnowledgeBase.terms(sentenceB)).subtracting(negations)
                let shared = termsA.intersection(termsB)
                guard shared.count >= 2, !shared.intersection(a.matchedTerms).isEmpty else { continue }
                let (negated, other) = isNegated(sentenceA) ? (sentenceA, termsB) : (sentenceB, termsA)
                guard !negatedTerms(negated).isDisjoint(with: other) else { continue }
                if Double(shared.count) / Double(min(termsA.count, termsB.count)) >= 0.5 { return (a, b) }
            }
        }
        return nil
    }

    static let negations: Set<String> = ["not", "no", "never", "cannot", "can't", "doesn't", "don't", "isn't", "won't", "without", "nothing", "none"]

    static func bestSentence(_ match: KnowledgeBase.Match) -> String {
        let best = sentences(match.passage.text).max { Set(KnowledgeBase.terms($0)).intersection(match.matchedTerms).count <
            Set(KnowledgeBase.terms($1)).intersection(match.matchedTerms).count } ?? match.passage.text
        // Quoted as any sentence is: at most `maxUnitCharacters` of it.
        return PassageUnits.cutProse(best)
    }

    static func isNegated(_ sentence: String) -> Bool {
        let words = Set(sentence.lowercased().split { !($0.isLetter || $0 == "'") }.map(String.init))
        return !words.isDisjoint(with: negations)
    }

    /// The terms a negation word governs: the few words right after it ("not open on
    /// Sundays" → open, sunday).
    static func negatedTerms(_ sentence: String) -> Set<String> {
        let words = sentence.lowercased().split { !($0.isLetter || $0 == "'") }.map(String.init)
        var governed: [String] = []
        for (index, word) in words.enumerated() where negations.contains(word) {
            governed += words[(index + 1)..<min(words.count, index + 4)]
        }
        return Set(KnowledgeBase.terms(governed.joined(separator: " ")))
    }

    static func sentences(_ text: String) -> [String] {
        Sentences.split(text)
    }

    /// The passage's first `count` sentences, list items or code blocks (a list the cut falls
    /// in, whole), as the passage lays them out.
    static func leadSentences(_ text: String, count: Int) -> String {
        let passage = PassageUnits(text)
        return PassageUnits.join(passage.prefix(count))
    }
}
