/// Recipe cards as text: short ones as they arrive in an answer, the whole recipe for
/// `/recipe ID`. Plain lines that read well on a terminal (streamed text is not rendered as
/// Markdown there) and in a saved transcript. Server text is clipped to one line per item
/// here; escape sequences are the front end's to strip (the REPL cleans everything it prints).
public enum RecipeCard {
    /// How many ingredients and steps a short card names before "…".
    static let previewItems = 4

    /// The card shown while an answer streams: "2. Title (id)", then a few lines.
    public static func short(_ recipe: RecipeRecord, position: Int, fromCache: Bool = false) -> String {
        var lines = ["\(position). \(recipe.title ?? "Untitled recipe") (\(recipe.id))\(fromCache ? " · from the cache" : "")"]
        if !recipe.details.isEmpty { lines.append("   " + recipe.details.prefix(3).joined(separator: " · ")) }
        if !recipe.ingredients.isEmpty { lines.append("   Ingredients (\(recipe.ingredients.count)): " + preview(recipe.ingredients)) }
        if !recipe.instructions.isEmpty { lines.append("   Steps: \(recipe.instructions.count)") }
        if !recipe.nutrition.isEmpty { lines.append("   Nutrition: " + recipe.nutrition.prefix(4).joined(separator: " · ")) }
        if let note = missingNote(recipe) { lines.append("   " + note) }
        return lines.joined(separator: "\n")
    }

    /// The placeholder for an id the data service does not have (seed 004: "Show placeholder
    /// cards with 'Recipe unavailable'").
    public static func unavailable(id: String, position: Int) -> String {
        "\(position). Recipe unavailable (\(id)): the recipe service has no data for it."
    }

    /// The card for an id whose data could not be loaded (the call failed), with the way out.
    public static func notLoaded(id: String, position: Int) -> String {
        "\(position). Not loaded yet (\(id)): /recipes retry loads it."
    }

    /// The whole recipe, as Markdown, for `/recipe ID`.
    public static func full(_ recipe: RecipeRecord, cachedAgo: String? = nil, session: String? = nil) -> String {
        var parts = ["**\(recipe.title ?? "Untitled recipe")** (`\(recipe.id)`)"]
        var origin: [String] = []
        if let cachedAgo { origin.append("cached \(cachedAgo)") }
        if let session { origin.append("session \(session)") }
        if !origin.isEmpty { parts[0] += " · " + origin.joined(separator: ", ") }
        if !recipe.details.isEmpty { parts.append(recipe.details.map { "- \($0)" }.joined(separator: "\n")) }
        if !recipe.ingredients.isEmpty {
            parts.append("Ingredients:\n" + recipe.ingredients.map { "- \($0)" }.joined(separator: "\n"))
        }
        if !recipe.instructions.isEmpty {
            parts.append("Steps:\n" + recipe.instructions.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n"))
        }
        if !recipe.nutrition.isEmpty { parts.append("Nutrition: " + recipe.nutrition.joined(separator: " · ")) }
        if !recipe.images.isEmpty { parts.append("Images: " + recipe.images.prefix(3).joined(separator: " ")) }
        if let note = missingNote(recipe) { parts.append("_\(note)_") }
        return parts.joined(separator: "\n\n")
    }

    /// "Not in the data: instructions, nutrition." — what a partial record lacks, named.
    public static func missingNote(_ recipe: RecipeRecord) -> String? {
        recipe.missing.isEmpty ? nil : "Not in the data: \(recipe.missing.joined(separator: ", "))."
    }

    static func preview(_ items: [String]) -> String {
        let shown = items.prefix(previewItems).map { $0.count > 60 ? String($0.prefix(60)) + "…" : $0 }
        return shown.joined(separator: "; ") + (items.count > previewItems ? "; …" : "")
    }
}
