// Trimming in plain Swift. Foundation's `trimmingCharacters(in:)` goes through NSString on
// Linux: reading the intent lexicon with it took a quarter of the start-up's instructions.

extension Unicode.Scalar {
    /// A space or tab, as Foundation's `CharacterSet.whitespaces` (Unicode `Zs` and tab).
    public var isHorizontalWhitespace: Bool {
        self == "\t" || properties.generalCategory == .spaceSeparator
    }
}

extension StringProtocol {
    /// The text without the leading and trailing scalars that `drop` accepts.
    public func trimmingScalars(where drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = Substring(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }), let last = scalars.lastIndex(where: { !drop($0) }) else {
            return ""
        }
        return String(Substring(scalars[first...last]))
    }

    /// Without leading and trailing spaces and tabs.
    public var trimmingHorizontalWhitespace: String { trimmingScalars(where: \.isHorizontalWhitespace) }

    /// Without leading and trailing whitespace, line breaks included.
    public var trimmingWhitespaceAndNewlines: String { trimmingScalars(where: \.properties.isWhitespace) }
}
