import Foundation
import ReceptionCore

/// The learned weights of both heads, as stored in a weights file (JSON, one feature a
/// line, keys sorted, numbers rounded: the same training gives the same bytes).
public struct IntentWeights: Sendable, Hashable {
    /// The file format, which names the feature set too: weights fitted to other features
    /// (a file of an earlier version) would classify with a model it never was, so they are
    /// refused, not read.
    public static let format = "reception-intent-weights/2"
    public static let intentLabels = IntentType.knownCases.map(\.rawValue)
    public static let urgencyLabels = UrgencyLevel.knownCases.map(\.rawValue)
    /// Width of a feature row: the intent labels, then the urgency labels.
    public static let width = intentLabels.count + urgencyLabels.count

    /// Per-label bias, intent labels then urgency labels.
    public var bias: [Double]
    /// Feature name → row (intent labels then urgency labels). Names absent here weigh 0.
    public var features: [String: [Double]]
    /// How strongly the previous turn's labels carry over to a short follow-up message
    /// (a fixed prior, not learned: the corpora hold single messages).
    public var previousTurnWeight: Double
    /// What produced these weights (corpus size, options), for people reading the file.
    public var training: [String: String]

    public init(bias: [Double], features: [String: [Double]], previousTurnWeight: Double, training: [String: String]) {
        self.bias = bias
        self.features = features
        self.previousTurnWeight = previousTurnWeight
        self.training = training
    }

    /// Words the weights know (`word:"…"` features).
    public var vocabulary: [String] {
        features.keys.compactMap { name in
            guard name.hasPrefix("word:\""), name.hasSuffix("\"") else { return nil }
            return String(name.dropFirst(6).dropLast())
        }.sorted()
    }

    // MARK: File format

    public func serialized() -> String {
        var out = "{\n"
        out += "  \"format\": \(Self.quote(Self.format)),\n"
        out += "  \"labels\": [\(Self.row(Self.intentLabels.map(Self.quote) + Self.urgencyLabels.map(Self.quote)))],\n"
        out += "  \"training\": {"
        out += training.keys.sorted().map { "\(Self.quote($0)): \(Self.quote(training[$0]!))" }.joined(separator: ", ")
        out += "},\n"
        out += "  \"previous_turn_weight\": \(Self.number(previousTurnWeight)),\n"
        out += "  \"bias\": [\(Self.row(bias.map(Self.number)))],\n"
        out += "  \"features\": {\n"
        let names = features.keys.sorted()
        for (i, name) in names.enumerated() {
            out += "    \(Self.quote(name)): [\(Self.row(features[name]!.map(Self.number)))]"
            out += i + 1 < names.count ? ",\n" : "\n"
        }
        out += "  }\n}\n"
        return out
    }

