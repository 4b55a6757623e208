import Foundation

/// Encoders and decoders for the wire. Every contract type spells its snake_case keys in
/// explicit `CodingKeys`, so no key strategy is used: a strategy would also rewrite the
/// keys inside free-form `JSONValue` objects.
public enum Wire {
    public static func decoder() -> JSONDecoder { JSONDecoder() }

    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder().decode(type, from: data)
    }

    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) throws -> Data {
        try encoder(pretty: pretty).encode(value)
    }

    /// One-line JSON text for logs, `--json` output and tests.
    public static func jsonString<T: Encodable>(_ value: T, pretty: Bool = false) -> String {
        (try? encode(value, pretty: pretty)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// An ISO 8601 timestamp with fractional seconds, as the server writes them.
    public static func timestamp(_ date: Date = Date()) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
