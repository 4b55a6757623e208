/// `POST /recipes/by-ids`: the rich data of the recipes the agent chose (seed 004, "Endpoint 2").
/// The answer, `{"recipes": [...]}`, is read as it arrives (`RecipeArrayScanner`), so each
/// card shows as soon as its record is complete.
public struct RecipesByIDsRequest: Sendable, Hashable, Codable {
    public var recipeIDs: [String]
    public var sessionID: String
    /// Optional filtering; the server may send more or less.
    public var fieldsRequested: [String]?

    public init(recipeIDs: [String], sessionID: String, fieldsRequested: [String]? = RecipeRecord.detailFields) {
        self.recipeIDs = recipeIDs
        self.sessionID = sessionID
        self.fieldsRequested = fieldsRequested
    }

    enum CodingKeys: String, CodingKey {
        case recipeIDs = "recipe_ids", sessionID = "session_id", fieldsRequested = "fields_requested"
    }
}
