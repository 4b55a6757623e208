import Foundation
import ReceptionCore

/// The learned weights of both heads, as stored in a weights file (JSON, one feature a
/// line, keys sorted, numbers rounded: the same training gives the same bytes).
public struct IntentWeights: Sendable, Hashable {
    public static let format = "reception-intent-weights/1"
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

    public init(json: String, source: String = "weights") throws {
        guard let data = json.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw LexiconError(source: source, line: 0, message: "not a JSON object")
        }
        func fail(_ message: String) -> LexiconError { LexiconError(source: source, line: 0, message: message) }
        guard object["format"] as? String == Self.format else { throw fail("format is not \"\(Self.format)\"") }
        guard let labels = object["labels"] as? [String], labels == Self.intentLabels + Self.urgencyLabels else {
            throw fail("labels must be \(Self.intentLabels + Self.urgencyLabels)")
        }
        func numbers(_ value: Any?, _ what: String) throws -> [Double] {
            guard let array = value as? [Any], array.count == Self.width else { throw fail("\(what): expected \(Self.width) numbers") }
            return try array.map { item in
                guard let number = item as? NSNumber else { throw fail("\(what): expected numbers") }
                return number.doubleValue
            }
        }
        bias = try numbers(object["bias"], "bias")
        guard let table = object["features"] as? [String: Any] else { throw fail("missing \"features\"") }
        var features: [String: [Double]] = [:]
        for (name, row) in table { features[name] = try numbers(row, "feature \(name)") }
        self.features = features
        previousTurnWeight = (object["previous_turn_weight"] as? NSNumber)?.doubleValue ?? 0
        training = (object["training"] as? [String: String]) ?? [:]
        // Line numbers for a feature with a bad row, when the JSON parses but a row does not.
    }

    public init(contentsOf url: URL) throws {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw LexiconError(source: url.path, line: 0, message: "cannot read the weights: \(error.localizedDescription)")
        }
        try self.init(json: text, source: url.path)
    }

    /// The weights shipped with Reception (fitted by `reception train` on Tests/Corpora/train.jsonl).
    public static let shipped: IntentWeights = {
        do { return try IntentWeights(json: ShippedModel.weights, source: "built-in weights") } catch {
            preconditionFailure("the built-in weights do not parse: \(error)")
        }
    }()
}
