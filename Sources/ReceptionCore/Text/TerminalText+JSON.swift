extension TerminalText {
    /// The value with every string in it (keys too) cleaned, for showing JSON that came from
    /// elsewhere. JSON already writes ESC as `\u001b`, harmless on a terminal, but the rest
    /// of the sequence stays as text ("\u001b]8;;https://…") and counts against any length
    /// limit the line has, pushing the words out of sight.
    public static func cleanStrings(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(clean(text))
        case .array(let items): .array(items.map(cleanStrings))
        case .object(let fields):
            .object(Dictionary(fields.map { (clean($0.key), cleanStrings($0.value)) }, uniquingKeysWith: { first, _ in first }))
        case .null, .bool, .number: value
        }
    }
}
