import Foundation
import GRDB
import ReceptionCore

/// One exchange a search found, with the parts of its message and answer around the matching
/// words. The words found are between `LogSearch.open` and `LogSearch.close`; everything else
/// is the stored text as it is, for the front end to clean before it prints it.
public struct SearchHit: Sendable, Hashable {
    public var exchange: ExchangeRecord
    public var messageSnippet: String
    public var shownSnippet: String
}

/// Full-text search over what was typed and what was shown (SQLite FTS5).
public enum LogSearch {
    /// Marks the start and the end of a matching word in a snippet (private-use characters:
    /// no terminal does anything with them, and the front end replaces them by its styling).
    public static let open: Character = "\u{E000}"
    public static let close: Character = "\u{E001}"

    /// What a person typed after `-q`, as an FTS5 query that cannot be a syntax error: each
    /// word must occur (in any order), `"several words"` as a phrase, a word ending in `*` as a
    /// prefix. Operators (`AND`, `OR`, `NEAR`, `:`, `^`) are searched for as words, never obeyed.
    /// Nil when nothing searchable is left.
    public static func ftsQuery(_ typed: String) -> String? {
        var terms: [String] = []
        var rest = Substring(typed)
        while let first = rest.firstIndex(where: { !$0.isWhitespace }) {
            rest = rest[first...]
            if rest.first == "\"", let end = rest.dropFirst().firstIndex(of: "\"") {
                let phrase = words(in: rest[rest.index(after: rest.startIndex)..<end])
                if !phrase.isEmpty { terms.append("\"" + phrase.joined(separator: " ") + "\"") }
                rest = rest[rest.index(after: end)...]
                continue
            }
            let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
            let word = rest[..<end]
            let prefix = word.hasSuffix("*")
            let parts = words(in: word)
            if !parts.isEmpty {
                // "e-mail" or "don't" are two tokens to FTS5: searched as the phrase they make.
                terms.append("\"" + parts.joined(separator: " ") + "\"" + (prefix ? "*" : ""))
            }
            rest = rest[end...]
        }
        return terms.isEmpty ? nil : terms.joined(separator: " ")
    }

    /// The tokens FTS5's `unicode61` tokenizer would make: runs of letters, digits and marks.
    static func words(in text: Substring) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar.properties.generalCategory == .nonspacingMark {
                current.append(scalar)
            } else if !current.isEmpty {
                words.append(String(current))
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { words.append(String(current)) }
        return words
    }
}

extension ConversationLog {
    /// The exchanges whose message or shown answer holds every word of `typed`, newest first.
    public func search(_ typed: String, matching filter: LogFilter = LogFilter(), limit: Int = 20) throws -> [SearchHit] {
        guard let query = LogSearch.ftsQuery(typed) else {
            throw ConversationLogError("“\(TerminalText.line(typed, limit: 60))” has no word to search for")
        }
        guard let database = try existingDatabase() else { return [] }
        return try database.read { db in
            let (conditions, values) = filter.exchangeConditions
            var arguments: StatementArguments = [String(LogSearch.open), String(LogSearch.close), String(LogSearch.open),
                                                 String(LogSearch.close), query]
            arguments += values
            arguments += [limit]
            let rows = try Row.fetchAll(db, sql: """
                SELECT e.*, snippet(exchanges_search, 0, ?, ?, '…', 24) AS message_snippet,
                       snippet(exchanges_search, 1, ?, ?, '…', 32) AS shown_snippet
                FROM exchanges_search JOIN exchanges e ON e.seq = exchanges_search.rowid
                WHERE exchanges_search MATCH ? \(conditions.map { "AND " + $0 }.joined(separator: " "))
                ORDER BY exchanges_search.rowid DESC LIMIT ?
                """, arguments: arguments)
            return try rows.map { row in
                SearchHit(exchange: try exchange(row, in: db), messageSnippet: try storedExchange(row).optional("message_snippet") ?? "",
                          shownSnippet: try storedExchange(row).optional("shown_snippet") ?? "")
            }
        }
    }
}
