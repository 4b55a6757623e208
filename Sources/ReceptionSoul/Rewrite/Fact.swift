/// One fact of a text that a rewrite must keep: a number (with its unit), a date, a price,
/// a link or address, a code span, quoted text or a proper name.
///
/// Facts are compared by `key`, which is the text as written except where two spellings
/// say exactly the same thing: a written date and its ISO form ("1 December 2026",
/// "2026-12-01"), a unit's short and long names ("45 percent", "45%"), a number word and
/// its digits ("three", "3"), a quote in straight or curly quotation marks.
public struct Fact: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case number, date, price, url, email, code, quote, name
    }

    public var kind: Kind
    /// As written in the text.
    public var text: String
    /// What facts are compared by.
    public var key: String

    public init(kind: Kind, text: String, key: String) {
        self.kind = kind
        self.text = text
        self.key = key
    }

    /// How `/soul why` names it: "the number 9:15", "the link https://…".
    public var description: String {
        let shown = text.count > 80 ? String(text.prefix(77)) + "…" : text
        return switch kind {
        case .number: "the number \(shown)"
        case .date: "the date \(shown)"
        case .price: "the price \(shown)"
        case .url: "the link \(shown)"
        case .email: "the address \(shown)"
        case .code: "the code `\(shown)`"
        case .quote: "the quote “\(shown)”"
        case .name: "the name \(shown)"
        }
    }
}
