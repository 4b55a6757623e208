import ReceptionCore

/// The reference Loomi server's recipes: a fixed catalogue, so every answer is the same
/// for the same questions. Two records are deliberately partial (one without steps, one
/// without nutrition and images) so clients show what is missing.
struct LoomiReferenceRecipe: Sendable {
    var title: String
    var tags: Set<String>
    var minutes: Int
    var servings: Int
    var ingredients: [(String, String)]
    var steps: [String]
    var calories: Int?
    var protein: Int?
    var image: Bool

    /// The record as `POST /recipes/by-ids` sends it.
    func json(id: String, unusual: Bool) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id),
            "title": .string(title),
            "ingredients": .array(ingredients.map { .object(["amount": .string($0.0), "name": .string($0.1)]) }),
            "metadata": .object(["total_time": .string("\(minutes) min"), "servings": .number(Double(servings)),
                                 "tags": .array(tags.sorted().map(JSONValue.string))]),
        ]
        if !steps.isEmpty { object["instructions"] = .array(steps.map(JSONValue.string)) }
        if let calories, let protein {
            object["nutrition"] = .array([
                .object(["name": .string("calories"), "amount": .number(Double(calories)), "unit": .string("kcal")]),
                .object(["name": .string("protein"), "amount": .number(Double(protein)), "unit": .string("g")]),
            ])
        }
        if image {
            let slug = title.lowercased().split(whereSeparator: { !$0.isLetter }).joined(separator: "-")
            object["images"] = .object(["hero": .string("https://images.loomi.example/\(slug).jpg")])
        }
        if unusual {
            object["sustainability_score"] = .object(["grade": .string("B"), "co2_kg": .number(1.2)])
            object["difficulty_level"] = .string("moderately-tricky")
        }
        return .object(object)
    }
}

enum LoomiReferenceCatalog {
    /// Words that name a dish or a kind of dish, and the tag each selects.
    static let topics: [String: String] = [
        "cheesecake": "cheesecake", "cheesecakes": "cheesecake", "dessert": "dessert", "desserts": "dessert", "cake": "dessert",
        "soup": "soup", "soups": "soup", "pasta": "pasta", "penne": "pasta", "noodles": "pasta", "curry": "curry", "curries": "curry",
        "breakfast": "breakfast", "pancakes": "breakfast", "brunch": "breakfast", "dinner": "dinner",
    ]

    /// Words that name a constraint, and its tag.
    static let constraints: [String: String] = [
        "vegan": "vegan", "vegetarian": "vegetarian", "gluten-free": "gluten-free", "dairy-free": "dairy-free",
        "quick": "quick", "quicker": "quick", "fast": "quick", "protein": "high-protein", "high-protein": "high-protein",
        "spicy": "spicy", "spicier": "spicy",
    ]

