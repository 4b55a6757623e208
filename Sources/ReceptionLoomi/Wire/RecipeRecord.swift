import Foundation
import ReceptionCore

/// One recipe as the data service sent it, read leniently: the guide shows `ingredients`,
/// `instructions` and `nutrition` as lists and `images`, `metadata` as objects without
/// saying what is inside, so strings, objects and lists of either are all accepted. What a
/// record lacks is named in `missing`, never invented.
public struct RecipeRecord: Sendable, Hashable {
    /// The fields a card shows and asks for (`fields_requested`).
    public static let detailFields = ["ingredients", "instructions", "nutrition", "images"]
    /// The longest a list kept from one record may be (a server's list of any size stays bounded).
    static let maxItems = 200
    /// The longest one item or title may be, in characters.
    static let maxItemCharacters = 2_000

    public var id: String
    public var title: String?
    public var ingredients: [String]
    public var instructions: [String]
    public var nutrition: [String]
    public var images: [String]
    /// Time, servings, source and the like, as "name: value" lines.
    public var details: [String]
    /// The fields among the title and `detailFields` that are absent, null or empty.
    public var missing: [String]
    /// The record exactly as it arrived (kept in the cache, shown by `--json`).
    public var raw: JSONValue

    /// Reads one element of `recipes`; nil when it has no id (it cannot be matched to a card).
    public init?(_ value: JSONValue) {
        guard case .object = value, let id = Self.scalarText(value["id"]), !Self.clip(id, to: 200).isEmpty else { return nil }
        self.id = Self.clip(id, to: 200)
        raw = value
        title = Self.scalarText(value["title"] ?? value["name"]).map { Self.clip($0) }.flatMap { $0.isEmpty ? nil : $0 }
        ingredients = Self.lines(value["ingredients"], keys: ["amount", "quantity", "unit", "name", "item", "ingredient", "text"])
        instructions = Self.lines(value["instructions"] ?? value["steps"], keys: ["step", "text", "instruction", "description"])
        nutrition = Self.lines(value["nutrition"], keys: ["name", "label", "amount", "value", "quantity", "unit"])
        images = Self.lines(value["images"] ?? value["image"], keys: ["url", "src", "hero", "thumbnail"])
        details = Self.details(value["metadata"])
        var missing: [String] = []
        if title == nil { missing.append("title") }
        if ingredients.isEmpty { missing.append("ingredients") }
        if instructions.isEmpty { missing.append("instructions") }
        if nutrition.isEmpty { missing.append("nutrition") }
        if images.isEmpty { missing.append("images") }
        self.missing = missing
    }

    /// A string, or a number or boolean written out; nil for anything else.
    static func scalarText(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: return text.trimmingCharacters(in: .whitespacesAndNewlines)
        case .number(let number)?: return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag)?: return flag ? "yes" : "no"
        default: return nil
        }
    }

    /// One line per item: strings as they are, objects as their known keys in order (then
    /// any other scalar values), an object of name → value as "name value" pairs.
    static func lines(_ value: JSONValue?, keys: [String]) -> [String] {
        let items: [JSONValue]
        switch value {
        case .array(let list)?: items = list
        case .object(let object)? where keys.contains(where: { object[$0] != nil }): items = [.object(object)]
        case .object(let object)?:
            // {"calories": 420, "protein": "21g"}: one "name value" line per key.
            items = object.keys.sorted().compactMap { key in scalarText(object[key]).map { .string("\(key) \($0)") } }
        case .string(let text)?:
            items = text.split(whereSeparator: \.isNewline).map { .string(String($0)) }
        default: items = []
        }
        var lines: [String] = []
        for item in items.prefix(maxItems) {
            var line: String?
            switch item {
            case .object(let object):
                var parts = keys.compactMap { scalarText(object[$0]) }.filter { !$0.isEmpty }
                if parts.isEmpty {
                    parts = object.keys.sorted().compactMap { scalarText(object[$0]) }.filter { !$0.isEmpty }
                }
                line = parts.joined(separator: " ")
            default:
                line = scalarText(item)
            }
            if let line = line.map({ clip($0) }), !line.isEmpty { lines.append(line) }
        }
        return lines
    }

    /// `metadata`'s scalar values as "name: value", known names first.
    static func details(_ value: JSONValue?) -> [String] {
        guard case .object(let object)? = value else { return [] }
        let known = ["total_time", "prep_time", "cook_time", "servings", "difficulty", "cuisine", "source", "source_url", "url"]
        let order = known.filter { object[$0] != nil } + object.keys.sorted().filter { !known.contains($0) }
        return order.prefix(20).compactMap { key in
            guard let text = scalarText(object[key]), !text.isEmpty else { return nil }
            return "\(key.replacingOccurrences(of: "_", with: " ")): \(clip(text, to: 300))"
        }
    }

    /// One line, at most `limit` characters: a server field of any size stays readable.
    /// Control characters (an escape sequence's ESC, a carriage return) are dropped here as well
    /// as by the front end, so a card saved or cached holds only printable text.
    static func clip(_ text: String, to limit: Int = maxItemCharacters) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        let printable = String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.properties.generalCategory != .control }))
            .trimmingCharacters(in: .whitespaces)
        return printable.count > limit ? String(printable.prefix(limit)) + "…" : printable
    }
}
