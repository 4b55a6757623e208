/// A string enum from the wire that tolerates values this client does not know yet.
///
/// Servers evolve faster than clients: a new outcome or status must not make a whole
/// response undecodable. Conforming enums list their known cases and carry anything
/// else as `unknown(raw)`, which round-trips unchanged.
public protocol OpenEnum: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible
where RawValue == String {
    /// Every case this client understands, in the order the contract lists them.
    static var knownCases: [Self] { get }
    /// The case for a value this client does not understand.
    static func unknown(_ raw: String) -> Self
}

extension OpenEnum {
    /// Never fails: a value this client does not know becomes `unknown(raw)`.
    public init(wire raw: String) {
        self = Self.knownCases.first { $0.rawValue == raw } ?? Self.unknown(raw)
    }

    public init?(rawValue: String) {
        self.init(wire: rawValue)
    }

    /// Parses a user-typed value: case-insensitive, `-` and spaces read as `_`. Nil when unknown.
    public init?(userInput: String) {
        let normalised = userInput.lowercased()
            .replacingOccurrences(of: "-", with: "_")
            .replacingOccurrences(of: " ", with: "_")
        guard let match = Self.knownCases.first(where: { $0.rawValue == normalised }) else { return nil }
        self = match
    }

    public var isKnown: Bool { Self.knownCases.contains(self) }

    public init(from decoder: any Decoder) throws {
        self.init(wire: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
