import Foundation

/// Dietary and practical constraints a message names, in one spelling each, so that
/// "gluten free vegan cheesecake" and "vegan cheesecake without gluten" are the same search
/// to the decision cache, and a refinement ("make it gluten-free") can add to the last one.
public enum RecipeConstraints {
    /// Phrases (lowercased, as they may be written) and the constraint each names.
    static let phrases: [(phrase: String, constraint: String)] = [
        ("gluten-free", "gluten-free"), ("gluten free", "gluten-free"), ("no gluten", "gluten-free"), ("without gluten", "gluten-free"),
        ("dairy-free", "dairy-free"), ("dairy free", "dairy-free"), ("no dairy", "dairy-free"), ("without dairy", "dairy-free"),
        ("nut-free", "nut-free"), ("nut free", "nut-free"), ("no nuts", "nut-free"), ("without nuts", "nut-free"),
        ("egg-free", "egg-free"), ("egg free", "egg-free"), ("no eggs", "egg-free"), ("without eggs", "egg-free"),
        ("sugar-free", "sugar-free"), ("sugar free", "sugar-free"), ("no sugar", "sugar-free"),
        ("low-carb", "low-carb"), ("low carb", "low-carb"), ("keto", "low-carb"),
        ("high-protein", "high-protein"), ("high protein", "high-protein"), ("more protein", "high-protein"),
        ("vegan", "vegan"), ("plant-based", "vegan"), ("plant based", "vegan"),
        ("vegetarian", "vegetarian"), ("meatless", "vegetarian"),
        ("quicker", "quick"), ("quick", "quick"), ("faster", "quick"), ("fast", "quick"), ("easy", "quick"),
        ("spicy", "spicy"), ("spicier", "spicy"), ("healthier", "healthy"), ("healthy", "healthy"),
    ]

    /// The constraints `text` names, sorted, each once; and the text with their phrases removed.
    public static func extract(from text: String) -> (constraints: [String], rest: String) {
        var rest = " " + normalised(text) + " "
        var found: Set<String> = []
        for (phrase, constraint) in phrases {
            let padded = " \(phrase) "
            while let range = rest.range(of: padded) {
                found.insert(constraint)
                rest.replaceSubrange(range, with: " ")
            }
        }
        // "20g protein", "30 g of protein": a protein target.
        if let match = rest.range(of: #"\d+ ?g (of )?protein"#, options: .regularExpression) {
            let grams = rest[match].prefix { $0.isNumber }
            found.insert("protein \(grams)g+")
            rest.replaceSubrange(match, with: " ")
        }
        // "under 30 minutes", "in 20 min".
        if let match = rest.range(of: #"(under|in|within|less than) \d+ ?(minutes|minute|mins|min)"#, options: .regularExpression) {
            let minutes = rest[match].filter(\.isNumber)
            found.insert("under \(minutes) min")
            rest.replaceSubrange(match, with: " ")
        }
        return (found.sorted(), rest.split(separator: " ").joined(separator: " "))
    }

    /// Lowercased, diacritics folded, punctuation (but hyphens and digits) turned into spaces.
    public static func normalised(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: Locale(identifier: "en_US_POSIX"))
        let cleaned = String(folded.lowercased().map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : " " })
        return cleaned.split(separator: " ").joined(separator: " ")
    }
}