    private static func row(_ items: [String]) -> String { items.joined(separator: ", ") }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    /// Rounds to 5 decimals and prints without trailing zeros.
    static func number(_ value: Double) -> String {
        let rounded = (value * 100_000).rounded() / 100_000
        if rounded == 0 { return "0" }
        var text = String(format: "%.5f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    static func rounded(_ value: Double) -> Double { Double(number(value))! }

    /// The largest weight a file may hold. Trained weights are a few units at most; one of
    /// 1e308 is finite, but a message's features summed it to infinity and the confidences to
    /// NaN, which crashed the REPL where it turned them into percentages.
    static let largestWeight = 1_000.0

    public init(json: String, source: String = "weights") throws {
        var json = json
        let value: MiniJSON.Value = try json.withUTF8 { bytes in
            var reader = MiniJSON(bytes: bytes, source: source)
            return try reader.document()
        }
        // A problem with a value is located at the line of its key (the reader keeps no positions).
        func fail(_ message: String, at key: String? = nil) -> LexiconError {
            LexiconError(source: source, line: key.map { Self.line(of: $0, in: json) } ?? 0, message: message)
        }
        let notWeights = "not a weights file of `reception train` (a JSON object with \"format\", \"labels\", \"bias\" and \"features\")"
        guard case .object(let object) = value else { throw fail(notWeights) }
        guard case .string(let format)? = object["format"] else { throw fail("no \"format\": \(notWeights)") }
        guard format == Self.format else {
            if format.hasPrefix("reception-intent-weights/") {
                throw fail("written by another version of Reception (format \(format); this version reads \(Self.format)), whose "
                           + "features are not the ones this version extracts; train it again with this version's `reception train`", at: "format")
            }
            throw fail("format \(CorpusText.shown(format)) is not \(Self.format): \(notWeights)", at: "format")
        }
        guard case .array(let labelValues)? = object["labels"],
              labelValues.compactMap({ if case .string(let label) = $0 { label } else { nil } }) == Self.intentLabels + Self.urgencyLabels else {
            throw fail("labels must be \(Self.intentLabels + Self.urgencyLabels)", at: "labels")
        }
        func numbers(_ value: MiniJSON.Value?, _ what: String, key: String) throws -> [Double] {
            guard case .array(let array)? = value, array.count == Self.width else { throw fail("\(what): expected \(Self.width) numbers", at: key) }
            return try array.map { item in
                guard case .number(let number) = item else { throw fail("\(what): expected \(Self.width) numbers", at: key) }
                // 1e309 reads as infinity: out of range as 1e308 is.
                guard number.isFinite, abs(number) <= Self.largestWeight else { throw fail(outOfRange(what, number), at: key) }
                return number
            }
        }
        func outOfRange(_ what: String, _ number: Double) -> String {
            "\(what): \(number) is out of range (weights `reception train` writes are within ±\(Int(Self.largestWeight))); "
                + "the file was edited or damaged, so train it again"
        }
        bias = try numbers(object["bias"], "bias", key: "bias")
        guard case .object(let table)? = object["features"] else { throw fail("missing \"features\"") }
        var features: [String: [Double]] = [:]
        features.reserveCapacity(table.count)
        for (name, row) in table { features[name] = try numbers(row, "feature \(CorpusText.shown(name))", key: name) }
        self.features = features
        if case .number(let weight)? = object["previous_turn_weight"] {
            guard weight.isFinite, abs(weight) <= Self.largestWeight else { throw fail(outOfRange("previous_turn_weight", weight), at: "previous_turn_weight") }
            previousTurnWeight = weight
        } else {
            previousTurnWeight = 0
        }
        var training: [String: String] = [:]
        if case .object(let info)? = object["training"] {
            for (key, value) in info { if case .string(let text) = value { training[key] = text } }
        }
        self.training = training
    }

    /// The line (1-based) where `"key"` first appears in `json`, or 0.
    static func line(of key: String, in json: String) -> Int {
        let quoted = Array(IntentWeights.quote(key).utf8)
        let bytes = Array(json.utf8)
        guard !quoted.isEmpty, bytes.count >= quoted.count else { return 0 }
        var line = 1
        for i in 0...(bytes.count - quoted.count) {
            if bytes[i] == 10 { line += 1; continue }
            if bytes[i] == quoted[0], Array(bytes[i..<(i + quoted.count)]) == quoted { return line }
        }
        return 0
    }

    public init(contentsOf url: URL) throws {
        let text: String
        do { text = try PlainFile.readText(url.path) } catch {
            // Plain words ("is a directory", "not UTF-8 text …"), not Foundation's error 256.
            throw LexiconError(source: url.path, line: 0, message: "cannot read the weights: \((error as? PlainFile.Problem)?.reason ?? PlainFile.reason(of: error))")
        }
        try self.init(json: text, source: url.path)
    }

    /// The weights shipped with Reception (fitted by `reception train` on Tests/Corpora/train.jsonl),
    /// with every feature's row: what `Model/weights.json` holds. The classifier does not read
    /// this: `CompiledIntentModel.shipped()` compiles the shipped model straight from the table.
    public static let shipped: IntentWeights = {
        var weights = shippedHeader
        ShippedFeatureTable.forEach { name, row in
            weights.features[String(decoding: name, as: UTF8.self)] = row.map(ShippedFeatureTable.weight)
        }
        return weights
    }()

    /// The shipped weights without their features (format, training, carry-over weight, bias).
    static var shippedHeader: IntentWeights {
        do { return try IntentWeights(json: ShippedModel.weightsHeader, source: "built-in weights") } catch {
            preconditionFailure("the built-in weights do not parse: \(error)")
        }
    }
}

/// A small JSON reader for weights files (faster than `JSONSerialization` on 40,000
/// numbers, and its errors give the line).
struct MiniJSON {
    enum Value {
        case object([String: Value]), array([Value]), string(String), number(Double), bool(Bool), null
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let source: String
    var i = 0

    init(bytes: UnsafeBufferPointer<UInt8>, source: String) {
        self.bytes = bytes
        self.source = source
    }

    private func fail(_ message: String) -> LexiconError {
        let end = min(i, bytes.count)
        let line = bytes[0..<end].reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
        let lineStart = bytes[0..<end].lastIndex(of: 10).map { $0 + 1 } ?? 0
        // Where the text stops before the value is whole, the file was cut short (a copy or a
        // download that did not finish): said in those words, with its size.
        let text = i >= bytes.count ? "the file ends before its JSON does (cut short? it is \(bytes.count) bytes): \(message)" : message
        return LexiconError(source: source, line: line, message: text, column: end - lineStart + 1)
    }

    private mutating func skip() { while i < bytes.count && (bytes[i] == 32 || bytes[i] == 10 || bytes[i] == 13 || bytes[i] == 9) { i += 1 } }

    mutating func document() throws -> Value {
        let value = try self.value()
        skip()
        guard i == bytes.count else {
            // A corpus given for a weights file: one object a line.
            if bytes[i] == UInt8(ascii: "{") { throw fail("a second JSON object after the first: JSON lines are a corpus (for eval or train), not one JSON document such as a weights file") }
            throw fail("text after the JSON value")
        }
        return value
    }

    private mutating func value() throws -> Value {
        skip()
        guard i < bytes.count else { throw fail("unexpected end of file") }
        switch bytes[i] {
        case 123:
            i += 1
            var object: [String: Value] = [:]
            skip()
            if i < bytes.count && bytes[i] == 125 { i += 1; return .object(object) }
            while true {
                skip()
                guard case .string(let key) = try value() else { throw fail("expected a quoted key") }
                skip()
                guard i < bytes.count && bytes[i] == 58 else { throw fail("expected ':'") }
                i += 1
                object[key] = try value()
                skip()
                guard i < bytes.count else { throw fail("unterminated object") }
                if bytes[i] == 44 { i += 1; continue }
                if bytes[i] == 125 { i += 1; return .object(object) }
                throw fail("expected ',' or '}'")
            }
        case 91:
            i += 1
            var array: [Value] = []
            skip()
            if i < bytes.count && bytes[i] == 93 { i += 1; return .array(array) }
            while true {
                array.append(try value())
                skip()
                guard i < bytes.count else { throw fail("unterminated array") }
                if bytes[i] == 44 { i += 1; continue }
                if bytes[i] == 93 { i += 1; return .array(array) }
                throw fail("expected ',' or ']'")
            }
        case 34:
            let start = i
            let slice = bytes[start..<bytes.count]
            // Reuse the corpus line parser's string rules through a one-field object.
            var end = i + 1
            while end < bytes.count && bytes[end] != 34 { end += bytes[end] == 92 ? 2 : 1 }
            guard end < bytes.count else { i = bytes.count; throw fail("unterminated string") }
            i = end + 1
            if !slice[start...end].contains(92) { return .string(String(decoding: bytes[(start + 1)..<end], as: UTF8.self)) }
            let raw = Array(slice[start...end])
            let wrapped: [UInt8] = Array("{\"k\":".utf8) + raw + [125]
            return try wrapped.withUnsafeBufferPointer { buffer in
                switch FlatJSON.parse(buffer[0..<buffer.count]) {
                case .success(let fields): return .string(fields["k"] ?? "")
                case .failure(let error): throw fail("bad string: \(error.message)")
                }
            }
        case 116, 102, 110:
            for (word, value) in [("true", Value.bool(true)), ("false", .bool(false)), ("null", .null)] {
                let utf8 = Array(word.utf8)
                if i + utf8.count <= bytes.count && Array(bytes[i..<(i + utf8.count)]) == utf8 { i += utf8.count; return value }
            }
            throw fail("unexpected literal")
        default:
            let start = i
            while i < bytes.count, let c = Optional(bytes[i]), (c >= 48 && c <= 57) || c == 45 || c == 43 || c == 46 || c == 101 || c == 69 { i += 1 }
            guard i > start, let number = Double(String(decoding: bytes[start..<i], as: UTF8.self)) else { throw fail("expected a value") }
            return .number(number)
        }
    }
}
