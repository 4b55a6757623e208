/// What an engine intends to do, shown before anything runs at trust level 0.
public struct Plan: Sendable, Hashable, Codable {
    /// The id `approve(taskID:)` and `reject(taskID:)` take.
    public var taskID: String
    /// One paragraph for people.
    public var summary: String
    public var steps: [PlanStep]
    public var estimatedIterations: Int?

    public init(taskID: String, summary: String, steps: [PlanStep] = [], estimatedIterations: Int? = nil) {
        self.taskID = taskID
        self.summary = summary
        self.steps = steps
        self.estimatedIterations = estimatedIterations
    }
}

/// One step of a plan, in words: "search the knowledge folder", "use the research instrument".
public struct PlanStep: Sendable, Hashable, Codable {
    public var title: String
    public var detail: String?

    public init(_ title: String, detail: String? = nil) {
        self.title = title
        self.detail = detail
    }
}