    static let recipes: [LoomiReferenceRecipe] = [
        .init(title: "Perfect Vegan Cheesecake", tags: ["cheesecake", "dessert", "vegan", "dairy-free", "high-protein"], minutes: 60, servings: 8,
              ingredients: [("2 cups", "raw cashews"), ("1 cup", "coconut cream"), ("1/2 cup", "maple syrup"), ("1 cup", "wheat flour crust"), ("30 g", "pea protein")],
              steps: ["Soak the cashews for 4 hours.", "Blend the filling until smooth.", "Press the crust into the tin.", "Fill, then chill overnight."],
              calories: 420, protein: 21, image: true),
        .init(title: "Gluten-Free Vegan Cheesecake Bars", tags: ["cheesecake", "dessert", "vegan", "gluten-free", "dairy-free", "high-protein"], minutes: 45, servings: 12,
              ingredients: [("2 cups", "cashews"), ("1 cup", "almond flour"), ("1/3 cup", "dates"), ("1", "lemon, juiced"), ("40 g", "soy protein")],
              steps: ["Blend dates and almond flour for the base.", "Blend the filling.", "Layer and freeze for 2 hours.", "Cut into bars."],
              calories: 310, protein: 20, image: true),
        .init(title: "Classic New York Cheesecake", tags: ["cheesecake", "dessert", "vegetarian"], minutes: 90, servings: 10,
              ingredients: [("900 g", "cream cheese"), ("1 cup", "sugar"), ("4", "eggs"), ("1 1/2 cups", "graham crumbs")],
              steps: ["Bake the crust.", "Beat the filling.", "Bake in a water bath.", "Cool slowly in the oven."],
              calories: 510, protein: 9, image: true),
        .init(title: "Protein Chocolate Cheesecake Cups", tags: ["cheesecake", "dessert", "vegetarian", "gluten-free", "high-protein", "quick"], minutes: 15, servings: 4,
              ingredients: [("250 g", "quark"), ("30 g", "chocolate whey"), ("2 tbsp", "cocoa"), ("4", "rice cakes")],
              steps: [], calories: 220, protein: 24, image: true),
        .init(title: "Lemon Ricotta Cheesecake", tags: ["cheesecake", "dessert", "vegetarian", "gluten-free"], minutes: 70, servings: 8,
              ingredients: [("500 g", "ricotta"), ("2", "lemons"), ("3", "eggs"), ("1/2 cup", "sugar")],
              steps: ["Whisk everything together.", "Bake at 160 °C for 50 minutes.", "Chill before serving."],
              calories: nil, protein: nil, image: false),
        .init(title: "Quick Lentil Soup", tags: ["soup", "dinner", "vegan", "gluten-free", "dairy-free", "quick", "high-protein"], minutes: 25, servings: 4,
              ingredients: [("1 cup", "red lentils"), ("1", "onion"), ("2", "carrots"), ("1 l", "vegetable stock")],
              steps: ["Soften the onion and carrots.", "Add lentils and stock.", "Simmer 20 minutes, then blend."],
              calories: 280, protein: 16, image: true),
        .init(title: "Creamy Tomato Pasta", tags: ["pasta", "dinner", "vegetarian", "quick"], minutes: 20, servings: 2,
              ingredients: [("200 g", "spaghetti"), ("1 can", "tomatoes"), ("100 ml", "cream"), ("1 clove", "garlic")],
              steps: ["Cook the pasta.", "Simmer tomatoes with garlic and cream.", "Toss together."],
              calories: 610, protein: 18, image: true),
        .init(title: "Gluten-Free Penne Primavera", tags: ["pasta", "dinner", "vegan", "gluten-free", "dairy-free"], minutes: 30, servings: 4,
              ingredients: [("300 g", "gluten-free penne"), ("1", "zucchini"), ("1 cup", "peas"), ("2 tbsp", "olive oil")],
              steps: ["Cook the penne.", "Sauté the vegetables.", "Combine with olive oil and herbs."],
              calories: 450, protein: 13, image: true),
        .init(title: "Chicken Tikka Masala", tags: ["curry", "dinner", "gluten-free", "spicy", "high-protein"], minutes: 50, servings: 4,
              ingredients: [("600 g", "chicken thighs"), ("1 cup", "yoghurt"), ("1 can", "tomatoes"), ("2 tbsp", "garam masala")],
              steps: ["Marinate the chicken.", "Grill until charred.", "Simmer in the spiced sauce."],
              calories: 540, protein: 42, image: true),
        .init(title: "Chickpea Curry", tags: ["curry", "dinner", "vegan", "gluten-free", "dairy-free", "quick", "spicy"], minutes: 25, servings: 4,
              ingredients: [("2 cans", "chickpeas"), ("1 can", "coconut milk"), ("1", "onion"), ("2 tbsp", "curry paste")],
              steps: ["Fry the onion and paste.", "Add chickpeas and coconut milk.", "Simmer 15 minutes."],
              calories: 390, protein: 14, image: true),
        .init(title: "Banana Oat Pancakes", tags: ["breakfast", "vegetarian", "quick"], minutes: 15, servings: 2,
              ingredients: [("2", "bananas"), ("1 cup", "oats"), ("2", "eggs")],
              steps: ["Blend everything.", "Fry small pancakes."],
              calories: 350, protein: 12, image: true),
        .init(title: "Tofu Scramble", tags: ["breakfast", "vegan", "gluten-free", "dairy-free", "quick", "high-protein"], minutes: 10, servings: 2,
              ingredients: [("300 g", "firm tofu"), ("1 tsp", "turmeric"), ("1", "pepper")],
              steps: ["Crumble the tofu.", "Fry with turmeric and pepper."],
              calories: 260, protein: 25, image: true),
    ]
}
